"""System-level agreement: does a metric rank *generators* (systems) as execution does?

WMT reports it for every MT metric, and it is the figure a user comparing models reads first:
each system's mean metric score against its pass rate (the mean of its ``passed`` labels), then
Kendall's tau-b and Pearson's r across systems.

Systems need not cover the same problems (agentic debuggers write programs only for the
problems their seed failed). A metric whose level differs from problem to problem (a long
reference, a short one) then ranks systems partly by which problems they covered.
``center_groups`` (each row's problem) centres every column's scores within their problem
before the systems' means: the same for every column, the target (raw pass rate) unchanged
(issue 43 item 4; docs/experiments/system_level.md).

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


def center_within(values: Sequence[float] | np.ndarray, groups: Sequence[object]) -> np.ndarray:
    """Each value minus the mean of its group's finite values (``nan`` stays ``nan``).

    Why: a problem's own level (how long its reference is, how hard it is) is shared by every
    program of it; subtracting it leaves what tells programs of one problem apart, so means
    over different problem sets become comparable.
    """
    x = np.asarray(values, dtype=np.float64).reshape(-1)
    if len(groups) != x.size:
        raise ValueError(f"groups and values differ in length: {len(groups)} vs {x.size}")
    out = np.full_like(x, math.nan)
    for indices in group_indices(groups):
        part = x[indices]
        finite = np.isfinite(part)
        if finite.any():
            out[indices[finite]] = part[finite] - part[finite].mean()
    return out


def system_level_correlations(
    columns: Mapping[str, Sequence[float] | np.ndarray],
    passed: Sequence[bool] | np.ndarray,
    systems: Sequence[str],
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    center_groups: Sequence[object] | None = None,
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
        center_groups: the problem of each row, or None: given, every column's scores are
            centred within their problem (:func:`center_within`) before the systems' means;
            the pass rates are not.

    Returns:
        ``{"systems": [{"name", "n_samples", "pass_rate"}], "n_systems", "unit": "systems",
        "center", "n_resamples", "confidence", "seed", "metrics": {name: {"kendall", "pearson",
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
        if center_groups is not None:
            scores = center_within(scores, center_groups)
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
        "center": "problem" if center_groups is not None else None,
        "n_resamples": n_resamples,
        "confidence": confidence,
        "seed": seed,
        "metrics": metrics,
    }


def problem_bootstrap(
    columns: Mapping[str, Sequence[float] | np.ndarray],
    target: Sequence[float] | np.ndarray,
    systems: Sequence[str],
    problems: Sequence[object],
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, dict[str, tuple[float, float]]]:
    """System-level Kendall/Pearson intervals resampling **problems** (the same draws for
    every column).

    Why a second interval: :func:`system_level_correlations` resamples systems, which asks
    "other generators"; when systems cover different problems, the other source of chance is
    which problems were asked. Each resample draws problems with replacement and recomputes
    every system's mean score and mean target on its rows of the drawn problems (a problem
    drawn twice counts twice); a system with no row drawn drops out of that resample.

    Returns:
        ``{column: {"kendall_ci": (low, high), "pearson_ci": (low, high)}}``.
    """
    gold = np.asarray(target, dtype=np.float64).reshape(-1)
    if not len(systems) == len(problems) == gold.size:
        raise ValueError(
            f"systems, problems and target differ in length: {len(systems)}, "
            f"{len(problems)}, {gold.size}"
        )
    system_groups = group_indices(systems)
    problem_groups = group_indices(problems)
    row_system = np.empty(gold.size, dtype=np.int64)
    row_problem = np.empty(gold.size, dtype=np.int64)
    for s, indices in enumerate(system_groups):
        row_system[indices] = s
    for p, indices in enumerate(problem_groups):
        row_problem[indices] = p
    shape = (len(system_groups), len(problem_groups))
    draws = np.random.default_rng(seed).integers(
        0, len(problem_groups), size=(n_resamples, len(problem_groups))
    )
    weights = np.zeros((n_resamples, len(problem_groups)))
    for b in range(n_resamples):
        np.add.at(weights[b], draws[b], 1.0)

    def means(values: np.ndarray) -> np.ndarray:
        finite = np.isfinite(values)
        sums, counts = np.zeros(shape), np.zeros(shape)
        np.add.at(sums, (row_system[finite], row_problem[finite]), values[finite])
        np.add.at(counts, (row_system[finite], row_problem[finite]), 1.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (weights @ sums.T) / (weights @ counts.T)  # (resamples, systems)

    gold_means = means(gold)
    out: dict[str, dict[str, tuple[float, float]]] = {}
    for name, column in columns.items():
        scores = np.asarray(column, dtype=np.float64).reshape(-1)
        if scores.size != gold.size:
            raise ValueError(f"{name}: {scores.size} scores for {gold.size} rows")
        score_means = means(scores)
        kendall, pearson = [], []
        for start in range(0, n_resamples, CHUNK):
            k, p = batch_kendall_pearson(
                score_means[start : start + CHUNK], gold_means[start : start + CHUNK]
            )
            kendall.append(k)
            pearson.append(p)
        out[name] = {
            "kendall_ci": _interval(np.concatenate(kendall), confidence)
            if n_resamples
            else (math.nan, math.nan),
            "pearson_ci": _interval(np.concatenate(pearson), confidence)
            if n_resamples
            else (math.nan, math.nan),
        }
    return out
