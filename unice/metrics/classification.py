"""Binary agreement with execution: Exec (executability) and Passability.

Why: CodeScore predicts an Exec probability next to its PassRatio estimate; the CodeScore paper
reports precision, recall, F1 and accuracy at a 0.5 threshold, which say little when one class
dominates, so AUROC (threshold-free) is reported too. AUROC against ``passed`` also gives every
metric, including baselines on arbitrary scales, a comparable "does it rank passing code first"
number.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    f1_score,
    precision_score,
    recall_score,
    roc_auc_score,
)


def _arrays(
    scores: Sequence[float] | np.ndarray, labels: Sequence[bool] | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    pred = np.asarray(scores, dtype=np.float64).reshape(-1)
    gold = np.asarray(labels, dtype=bool).reshape(-1)
    if pred.shape != gold.shape:
        raise ValueError(f"scores and labels differ in length: {pred.size} vs {gold.size}")
    keep = np.isfinite(pred)
    return pred[keep], gold[keep]


def auroc(scores: Sequence[float] | np.ndarray, labels: Sequence[bool] | np.ndarray) -> float:
    """Area under the ROC curve; ``nan`` when only one class is present (undefined)."""
    pred, gold = _arrays(scores, labels)
    if gold.size == 0 or gold.all() or not gold.any():
        return math.nan
    return float(roc_auc_score(gold, pred))


def binary_metrics(
    probabilities: Sequence[float] | np.ndarray,
    labels: Sequence[bool] | np.ndarray,
    threshold: float = 0.5,
) -> dict[str, float]:
    """Precision, recall, F1, accuracy at ``threshold``, plus AUROC and class balance.

    Args:
        probabilities: predicted probability of the positive class, shape ``(n,)``; ``nan`` rows
            are dropped.
        labels: true classes, shape ``(n,)``.
        threshold: a sample is predicted positive when its probability is ``>= threshold``.

    Returns:
        ``{"precision", "recall", "f1", "accuracy", "auroc", "positive_rate", "n"}``. Precision
        (recall) is ``nan`` when nothing is predicted (truly) positive, never a silent 0.
    """
    pred, gold = _arrays(probabilities, labels)
    if gold.size == 0:
        nan = math.nan
        return dict.fromkeys(
            ("precision", "recall", "f1", "accuracy", "auroc", "positive_rate"), nan
        ) | {"n": 0}
    hard = pred >= threshold
    return {
        "precision": float(precision_score(gold, hard, zero_division=np.nan)),
        "recall": float(recall_score(gold, hard, zero_division=np.nan)),
        "f1": float(f1_score(gold, hard, zero_division=np.nan)),
        "accuracy": float(accuracy_score(gold, hard)),
        "auroc": auroc(pred, gold),
        "positive_rate": float(gold.mean()),
        "n": int(gold.size),
    }


def passability_agreement(
    scores: Sequence[float] | np.ndarray,
    passed: Sequence[bool] | np.ndarray,
    threshold: float = 0.5,
) -> dict[str, float]:
    """How often ``score >= threshold`` agrees with "passes every test", and Cohen's kappa.

    Kappa corrects the raw agreement for chance: on HE-Eval only ~16% of samples pass, so a
    metric that says "fails" everywhere already agrees 84% of the time.
    """
    pred, gold = _arrays(scores, passed)
    if gold.size == 0:
        return {"agreement": math.nan, "kappa": math.nan, "n": 0}
    hard = pred >= threshold
    single_class = (hard.all() or not hard.any()) and (gold.all() or not gold.any())
    kappa = math.nan if single_class else float(cohen_kappa_score(gold, hard))
    return {"agreement": float((hard == gold).mean()), "kappa": kappa, "n": int(gold.size)}
