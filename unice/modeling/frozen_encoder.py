"""A frozen encoder's states for ``UniCEModel``: pooling, the per-text cache entries, and the
top layers that train on cached token states (``freeze_encoder``, ``trainable_top_layers``).

Why a module of its own: ``UniCEModel`` reads its encoder two ways. A fine-tuned encoder runs
on every step (``model.py``); a frozen one runs once per distinct text, its states kept in a
:class:`~unice.modeling.feature_cache.FeatureCache` and, with ``trainable_top_layers``, only the
top layers run on each step. This mixin is that second way; ``UniCEModel`` provides
``config``, ``encoder``, ``feature_cache`` and ``_hidden_states``.
"""

from __future__ import annotations

from typing import Any

import torch

from unice.modeling.feature_cache import FeatureCache, token_key, weights_digest
from unice.modeling.top_layers import first_trained_layer, run_top_layers


def pool(states: torch.Tensor, attention_mask: torch.Tensor, mode: str) -> torch.Tensor:
    """The sentence vector: the first token's state, or the mean over real tokens.

    Why both: the paper reads the first token (UniXcoder's ``<s>``); sentence encoders such as
    all-MiniLM-L6-v2 were trained so that the *mean* of their token states carries the
    meaning, and their first token was never trained to summarise anything.
    """
    if mode == "first":
        return states[:, 0]
    if mode == "last":  # right-padded rows: the last real token
        last = (attention_mask.sum(dim=1) - 1).clamp(min=0)
        return states[torch.arange(states.size(0), device=states.device), last]
    mask = attention_mask.unsqueeze(-1).to(states.dtype)
    return (states * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


def length_groups(attention_mask: torch.Tensor, buckets: int) -> list[tuple[torch.Tensor, int]]:
    """The rows in ``buckets`` groups of similar length (``length_buckets``), longest first,
    each with its longest row's width. Why: a batch pads every row to its longest one (an NL
    prompt, a long program), so short rows would otherwise cost as much as the longest; each
    row's states depend on its own tokens only, so running the groups apart, each cut to its
    width, changes the cost, not the result (beyond float noise)."""
    lengths = attention_mask.sum(dim=1)
    order = torch.argsort(lengths, descending=True)
    count = max(min(int(buckets or 1), len(order)), 1)
    return [(rows, max(int(lengths[rows].max()), 1)) for rows in torch.tensor_split(order, count)]


def input_keys(
    input_ids: torch.Tensor,
    attention_mask: torch.Tensor,
    token_type_ids: torch.Tensor | None = None,
) -> list[str]:
    """One key per row naming its input: its real token ids (and token types), whatever the
    padding; the frozen encoder's cache and state statistics count a text by it."""
    keys = []
    for row, mask in zip(input_ids.tolist(), attention_mask.tolist(), strict=True):
        keys.append([token for token, keep in zip(row, mask, strict=True) if keep])
    if token_type_ids is not None:
        keys = [k + [-1] + t[: len(k)] for k, t in zip(keys, token_type_ids.tolist(), strict=True)]
    return [token_key(k) for k in keys]


class FrozenEncoderMixin:
    """Frozen-encoder reading of :class:`~unice.modeling.model.UniCEModel` (see module
    docstring)."""

    config: Any
    encoder: torch.nn.Module
    feature_cache: FeatureCache | None
    _top_prefixes: tuple[str, ...]
    _hidden_states: Any

    def trains_encoder_parameter(self, name: str) -> bool:
        """Whether the encoder parameter ``name`` (relative to the encoder) trains: every one
        of a fine-tuned encoder, none of a frozen one, the top layers' with
        ``trainable_top_layers``."""
        if not self.config.freeze_encoder:
            return True
        return name.startswith(self._top_prefixes) if self._top_prefixes else False

    def cache_namespace(self) -> str:
        """The feature cache's sub-folder of this model's frozen states: the frozen weights'
        digest and the pooling (with ``trainable_top_layers``: the frozen part's digest only, so
        training the top layers never invalidates the cache, and where the cut is)."""
        pooling = self.config.pooling
        if not self._top_prefixes:
            return FeatureCache.namespace_of(self.encoder, pooling)
        digest = weights_digest(self.encoder, exclude=self._top_prefixes)
        cut = first_trained_layer(self.encoder, self.config.trainable_top_layers)
        return f"{digest}-{pooling}-tokens{cut}"

    def use_feature_cache(self, cache: FeatureCache | None) -> None:
        """Read and fill ``cache`` with the frozen encoder's per-layer pooled states (only
        with ``freeze_encoder``; ``None`` detaches it)."""
        if cache is not None and not self.config.freeze_encoder:
            raise ValueError(
                "a feature cache needs freeze_encoder=true (a trained encoder changes)"
            )
        self.feature_cache = cache

    def encoder_layers(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """``(rows, layers, hidden)``: each row's pooled state at every layer of a frozen
        encoder; with ``trainable_top_layers`` the top layers run now, on the cached token
        states entering them, and their states carry gradients."""
        if not self._top_prefixes:
            return self.frozen_layers(input_ids, attention_mask, token_type_ids)
        lower, tokens, token_mask = self._frozen_inputs(input_ids, attention_mask, token_type_ids)
        return torch.cat([lower, self._top_pooled(tokens, token_mask)], dim=1)

    def _top_pooled(self, tokens: torch.Tensor, token_mask: torch.Tensor) -> torch.Tensor:
        """``(rows, k, hidden)``: the trained top layers' pooled states of each row, the rows
        run in ``length_buckets`` groups of similar length (each padded to its own longest
        row: :func:`length_groups`)."""
        count = self.config.trainable_top_layers
        parts, rows = [], []
        for chunk, width in length_groups(token_mask, self.config.length_buckets):
            mask = token_mask[chunk, :width]
            states = run_top_layers(self.encoder, count, tokens[chunk, :width], mask)
            parts.append(torch.stack([pool(s, mask, self.config.pooling) for s in states], 1))
            rows.append(chunk)
        pooled = torch.cat(parts)
        return pooled[torch.argsort(torch.cat(rows))]

    @torch.no_grad()
    def frozen_layers(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """``(rows, layers, hidden)``: :meth:`encoder_layers` without gradients (state
        statistics, scoring)."""
        if self._top_prefixes:
            return self.encoder_layers(input_ids, attention_mask, token_type_ids)
        device = input_ids.device
        entries = self.frozen_entries(input_ids, attention_mask, token_type_ids)
        return torch.stack([entry.to(device) for entry in entries])

    @torch.no_grad()
    def frozen_entries(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> list[torch.Tensor]:
        """What the frozen encoder gives each row, from the feature cache where it has it; only
        the other rows are encoded (and then cached). Keys are the rows' real token ids (and
        token types). An entry is the row's pooled state at every layer ``(layers, hidden)``;
        with ``trainable_top_layers`` those of the frozen layers ``0..L-k``, followed by the
        row's token states entering layer ``L - k`` ``(L-k+1 + tokens, hidden)``."""
        keys = input_keys(input_ids, attention_mask, token_type_ids)
        cache = self.feature_cache
        found = cache.lookup(keys) if cache is not None else [None] * len(keys)
        missing = [i for i, state in enumerate(found) if state is None]
        if missing:
            index = torch.tensor(missing, device=input_ids.device)
            mask = attention_mask[index]
            width = max(int(mask.sum(dim=1).max()), 1)
            types = token_type_ids[index, :width] if token_type_ids is not None else None
            states = self._hidden_states(input_ids[index, :width], mask[:, :width], types)
            cut = self._frozen_cut(len(states))  # the last layer an entry pools
            pooled = torch.stack(
                [pool(layer, mask[:, :width], self.config.pooling) for layer in states[: cut + 1]],
                dim=1,
            )
            entries = list(pooled)
            if self._top_prefixes:  # the token states entering the trained layers follow
                lengths = mask.sum(dim=1).tolist()
                entries = [
                    torch.cat([entry, states[cut][position, : int(length)]])
                    for position, (entry, length) in enumerate(zip(entries, lengths, strict=True))
                ]
            for position, i in enumerate(missing):
                found[i] = entries[position]
            if cache is not None:
                cache.add([keys[i] for i in missing], entries)
        return found

    def _frozen_cut(self, hidden_states: int) -> int:
        """The last of ``hidden_states`` indices a frozen entry pools: all of them, or ``L - k``
        (the states entering the trained layers, whose token states the entry also keeps)."""
        if not self._top_prefixes:
            return hidden_states - 1
        return first_trained_layer(self.encoder, self.config.trainable_top_layers)

    def _frozen_inputs(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(pooled frozen layers (rows, L-k+1, hidden), token states entering layer L-k
        (rows, width, hidden), their mask (rows, width))`` of each row, right-padded."""
        entries = self.frozen_entries(input_ids, attention_mask, token_type_ids)
        device = input_ids.device
        kept = first_trained_layer(self.encoder, self.config.trainable_top_layers) + 1
        lower = torch.stack([entry[:kept] for entry in entries]).to(device)
        tokens = [entry[kept:] for entry in entries]
        width = max(max(len(row) for row in tokens), 1)
        padded = lower.new_zeros((len(tokens), width, lower.shape[-1]))
        token_mask = torch.zeros((len(tokens), width), dtype=attention_mask.dtype, device=device)
        for row, states in enumerate(tokens):
            padded[row, : len(states)] = states.to(device)
            token_mask[row, : len(states)] = 1
        return lower, padded, token_mask
