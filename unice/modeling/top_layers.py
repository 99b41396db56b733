"""Training a frozen decoder LM's top layers on cached token states (``trainable_top_layers``).

Why: a frozen code LM's states were trained to predict the next token, not to tell a right
program from a wrong one, and a head on pooled frozen states learns only what a linear read of
them holds. Fine-tuning the whole LM costs a forward and a backward of every layer per text
per step, which these CPUs cannot afford; training only the top ``k`` layers costs ``k`` of
them, *if* the states entering layer ``L - k`` are computed once. They never change (the
layers below stay frozen), so they are cached per distinct text like the frozen encoder's
pooled states, and each step runs only the top layers on them.

This module knows the decoder stacks of ``transformers`` (Llama, SmolLM2, Qwen2,
DeepSeek-Coder): a ``layers`` list, a final ``norm`` and a ``rotary_emb``, run as the model's
own ``forward`` runs them (its causal mask, its rotary positions), so the cached path gives
the states a full forward gives (tested).
"""

from __future__ import annotations

import torch
from torch import nn

from unice.errors import ModelConfigError


def decoder_stack(encoder: nn.Module) -> tuple[nn.ModuleList, nn.Module, nn.Module]:
    """``(layers, final norm, rotary embedding)`` of a decoder LM, or a clear error."""
    parts = [getattr(encoder, name, None) for name in ("layers", "norm", "rotary_emb")]
    if not isinstance(parts[0], nn.ModuleList) or parts[1] is None or parts[2] is None:
        kind = getattr(getattr(encoder, "config", None), "model_type", type(encoder).__name__)
        raise ModelConfigError(
            f"trainable_top_layers runs a decoder LM's top layers on cached states; the "
            f"backbone {kind!r} is not one (use a Llama/Qwen2-style code LM such as "
            "model=smollm2, or trainable_top_layers=0)"
        )
    return parts[0], parts[1], parts[2]


def top_parameter_prefixes(encoder: nn.Module, count: int) -> tuple[str, ...]:
    """Parameter-name prefixes (relative to ``encoder``) of the top ``count`` layers and the
    final norm: what trains; everything else stays frozen."""
    layers, _, _ = decoder_stack(encoder)
    total = len(layers)
    if not 1 <= count < total:
        raise ModelConfigError(
            f"trainable_top_layers={count} must be between 1 and {total - 1} for a backbone "
            f"of {total} layers (the embeddings and at least one layer stay frozen)"
        )
    return (*(f"layers.{index}." for index in range(total - count, total)), "norm.")


def first_trained_layer(encoder: nn.Module, count: int) -> int:
    """The hidden-state index whose token states enter the trained layers: ``L - count``
    (``hidden_states[0]`` being the embeddings)."""
    layers, _, _ = decoder_stack(encoder)
    return len(layers) - count


def run_top_layers(
    encoder: nn.Module, count: int, tokens: torch.Tensor, attention_mask: torch.Tensor
) -> list[torch.Tensor]:
    """The top ``count`` layers on ``tokens`` ``(rows, seq, hidden)`` (the states entering
    layer ``L - count``): the ``count`` hidden states ``hidden_states[L - count + 1 : L + 1]``
    a full forward would give, the last one after the final norm as ``transformers`` returns it.
    """
    from transformers.masking_utils import create_causal_mask

    layers, norm, rotary = decoder_stack(encoder)
    rows, width = tokens.shape[:2]
    position_ids = torch.arange(width, device=tokens.device).unsqueeze(0).expand(rows, -1)
    mask = create_causal_mask(
        config=encoder.config,
        inputs_embeds=tokens,
        attention_mask=attention_mask,
        cache=None,
        position_ids=position_ids,
    )
    positions = rotary(tokens, position_ids=position_ids)
    states = []
    hidden = tokens
    for layer in layers[len(layers) - count :]:
        hidden = layer(
            hidden, attention_mask=mask, position_embeddings=positions, position_ids=position_ids
        )
        states.append(hidden)
    states[-1] = norm(states[-1])
    return states
