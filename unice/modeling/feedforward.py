"""The feed-forward estimator head: ``hidden -> 3072 -> 1024 -> k`` (sizes configurable)."""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

_ACTIVATIONS = {"tanh": nn.Tanh, "gelu": nn.GELU, "relu": nn.ReLU}


class FeedForward(nn.Module):
    """Linear - activation - dropout blocks, then a final linear layer producing logits.

    Args:
        in_dim: width of the sentence vector (the encoder's hidden size).
        hidden_sizes: widths of the hidden layers (paper: ``(3072, 1024)``).
        out_dim: number of outputs ``k`` (logits; no sigmoid here, see the loss).
        activation: ``tanh`` (paper), ``gelu`` or ``relu``.
        dropout: dropout after each hidden activation.
    """

    def __init__(
        self,
        in_dim: int,
        hidden_sizes: Sequence[int],
        out_dim: int,
        activation: str = "tanh",
        dropout: float = 0.1,
    ):
        super().__init__()
        if activation not in _ACTIVATIONS:
            raise ValueError(f"activation={activation!r}; choose one of {', '.join(_ACTIVATIONS)}")
        layers: list[nn.Module] = []
        width = in_dim
        for size in hidden_sizes:
            layers += [nn.Linear(width, size), _ACTIVATIONS[activation](), nn.Dropout(dropout)]
            width = size
        layers.append(nn.Linear(width, out_dim))
        self.net = nn.Sequential(*layers)

    def forward(self, features: torch.Tensor) -> torch.Tensor:
        """``(batch, in_dim)`` -> logits ``(batch, out_dim)``."""
        return self.net(features)
