"""Fit ``model.standardize_states``: the per-(layer, dimension) mean and std of a frozen
encoder's pooled states over the training texts, before the first step.

Why: a decoder LM's hidden states carry a few "massive activations" (Sun et al., 2024), input-
independent dimensions thousands of times larger than the rest (SmolLM2-135M: ~4,200 against a
mean magnitude of ~5 from layer 12 on). Read as they are, every text's vector points the same
way (two random MBPP programs have cosine ~.99), the head's comparisons of a candidate with its
reference carry nothing and its tanh saturates. Standardising each dimension by the training
texts' own statistics, as probes of frozen LMs do, keeps what varies between texts. The
statistics count each distinct training text once (by its token ids), come from the train
split only, and are buffers of the checkpoint, so scoring reads the states as training did.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from unice.data.dataset import Collator, Sample
from unice.modeling.frozen_encoder import input_keys
from unice.training.feature_cache import encoder_inputs

MIN_STD = 1e-6
"""A dimension that never varies over the training texts is divided by this, not by zero."""


@dataclass(frozen=True)
class StateStatistics:
    """What the fit saw: distinct training texts, and the largest mean magnitude and std of
    one dimension (how far from standard the raw states were)."""

    texts: int
    largest_mean: float
    largest_std: float

    def describe(self) -> str:
        """One line for the training log."""
        return (
            f"state statistics: {self.texts} distinct training texts; raw states had a dimension"
            f" with |mean| {self.largest_mean:.1f} and one with std {self.largest_std:.1f}"
        )


@torch.no_grad()
def fit_state_statistics(
    model: torch.nn.Module, collator: Collator, samples: Sequence[Sample], batch_size: int
) -> StateStatistics:
    """Write the mean and std of ``model``'s frozen per-layer pooled states over the distinct
    texts of ``samples`` (the training split) into its ``state_mean`` / ``state_std``."""
    if not samples:
        raise ValueError("standardize_states needs training samples to fit the statistics on")
    was_training = model.training
    model.eval()
    device = model.state_mean.device
    seen: set[str] = set()
    total = torch.zeros(model.state_mean.shape, dtype=torch.float64)
    squares = torch.zeros_like(total)
    size = max(int(batch_size), 1)
    for start in range(0, len(samples), size):
        ids, mask, types = encoder_inputs(collator(list(samples[start : start + size])), device)
        states = model.frozen_layers(ids, mask, types).double().cpu()
        for key, state in zip(input_keys(ids, mask, types), states, strict=True):
            if key not in seen:
                seen.add(key)
                total += state
                squares += state * state
    model.train(was_training)
    mean = total / len(seen)
    std = (squares / len(seen) - mean * mean).clamp_min(0).sqrt().clamp_min(MIN_STD)
    model.state_mean.copy_(mean.to(model.state_mean.dtype))
    model.state_std.copy_(std.to(model.state_std.dtype))
    return StateStatistics(len(seen), float(mean.abs().max()), float(std.max()))
