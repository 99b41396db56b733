"""Bootstrap confidence intervals for correlations, resampling *problems*.

Why problems and not samples: candidates of one problem are strongly correlated (same tests,
same reference), so resampling individual samples would pretend we have ~20x more independent
evidence than we do and give intervals that are far too narrow. The same resamples are used for
every metric (a paired bootstrap), so intervals of two metrics are directly comparable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from scipy import stats
from tqdm.auto import tqdm

from unice.metrics.correlation import CORRELATIONS
from unice.metrics.example_level import group_indices

Interval = tuple[float, float]


def _per_problem(pred: np.ndarray, gold: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    """Correlations of each problem, shape ``(n_problems, 3)``; ``nan`` where undefined."""
    out = np.full((len(groups), len(CORRELATIONS)), np.nan)
    for row, indices in enumerate(groups):
        indices = indices[np.isfinite(pred[indices])]
        out[row] = fast_correlations(pred[indices], gold[indices])
    return out


def fast_correlations(pred: np.ndarray, gold: np.ndarray) -> list[float]:
    """Kendall, Spearman, Pearson like :func:`corpus_correlations`, with less overhead.

    The bootstrap calls this ``n_resamples x n_metrics`` times: Spearman is computed as the
    Pearson correlation of average ranks (its definition with ties) and Pearson with numpy,
    which is ~3x faster than the scipy wrappers; Kendall's tau-b stays with scipy.
    """
    if pred.size < 2 or np.ptp(pred) == 0 or np.ptp(gold) == 0:
        return [np.nan] * len(CORRELATIONS)
    kendall = float(stats.kendalltau(pred, gold).statistic)
    spearman = float(np.corrcoef(stats.rankdata(pred), stats.rankdata(gold))[0, 1])
    pearson = float(np.corrcoef(pred, gold)[0, 1])
    return [kendall, spearman, pearson]


def _interval(values: np.ndarray, confidence: float) -> Interval:
    values = values[np.isfinite(values)]
    if values.size == 0:
        return (float("nan"), float("nan"))
    tail = 100.0 * (1.0 - confidence) / 2.0
    low, high = np.percentile(values, [tail, 100.0 - tail])
    return (float(low), float(high))


def bootstrap_correlations(
    columns: Mapping[str, np.ndarray],
    labels: Sequence[float] | np.ndarray,
    groups: Sequence[object],
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    progress: bool = False,
) -> dict[str, dict[str, dict[str, Interval]]]:
    """Percentile intervals of corpus- and example-level (nanmean) correlations.

    Args:
        columns: metric name -> scores of shape ``(n,)`` (``nan`` = unscored, dropped).
        labels: ground truth, shape ``(n,)``.
        groups: problem of each sample, length ``n``.
        n_resamples: bootstrap resamples of the problem set.
        confidence: interval mass (0.95 gives the 2.5th and 97.5th percentiles).
        seed: seed of the resampling, so reports are reproducible.
        progress: show a progress bar (the corpus-level part costs ~ms per metric and resample).

    Returns:
        ``{metric: {"corpus": {corr: (low, high)}, "example": {corr: (low, high)}}}``.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    gold = np.asarray(labels, dtype=np.float64).reshape(-1)
    problems = group_indices(groups)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(problems), size=(n_resamples, len(problems)))
    preds = {name: np.asarray(col, dtype=np.float64).reshape(-1) for name, col in columns.items()}
    per_problem = {name: _per_problem(pred, gold, problems) for name, pred in preds.items()}
    corpus = {name: np.full((n_resamples, len(CORRELATIONS)), np.nan) for name in preds}
    example = {name: np.full((n_resamples, len(CORRELATIONS)), np.nan) for name in preds}
    for b in tqdm(range(n_resamples), desc="bootstrap", disable=not progress, leave=False):
        index = np.concatenate([problems[p] for p in draws[b]])
        for name, pred in preds.items():
            sample_pred, sample_gold = pred[index], gold[index]
            keep = np.isfinite(sample_pred)
            corpus[name][b] = fast_correlations(sample_pred[keep], sample_gold[keep])
            rows = per_problem[name][draws[b]]
            defined = np.isfinite(rows)
            counts = defined.sum(axis=0)
            sums = np.where(defined, rows, 0.0).sum(axis=0)
            example[name][b] = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    return {
        name: {
            level: {c: _interval(values[:, i], confidence) for i, c in enumerate(CORRELATIONS)}
            for level, values in (("corpus", corpus[name]), ("example", example[name]))
        }
        for name in preds
    }
