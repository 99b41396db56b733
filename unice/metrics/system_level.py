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

from unice.metrics.bootstrap import _interval
from unice.metrics.example_level import group_indices

CHUNK = 200
"""Resamples per vectorised batch (memory ~ CHUNK x systems^2 floats)."""
SYSTEM_CORRELATIONS = ("kendall", "pearson")
"""What is reported across systems (Spearman adds little to Kendall on a few dozen points)."""


def batch_kendall_pearson(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Kendall tau-b and Pearson r of each row pair of ``x`` and ``y``, shape ``(b, n)`` each.

    ``nan`` in ``x`` drops that point from its row. Vectorised over rows, because the
    bootstrap needs it on a thousand resamples of a few dozen systems for every metric:
    tau-b is the sum of concordance signs over pairs divided by the square root of the
    untied pair counts of each side (its definition with ties; equal to scipy's
    ``kendalltau``), Pearson the usual moment formula. A row with fewer than two points or
    one side constant gets ``nan``, never 0.
    """
    x = np.atleast_2d(np.asarray(x, dtype=np.float64))
    y = np.atleast_2d(np.asarray(y, dtype=np.float64))
    valid = np.isfinite(x) & np.isfinite(y)
    pairs = valid[:, :, None] & valid[:, None, :]
    sx = np.where(pairs, np.sign(x[:, :, None] - x[:, None, :]), 0.0)
    sy = np.where(pairs, np.sign(y[:, :, None] - y[:, None, :]), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        denominator = np.sqrt((sx * sx).sum(axis=(1, 2)) * (sy * sy).sum(axis=(1, 2)))
        kendall = np.where(denominator > 0, (sx * sy).sum(axis=(1, 2)) / denominator, np.nan)
        count = valid.sum(axis=1)
        xv, yv = np.where(valid, x, 0.0), np.where(valid, y, 0.0)
        mx = xv.sum(axis=1) / count
        my = yv.sum(axis=1) / count
        dx = np.where(valid, x - mx[:, None], 0.0)
        dy = np.where(valid, y - my[:, None], 0.0)
        vx, vy = (dx * dx).sum(axis=1), (dy * dy).sum(axis=1)
        varies = (_spread(x, valid) > 0) & (_spread(y, valid) > 0) & (count >= 2)
        pearson = np.where(varies, (dx * dy).sum(axis=1) / np.sqrt(vx * vy), np.nan)
    return kendall, np.clip(pearson, -1.0, 1.0)


def _spread(values: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """max - min of each row's valid values (0 for rows with none)."""
    high = np.where(valid, values, -np.inf).max(axis=1)
    low = np.where(valid, values, np.inf).min(axis=1)
    return np.where(valid.any(axis=1), high - low, 0.0)


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
        kendall, pearson = batch_kendall_pearson(means, pass_rate)
        result: dict[str, Any] = {"kendall": float(kendall[0]), "pearson": float(pearson[0])}
        boot: dict[str, list[np.ndarray]] = {corr: [] for corr in SYSTEM_CORRELATIONS}
        for start in range(0, n_resamples, CHUNK):
            chunk = draws[start : start + CHUNK]
            k, p = batch_kendall_pearson(means[chunk], pass_rate[chunk])
            boot["kendall"].append(k)
            boot["pearson"].append(p)
        for corr in SYSTEM_CORRELATIONS:
            result[f"{corr}_ci"] = (
                _interval(np.concatenate(boot[corr]), confidence)
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
