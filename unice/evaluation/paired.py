"""Is CodeScore better than a baseline? Paired figures on one common set of problems.

Two things make "CodeScore .36 vs ROUGE-L .41" comparable, and this module does both:

* **one problem set**: a metric's example-level tau is a mean over the problems where its
  per-problem tau is defined; two metrics can skip different problems (a metric that scores a
  problem's samples all alike has none). Here every compared metric is averaged over the same
  problems, those where all of them are defined, and corpus tau over the rows all of them
  scored.
* **a paired interval**: the difference CodeScore minus baseline is bootstrapped by
  resampling *problems* (candidates of one problem are not independent), with the same
  resample for both metrics, so what the two share cancels out. An interval that crosses 0
  means the data cannot tell the two apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import stats

from unice.metrics.example_level import group_indices


def _kendall(pred: np.ndarray, gold: np.ndarray) -> float:
    if pred.size < 2 or np.ptp(pred) == 0 or np.ptp(gold) == 0:
        return float("nan")
    return float(stats.kendalltau(pred, gold).statistic)


@dataclass(frozen=True)
class PairedDraws:
    """Kendall tau of every metric on the common set, and on each bootstrap resample.

    Attributes:
        names: metric names, in column order.
        example: shape ``(n_metrics,)``: mean per-problem tau over the common problems.
        corpus: shape ``(n_metrics,)``: tau over the common rows.
        example_draws, corpus_draws: shape ``(n_resamples, n_metrics)``.
        n_problems, n_common_problems, n_rows: sizes of the full and common sets.
        confidence: interval mass.
    """

    names: tuple[str, ...]
    example: np.ndarray
    corpus: np.ndarray
    example_draws: np.ndarray
    corpus_draws: np.ndarray
    n_problems: int
    n_common_problems: int
    n_rows: int
    confidence: float

    def difference(self, a: str, b: str) -> dict[str, dict[str, Any]]:
        """``a`` minus ``b`` at both levels: estimate, percentile interval, verdict."""
        i, j = self.names.index(a), self.names.index(b)
        out: dict[str, dict[str, Any]] = {}
        for level, point, draws, problems in (
            ("example_kendall", self.example, self.example_draws, self.n_common_problems),
            ("corpus_kendall", self.corpus, self.corpus_draws, self.n_problems),
        ):
            delta = draws[:, i] - draws[:, j]
            # resampling one problem always redraws it: no interval from fewer than two
            delta = delta[np.isfinite(delta)] if problems >= 2 else delta[:0]
            tail = 100.0 * (1.0 - self.confidence) / 2.0
            low, high = (
                (float(v) for v in np.percentile(delta, [tail, 100.0 - tail]))
                if delta.size
                else (float("nan"), float("nan"))
            )
            out[level] = {
                "difference": float(point[i] - point[j]),
                "low": low,
                "high": high,
                "verdict": interval_verdict(low, high),
            }
        return out


def interval_verdict(low: float, high: float) -> str:
    """``above`` (whole interval > 0), ``below`` (< 0), ``undecided`` (crosses 0) or ``n/a``."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return "n/a"
    if low > 0:
        return "above"
    if high < 0:
        return "below"
    return "undecided"


def paired_kendall(
    columns: Mapping[str, np.ndarray],
    labels: Sequence[float] | np.ndarray,
    groups: Sequence[object],
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> PairedDraws:
    """Example- and corpus-level Kendall tau of every column on the common set, bootstrapped.

    Args:
        columns: metric name -> scores of shape ``(n,)`` (``nan``: not scored).
        labels: ground truth, shape ``(n,)``.
        groups: problem of each sample, length ``n``.
        n_resamples: bootstrap resamples of the common problems (0: point estimates only).
        confidence: interval mass (0.95: 2.5th to 97.5th percentile).
        seed: resampling seed; every metric sees the same resamples.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    names = tuple(columns)
    gold = np.asarray(labels, dtype=np.float64).reshape(-1)
    preds = np.stack([np.asarray(columns[n], dtype=np.float64).reshape(-1) for n in names])
    scored = np.isfinite(preds).all(axis=0)
    problems = [idx[scored[idx]] for idx in group_indices(groups)]
    problems = [idx for idx in problems if idx.size]
    per_problem = np.array(
        [[_kendall(preds[m, idx], gold[idx]) for m in range(len(names))] for idx in problems]
    ).reshape(len(problems), len(names))
    common = np.isfinite(per_problem).all(axis=1)
    kept = [idx for idx, ok in zip(problems, common, strict=True) if ok]
    table = per_problem[common]
    rows = np.concatenate(problems) if problems else np.zeros(0, dtype=np.int64)

    def corpus(index: np.ndarray) -> np.ndarray:
        return np.array([_kendall(preds[m, index], gold[index]) for m in range(len(names))])

    example = table.mean(axis=0) if len(table) else np.full(len(names), np.nan)
    rng = np.random.default_rng(seed)
    example_draws = np.full((n_resamples, len(names)), np.nan)
    corpus_draws = np.full((n_resamples, len(names)), np.nan)
    if len(problems):
        for b in range(n_resamples):
            draw = rng.integers(0, len(problems), size=len(problems))
            corpus_draws[b] = corpus(np.concatenate([problems[p] for p in draw]))
            ok = common[draw]
            if ok.any():
                example_draws[b] = per_problem[draw][ok].mean(axis=0)
    return PairedDraws(
        names=names,
        example=example,
        corpus=corpus(rows),
        example_draws=example_draws,
        corpus_draws=corpus_draws,
        n_problems=len(problems),
        n_common_problems=len(kept),
        n_rows=int(rows.size),
        confidence=confidence,
    )


def paired_report(draws: PairedDraws, ours: Sequence[str], others: Sequence[str]) -> dict[str, Any]:
    """JSON-ready: the common-set figures of every metric and each of ``ours`` minus each of
    ``others``."""
    return {
        "n_problems": draws.n_problems,
        "n_common_problems": draws.n_common_problems,
        "n_rows": draws.n_rows,
        "n_resamples": len(draws.example_draws),
        "confidence": draws.confidence,
        "common": {
            name: {
                "example_kendall": float(draws.example[i]),
                "corpus_kendall": float(draws.corpus[i]),
            }
            for i, name in enumerate(draws.names)
        },
        "differences": {a: {b: draws.difference(a, b) for b in others} for a in ours},
    }
