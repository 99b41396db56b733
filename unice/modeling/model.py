"""``UniCEModel``: encoder -> layer-wise attention -> pooling -> feed-forward head -> logits."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn
from transformers import AutoModel, PreTrainedModel
from transformers.utils import ModelOutput

from unice.data.features import FEATURE_NAMES
from unice.modeling.configuration import UniCEConfig
from unice.modeling.feature_cache import FeatureCache
from unice.modeling.feedforward import FeedForward
from unice.modeling.frozen_encoder import FrozenEncoderMixin, length_groups, pool
from unice.modeling.layerwise_attention import ScalarMix
from unice.modeling.loss import format_loss
from unice.modeling.top_layers import top_parameter_prefixes


@dataclass
class UniCEOutput(ModelOutput):
    """Output of :meth:`UniCEModel.forward`.

    Attributes:
        loss: the format loss when ``labels`` are given (scalar), else ``None``.
        logits: ``(batch, k)`` raw logits: PassRatio, Executability[, Passability].
        trained_logits: the logits the training loss reads: ``logits`` itself, except with
            ``exec_prior``, where ``logits``' Exec column is the ensemble's and this is the
            network's own (``None`` when no model set it).
        sentence_embedding: ``(batch, features)`` the vector fed to the head (the pooled input,
            or the estimator's comparison features).
    """

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    trained_logits: torch.Tensor | None = None
    sentence_embedding: torch.Tensor | None = None


def build_encoder(config: UniCEConfig) -> PreTrainedModel:
    """The backbone from its embedded config (never from the hub); no pooler where possible."""
    try:
        return AutoModel.from_config(config.encoder, add_pooling_layer=False)
    except TypeError:  # encoders without a pooler option
        return AutoModel.from_config(config.encoder)


def compare_segments(
    segments: torch.Tensor,
    generated_index: torch.Tensor,
    reference_index: torch.Tensor | None,
    nl_index: torch.Tensor | None,
) -> torch.Tensor:
    """COMET's estimator features of each row: ``[g; r; g*r; |g-r|; cos(g,r); n; g*n; |g-n|;
    cos(g,n)]``, with the reference or NL block zero where the row's format lacks it.

    Args:
        segments: ``(segments, hidden)`` one vector per distinct text of the batch.
        generated_index, reference_index, nl_index: ``(rows,)`` indices into ``segments``
            (``-1`` = absent; ``None`` = absent for every row).
    """
    generated = segments[generated_index]
    features = [generated]
    for index in (reference_index, nl_index):
        if index is None:
            index = torch.full_like(generated_index, -1)
        present = (index >= 0).unsqueeze(-1).to(generated.dtype)
        other = segments[index.clamp(min=0)] * present
        cosine = F.cosine_similarity(generated, other, dim=-1, eps=1e-6).unsqueeze(-1)
        features += [other, generated * other, (generated - other).abs() * present]
        features.append(cosine * present)
    return torch.cat(features, dim=-1)


def feature_prior(exact_features: torch.Tensor, name: str) -> torch.Tensor:
    """``(rows,)`` ``logit(feature)`` of the exact feature ``name`` (``exact_prior``), zero for
    rows without a reference (their overlap features are all 0, not a low similarity)."""
    value = exact_features[:, FEATURE_NAMES.index(name)]
    has_reference = exact_features[:, FEATURE_NAMES.index("has_reference")]
    return torch.logit(value.clamp(PRIOR_EPS, 1 - PRIOR_EPS)) * has_reference


def ensemble_logit(first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
    """The logit of ``(sigmoid(first) + sigmoid(second)) / 2``, computed in log space so that
    neither probability rounds to 0 or 1 (where the logit would be infinite)."""
    log_half = math.log(0.5)
    log_p = torch.logaddexp(F.logsigmoid(first), F.logsigmoid(second)) + log_half
    log_q = torch.logaddexp(F.logsigmoid(-first), F.logsigmoid(-second)) + log_half
    return log_p - log_q


def add_to_column(logits: torch.Tensor, column: int, values: torch.Tensor) -> torch.Tensor:
    """``logits`` with ``values`` added to one output's column (PassRatio 0, Exec 1), out of
    place so autograd sees every term."""
    shift = torch.zeros_like(logits)
    shift[:, column] = values
    return logits + shift


PRIOR_EPS = 1e-4
"""An exact prior's feature is clipped to [1e-4, 1 - 1e-4] before its logit (logits within
+-9.2)."""


class UniCEPreTrainedModel(PreTrainedModel):
    """Weight init and loading conventions shared by UniCE models."""

    config_class = UniCEConfig
    base_model_prefix = "unice"
    supports_gradient_checkpointing = True

    def _init_weights(self, module: nn.Module) -> None:
        std = float(getattr(self.config.encoder, "initializer_range", 0.02) or 0.02)
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, ScalarMix):
            nn.init.zeros_(module.scalars)
            nn.init.ones_(module.gamma)


class UniCEModel(FrozenEncoderMixin, UniCEPreTrainedModel):
    """CodeScore estimator trained with UniCE.

    Each row of a forward pass is one sample in one input format (g+r, g+n or g+r+n); the model
    does not need to know which. Training sends every format row of a batch through one forward
    (``unice.data.dataset.Collator`` pads them together) and sums the per-format losses
    (``unice.modeling.loss``); ``unice.scoring`` runs one forward per format present.
    """

    def __init__(self, config: UniCEConfig):
        super().__init__(config)
        self.encoder = build_encoder(config)
        num_layers = int(config.encoder.num_hidden_layers) + 1
        self.layerwise = ScalarMix(num_layers, config.layer_dropout, config.layer_norm)
        self.head = FeedForward(
            config.feature_size,
            config.hidden_sizes,
            config.num_outputs,
            config.activation,
            config.dropout,
        )
        self.tokenizer: Any = None
        # FeatureCache of a frozen encoder (attach with use_feature_cache); not a module, so
        # never saved with the weights
        self.feature_cache: FeatureCache | None = None
        # trainable_top_layers: the names of the top layers that train on cached token states
        self._top_prefixes: tuple[str, ...] = ()
        if config.freeze_encoder:
            self.encoder.requires_grad_(False)
        if config.trainable_top_layers:
            self._top_prefixes = top_parameter_prefixes(self.encoder, config.trainable_top_layers)
            for name, param in self.encoder.named_parameters():
                param.requires_grad_(self.trains_encoder_parameter(name))
        if self._has_prior:
            self.prior_scale = nn.Parameter(torch.ones(()))
        if config.standardize_states:
            # filled by unice.training.state_statistics before training; saved with the
            # weights (the identity until then)
            shape = (num_layers, int(config.encoder.hidden_size))
            self.register_buffer("state_mean", torch.zeros(shape))
            self.register_buffer("state_std", torch.ones(shape))
        if config.exec_prior:
            # filled by unice.training.exec_prior before training; saved with the weights.
            # Buffers draw nothing from the seeded generator, so every weight and every
            # dropout draw is the run without the prior's.
            self.register_buffer("exec_prior_weight", torch.zeros(config.exec_prior_width))
            self.register_buffer("exec_prior_bias", torch.zeros(()))
        self.post_init()
        if self._has_prior:  # the untrained PassRatio logit is the exact prior alone
            last = self.head.net[-1]
            with torch.no_grad():
                last.weight[0].zero_()
                last.bias[0].zero_()

    def train(self, mode: bool = True) -> UniCEModel:
        """Like ``nn.Module.train``, but a frozen encoder stays in eval mode (no dropout), so
        its states are the same in training and scoring, and may be cached."""
        super().train(mode)
        if self.config.freeze_encoder:
            self.encoder.eval()
        return self

    @property
    def _has_prior(self) -> bool:
        """Whether the PassRatio logit starts from an exact feature (``exact_prior``) instead of
        the head alone."""
        return bool(getattr(self.config, "exact_prior", None))

    def exec_prior_logit(self, exact_features: torch.Tensor) -> torch.Tensor:
        """``(rows,)`` the fitted Exec prior's logit: its linear model on the features it was
        fitted on (the first ``config.exec_prior_width`` exact features)."""
        width = self.config.exec_prior_width
        weight = self.exec_prior_weight
        return exact_features[:, :width].to(weight.dtype) @ weight + self.exec_prior_bias

    def forward(
        self,
        input_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        segment_input_ids: torch.Tensor | None = None,
        segment_attention_mask: torch.Tensor | None = None,
        generated_index: torch.Tensor | None = None,
        reference_index: torch.Tensor | None = None,
        nl_index: torch.Tensor | None = None,
        exact_features: torch.Tensor | None = None,
        **_: Any,
    ) -> UniCEOutput:
        """Score a batch of rows (any mix of input formats).

        ``cross`` models take joined rows (``input_ids``...); ``estimator`` models take the
        distinct segments of a batch (``segment_*``) and, per row, which segment is its
        generated code, reference and NL (``-1``: not in this row's format).

        Args:
            input_ids: ``(batch, seq)`` token ids.
            attention_mask: ``(batch, seq)``, 1 for real tokens.
            token_type_ids: ``(batch, seq)``, 0 for the generated segment, 1 after it
                (omitted for encoders without token types).
            labels: optional ``(batch, 3)`` PassRatio, Executability, Passability in [0, 1].
            segment_input_ids: ``(segments, seq)`` each distinct text alone (estimator).
            segment_attention_mask: ``(segments, seq)``.
            generated_index: ``(batch,)`` row -> its generated code's segment.
            reference_index: ``(batch,)`` row -> its reference's segment, or -1.
            nl_index: ``(batch,)`` row -> its NL's segment, or -1.
            exact_features: ``(batch, F)`` :func:`unice.data.features.exact_features` of each
                row (estimator with ``exact_features``).

        Returns:
            :class:`UniCEOutput` with ``loss`` (when labels are given) and ``logits (batch, k)``.
        """
        if self.config.architecture == "estimator":
            if segment_input_ids is None or generated_index is None:
                raise ValueError("an estimator model takes segment_input_ids and generated_index")
            segments = self._embed(segment_input_ids, segment_attention_mask)
            features = compare_segments(segments, generated_index, reference_index, nl_index)
            if self.config.exact_features:
                if exact_features is None:
                    raise ValueError("this model was built with exact_features; pass them")
                plain = exact_features[:, : len(FEATURE_NAMES)]  # structure facts: prior only
                features = torch.cat([features, plain.to(features.dtype)], dim=-1)
        else:
            if input_ids is None or attention_mask is None:
                raise ValueError("a cross model takes input_ids and attention_mask")
            features = self._embed(input_ids, attention_mask, token_type_ids)
        logits = self.head(features)
        if self._has_prior:
            prior = feature_prior(exact_features, self.config.exact_prior)
            logits = add_to_column(logits, 0, self.prior_scale * prior.to(logits.dtype))
        trained = logits
        if self.config.exec_prior:  # the ensemble votes; the loss reads the network's logits
            prior = self.exec_prior_logit(exact_features).to(logits.dtype)
            columns = list(trained.unbind(dim=1))
            columns[1] = ensemble_logit(columns[1], prior)
            logits = torch.stack(columns, dim=1)
        loss = None
        if labels is not None:
            loss, _ = format_loss(trained, labels, self.config.loss_weights)
        return UniCEOutput(
            loss=loss, logits=logits, trained_logits=trained, sentence_embedding=features
        )

    def _embed(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Encoder -> layer-wise mix -> pooling: one vector per input row (a frozen encoder's
        rows: their pooled layers, cached, then mixed)."""
        if self.config.freeze_encoder:
            layers = self.encoder_layers(input_ids, attention_mask, token_type_ids)
            if self.config.standardize_states:
                layers = (layers - self.state_mean) / self.state_std
            return self.layerwise.mix_pooled(layers)
        mixed = self._mix(input_ids, attention_mask, token_type_ids)
        return pool(mixed, attention_mask, self.config.pooling)

    def _mix(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Encoder -> layer-wise mix: ``(rows, seq, hidden)`` token states."""
        hidden_states = self._hidden_states(input_ids, attention_mask, token_type_ids)
        return self.layerwise(hidden_states, attention_mask)

    def _hidden_states(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, ...]:
        """Every layer's ``(rows, seq, hidden)`` states (zeros past a row's last token).

        With ``length_buckets`` > 1 the rows are encoded in that many groups of similar
        length (:func:`~unice.modeling.frozen_encoder.length_groups`), each cut to its own
        longest row; the layer mix still sees the whole batch at once.
        """
        rows = input_ids.shape[0]
        buckets = min(int(getattr(self.config, "length_buckets", 1) or 1), rows)
        if buckets <= 1:
            return self._encode(input_ids, attention_mask, token_type_ids)
        layers: list[torch.Tensor] | None = None
        for chunk, width in length_groups(attention_mask, buckets):
            types = token_type_ids[chunk, :width] if token_type_ids is not None else None
            states = self._encode(input_ids[chunk, :width], attention_mask[chunk, :width], types)
            if layers is None:
                shape = (rows, input_ids.shape[1], states[0].shape[-1])
                layers = [states[0].new_zeros(shape) for _ in states]
            for full, part in zip(layers, states, strict=True):
                full[chunk, :width] = part
        assert layers is not None
        return tuple(layers)

    def _encode(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, ...]:
        encoder_inputs = {"input_ids": input_ids, "attention_mask": attention_mask}
        if token_type_ids is not None:
            encoder_inputs["token_type_ids"] = token_type_ids
        outputs = self.encoder(**encoder_inputs, output_hidden_states=True, return_dict=True)
        return outputs.hidden_states

    def score(
        self,
        *,
        generated: list[str],
        references: list[str | None] | None = None,
        nls: list[str | None] | None = None,
        languages: list[str | None] | None = None,
        batch_size: int = 32,
        progress: bool = False,
    ) -> list[dict[str, float | None]]:
        """CodeScore and Exec probability per sample, per format; see :func:`unice.scoring.score`."""
        from unice.scoring import score

        return score(
            self,
            generated=generated,
            references=references,
            nls=nls,
            languages=languages,
            batch_size=batch_size,
            progress=progress,
        )
