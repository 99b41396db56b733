"""Layer-wise attention: a learned softmax scalar mix over all hidden states (ELMo style).

Why: the paper pools every layer of the encoder, not only the last one, so the head can use
the lower layers' lexical features as well as the upper layers' semantics. Weights start
equal (scalars 0) and ``gamma`` at 1, so the initial mix is the plain mean of the layers.
"""

from __future__ import annotations

import torch
from torch import nn


class ScalarMix(nn.Module):
    """``gamma * sum_k softmax(s)_k * h_k`` over ``num_layers`` hidden states.

    Args:
        num_layers: number of hidden states mixed (embedding output + every layer).
        layer_dropout: in training, each layer weight is dropped with this probability
            (its scalar set to ``-inf`` before the softmax; at least one layer always survives).
        layer_norm: layer-normalise each hidden state (over the unmasked tokens) before mixing.
    """

    def __init__(self, num_layers: int, layer_dropout: float = 0.0, layer_norm: bool = False):
        super().__init__()
        if num_layers < 1:
            raise ValueError(f"num_layers={num_layers} must be >= 1")
        self.num_layers = num_layers
        self.layer_dropout = layer_dropout
        self.layer_norm = layer_norm
        self.scalars = nn.Parameter(torch.zeros(num_layers))
        self.gamma = nn.Parameter(torch.ones(1))

    def weights(self) -> torch.Tensor:
        """Normalised layer weights, shape ``(num_layers,)``; layer dropout applies in training."""
        scalars = self.scalars
        if self.training and self.layer_dropout > 0:
            keep = torch.rand_like(scalars) >= self.layer_dropout
            if not bool(keep.any()):
                keep[torch.randint(self.num_layers, (1,), device=scalars.device)] = True
            scalars = scalars.masked_fill(~keep, float("-inf"))
        return torch.softmax(scalars, dim=0)

    def forward(
        self, hidden_states: list[torch.Tensor] | tuple[torch.Tensor, ...], mask: torch.Tensor
    ) -> torch.Tensor:
        """Mix the layers.

        Args:
            hidden_states: ``num_layers`` tensors of shape ``(batch, seq, hidden)``.
            mask: attention mask, shape ``(batch, seq)``, 1 for real tokens.

        Returns:
            The mixed states, shape ``(batch, seq, hidden)``.
        """
        if len(hidden_states) != self.num_layers:
            raise ValueError(f"expected {self.num_layers} hidden states, got {len(hidden_states)}")
        weights = self.weights()
        mixed = torch.zeros_like(hidden_states[0])
        for weight, states in zip(weights, hidden_states, strict=True):
            if self.layer_norm:
                states = _masked_layer_norm(states, mask)
            mixed = mixed + weight.to(states.dtype) * states
        return self.gamma.to(mixed.dtype) * mixed

    def mix_pooled(self, layers: torch.Tensor) -> torch.Tensor:
        """Mix per-layer *pooled* states ``(batch, num_layers, hidden)`` -> ``(batch, hidden)``.

        Without ``layer_norm`` the mix is linear in the states, so this equals pooling the
        output of :meth:`forward` (mean or a chosen token): what a frozen encoder's cached
        states need (``UniCEConfig.freeze_encoder``).
        """
        if self.layer_norm:
            raise ValueError("mix_pooled needs layer_norm=False (the mix must be linear)")
        if layers.shape[1] != self.num_layers:
            raise ValueError(f"expected {self.num_layers} layers, got {layers.shape[1]}")
        weights = self.weights().to(layers.dtype)
        return self.gamma.to(layers.dtype) * torch.einsum("l,blh->bh", weights, layers)


def _masked_layer_norm(
    states: torch.Tensor, mask: torch.Tensor, eps: float = 1e-12
) -> torch.Tensor:
    """Normalise ``states`` ``(batch, seq, hidden)`` with mean/var over unmasked tokens only."""
    broadcast = mask.unsqueeze(-1).to(states.dtype)
    count = broadcast.sum(dim=(1, 2), keepdim=True).clamp(min=1.0) * states.size(-1)
    mean = (states * broadcast).sum(dim=(1, 2), keepdim=True) / count
    var = (((states - mean) * broadcast) ** 2).sum(dim=(1, 2), keepdim=True) / count
    return (states - mean) / torch.sqrt(var + eps)
