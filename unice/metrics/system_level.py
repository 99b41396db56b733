"""System-level agreement: does a metric rank *generators* (systems) as execution does?

WMT reports it for every MT metric, and it is the figure a user comparing models reads first:
each system's mean metric score against its pass rate (the mean of its ``passed`` labels), then
Kendall's tau-b and Pearson's r across systems.

The interval resamples **systems** (percentile bootstrap, the same resamples for every metric):
the correlation is a statement about the population of generators, and its sampling unit is the
generator. A generator's mean score and pass rate stay as measured on its own programs; what
varies is which generators the correlation sees. With a few dozen generators the interval is
wide, and that width is the honest answer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from unice.metrics.bootstrap import _interval, fast_correlations
from unice.metrics.example_level import group_indices

SYSTEM_CORRELATIONS = ("kendall", "pearson")
"""What is reported across systems (Spearman adds little to Kendall on a few dozen points)."""
_COLUMNS = {"kendall": 0, "pearson": 2}  # positions in fast_correlations' output


def _correlations(pred: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    keep = np.isfinite(pred)
    values = fast_correlations(pred[keep], gold[keep])
    return {name: float(values[i]) for name, i in _COLUMNS.items()}


def system_level_correlations(
    columns: Mapping[str, Sequence[float] | np.ndarray],
    passed: Sequence[bool] | np.ndarray,
    systems: Sequence[str],
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """Every metric's system-level Kendall tau and Pearson r against the systems' pass rates.

    Args:
        columns: metric name -> scores of shape ``(n,)`` (``nan`` = not scored: a system's mean
            is over the rows the metric scored; a system with none is left out for that metric).
        passed: shape ``(n,)``, whether each program passes every test.
        systems: the system (generator) of each row, length ``n``.
        n_resamples: bootstrap resamples of the systems (0 = no intervals).
        confidence: interval mass.
        seed: resampling seed.

    Returns:
        ``{"systems": [{"name", "n_samples", "pass_rate"}], "n_systems", "unit": "systems",
        "n_resamples", "confidence", "seed", "metrics": {name: {"kendall", "pearson",
        "kendall_ci", "pearson_ci", "n_systems", "means"}}}``; ``means`` is aligned with
        ``systems`` (``nan`` where undefined). Correlations are ``nan`` when undefined (fewer
        than two systems, or one side constant).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    gold = np.asarray(passed, dtype=np.float64).reshape(-1)
    if len(systems) != gold.size:
        raise ValueError(f"systems and labels differ in length: {len(systems)} vs {gold.size}")
    groups = group_indices(systems)
    names = [systems[int(g[0])] for g in groups]
    pass_rate = np.asarray([gold[g].mean() for g in groups])
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(groups), size=(n_resamples, len(groups)))
    metrics: dict[str, Any] = {}
    for name, column in columns.items():
        scores = np.asarray(column, dtype=np.float64).reshape(-1)
        if scores.size != gold.size:
            raise ValueError(f"{name}: {scores.size} scores for {gold.size} rows")
        means = np.full(len(groups), math.nan)
        for s, indices in enumerate(groups):
            scored = scores[indices][np.isfinite(scores[indices])]
            if scored.size:
                means[s] = scored.mean()
        point = _correlations(means, pass_rate)
        boot = np.asarray([list(_correlations(means[d], pass_rate[d]).values()) for d in draws])
        result: dict[str, Any] = dict(point)
        for i, corr in enumerate(SYSTEM_CORRELATIONS):
            result[f"{corr}_ci"] = (
                _interval(boot[:, i], confidence)
                if n_resamples and len(groups) >= 2
                else (math.nan, math.nan)
            )
        result["n_systems"] = int(np.isfinite(means).sum())
        result["means"] = means.tolist()
        metrics[name] = result
    return {
        "systems": [
            {"name": n, "n_samples": int(g.size), "pass_rate": float(p)}
            for n, g, p in zip(names, groups, pass_rate, strict=True)
        ],
        "n_systems": len(groups),
        "unit": "systems",
        "n_resamples": n_resamples,
        "confidence": confidence,
        "seed": seed,
        "metrics": metrics,
    }
