"""Best-of-n selection: the practical use of a code metric.

For each problem, pick the candidate a metric ranks first and check whether it passes. Ties are
broken uniformly at random *in expectation* (the mean label over the tied top candidates), so a
metric that gives everything the same score scores exactly the random baseline, not whatever the
sort order happened to favour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from unice.metrics.example_level import group_indices


def best_of_n(
    scores: Sequence[float] | np.ndarray,
    labels: Sequence[float] | np.ndarray,
    groups: Sequence[object],
) -> dict[str, float]:
    """Mean label of each problem's top-ranked candidate, next to random choice and the oracle.

    Args:
        scores: metric scores, shape ``(n,)``; ``nan`` marks an unscored sample (never chosen).
        labels: the quantity to maximise, shape ``(n,)`` (``passed`` as 0/1 gives the pass rate
            of the chosen sample; ``pass_ratio`` its expected PassRatio).
        groups: problem of each sample.

    Returns:
        ``{"selected", "random", "oracle", "n_problems"}``, each a mean over problems with at
        least one scored candidate.
    """
    pred = np.asarray(scores, dtype=np.float64).reshape(-1)
    gold = np.asarray(labels, dtype=np.float64).reshape(-1)
    if not (pred.size == gold.size == len(groups)):
        raise ValueError("scores, labels and groups differ in length")
    selected, random, oracle = [], [], []
    for indices in group_indices(groups):
        indices = indices[np.isfinite(pred[indices])]
        if indices.size == 0:
            continue
        top = pred[indices].max()
        selected.append(gold[indices][pred[indices] == top].mean())
        random.append(gold[indices].mean())
        oracle.append(gold[indices].max())
    if not selected:
        return {"selected": math.nan, "random": math.nan, "oracle": math.nan, "n_problems": 0}
    return {
        "selected": float(np.mean(selected)),
        "random": float(np.mean(random)),
        "oracle": float(np.mean(oracle)),
        "n_problems": len(selected),
    }
