"""Corpus-level correlation and error metrics between predicted scores and PassRatio labels.

Why scipy and not our own formulas: Kendall's tau-b with ties, Spearman with average ranks
and Pearson are easy to get subtly wrong; the papers we compare with used scipy.
A correlation is undefined when either side is constant; we return ``nan`` there (never 0)
and let callers decide how to count it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import stats

CORRELATIONS = ("kendall", "spearman", "pearson")
"""Names of the three correlations, in the order the papers report them."""


def _as_array(values: Sequence[float] | np.ndarray) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).reshape(-1)


def corpus_correlations(
    predictions: Sequence[float] | np.ndarray, labels: Sequence[float] | np.ndarray
) -> dict[str, float]:
    """Kendall tau-b, Spearman rho and Pearson r over all samples.

    Args:
        predictions: metric scores, shape ``(n,)``.
        labels: ground truth (e.g. PassRatio), shape ``(n,)``.

    Returns:
        ``{"kendall", "spearman", "pearson"}``; each is ``nan`` when undefined (fewer than two
        samples, or either side constant).
    """
    pred, gold = _as_array(predictions), _as_array(labels)
    if pred.shape != gold.shape:
        raise ValueError(f"predictions and labels differ in length: {pred.size} vs {gold.size}")
    if pred.size < 2 or np.ptp(pred) == 0 or np.ptp(gold) == 0:
        return {"kendall": math.nan, "spearman": math.nan, "pearson": math.nan}
    return {
        "kendall": float(stats.kendalltau(pred, gold).statistic),
        "spearman": float(stats.spearmanr(pred, gold).statistic),
        "pearson": float(stats.pearsonr(pred, gold).statistic),
    }


def regression_metrics(
    predictions: Sequence[float] | np.ndarray, labels: Sequence[float] | np.ndarray
) -> dict[str, float]:
    """Corpus correlations plus mean absolute error: the dev metrics used during training."""
    pred, gold = _as_array(predictions), _as_array(labels)
    metrics = corpus_correlations(pred, gold)
    metrics["mae"] = float(np.mean(np.abs(pred - gold))) if pred.size else math.nan
    return metrics
