"""Example-level correlations: the mean of per-problem correlations, as in the ICE-Score paper.

Why a module of its own: the per-problem correlation is undefined whenever a problem's labels or
scores are constant (every sample passes, every sample fails, a metric that gives one value) or
the problem has a single sample. The ICE-Score paper averages with ``nanmean``, i.e. it *skips*
those problems; counting them as 0 instead gives a different (lower) number. Both are reported,
with how many problems were affected and why, so our figures can sit next to either convention.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from unice.metrics.correlation import CORRELATIONS, corpus_correlations


@dataclass(frozen=True)
class ExampleLevel:
    """Per-problem correlations and their two averages.

    Attributes:
        per_problem: correlation name -> array of shape ``(n_problems,)``; ``nan`` where undefined.
        skipped: nanmean over problems (undefined problems skipped; ICE-Score's convention).
        as_zero: mean over problems with undefined correlations counted as 0.
        n_problems: problems with at least one scored sample.
        n_undefined: problems whose correlation is undefined (same for the three correlations).
        reasons: why they were undefined: ``single_sample``, ``constant_label``, ``constant_score``.
    """

    per_problem: dict[str, np.ndarray]
    skipped: dict[str, float]
    as_zero: dict[str, float]
    n_problems: int
    n_undefined: int
    reasons: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready summary (without the per-problem arrays)."""
        return {
            "skipped": self.skipped,
            "as_zero": self.as_zero,
            "n_problems": self.n_problems,
            "n_undefined": self.n_undefined,
            "undefined_reasons": self.reasons,
        }


def group_indices(groups: Sequence[object]) -> list[np.ndarray]:
    """Sample indices of each group, groups in order of first appearance."""
    order: dict[object, list[int]] = {}
    for index, group in enumerate(groups):
        order.setdefault(group, []).append(index)
    return [np.asarray(indices, dtype=np.int64) for indices in order.values()]


def _undefined_reason(pred: np.ndarray, gold: np.ndarray) -> str | None:
    if pred.size < 2:
        return "single_sample"
    if np.ptp(gold) == 0:
        return "constant_label"
    if np.ptp(pred) == 0:
        return "constant_score"
    return None


def _nanmean(values: np.ndarray) -> float:
    finite = values[np.isfinite(values)]
    return float(finite.mean()) if finite.size else math.nan


def example_level_correlations(
    predictions: Sequence[float] | np.ndarray,
    labels: Sequence[float] | np.ndarray,
    groups: Sequence[object],
) -> ExampleLevel:
    """Kendall, Spearman and Pearson per problem, averaged over problems two ways.

    Args:
        predictions: metric scores, shape ``(n,)``; ``nan`` marks an unscored sample (dropped).
        labels: ground truth, shape ``(n,)``.
        groups: the problem (task id) of each sample, length ``n``.

    Returns:
        An :class:`ExampleLevel`. With no defined problem, ``skipped`` is ``nan`` and ``as_zero``
        is 0 (every problem counted as 0).
    """
    pred = np.asarray(predictions, dtype=np.float64).reshape(-1)
    gold = np.asarray(labels, dtype=np.float64).reshape(-1)
    if not (pred.size == gold.size == len(groups)):
        raise ValueError(
            f"predictions, labels and groups differ in length: {pred.size}, {gold.size}, "
            f"{len(groups)}"
        )
    keep = np.isfinite(pred)
    values: dict[str, list[float]] = {name: [] for name in CORRELATIONS}
    reasons: dict[str, int] = {}
    for indices in group_indices(groups):
        indices = indices[keep[indices]]
        if indices.size == 0:
            continue
        reason = _undefined_reason(pred[indices], gold[indices])
        if reason is not None:
            reasons[reason] = reasons.get(reason, 0) + 1
        result = corpus_correlations(pred[indices], gold[indices])
        for name in CORRELATIONS:
            values[name].append(result[name])
    per_problem = {name: np.asarray(vals, dtype=np.float64) for name, vals in values.items()}
    n_problems = len(per_problem[CORRELATIONS[0]])
    return ExampleLevel(
        per_problem=per_problem,
        skipped={name: _nanmean(arr) for name, arr in per_problem.items()},
        as_zero={
            name: float(np.nan_to_num(arr, nan=0.0).mean()) if arr.size else math.nan
            for name, arr in per_problem.items()
        },
        n_problems=n_problems,
        n_undefined=sum(reasons.values()),
        reasons=reasons,
    )


def within_problem_score(
    predictions: Sequence[float] | np.ndarray,
    labels: Sequence[float] | np.ndarray,
    groups: Sequence[object],
    correlation: str = "spearman",
) -> float:
    """The model-selection view of example-level correlation.

    Mean per-problem correlation over the problems whose labels vary (only those have an order
    to get right), where a problem the model scores all alike counts as 0. Unlike
    :func:`example_level_correlations`'s ``skipped`` average, a model cannot raise it by
    giving most problems one constant score and ordering the few that are left.
    """
    pred = np.asarray(predictions, dtype=np.float64).reshape(-1)
    gold = np.asarray(labels, dtype=np.float64).reshape(-1)
    values = []
    for indices in group_indices(groups):
        indices = indices[np.isfinite(pred[indices])]
        if indices.size < 2 or np.ptp(gold[indices]) == 0:
            continue
        value = corpus_correlations(pred[indices], gold[indices])[correlation]
        values.append(0.0 if math.isnan(value) else value)
    return float(np.mean(values)) if values else math.nan
