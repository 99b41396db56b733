"""Dev-set evaluation during training: CodeScore vs PassRatio, Exec accuracy, dev loss."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from unice.data.dataset import Sample
from unice.metrics import regression_metrics
from unice.modeling.configuration import FORMATS
from unice.scoring import score


def predict(
    model,
    samples: Sequence[Sample],
    tokenizer,
    batch_size: int,
    progress: bool = False,
) -> dict[str, np.ndarray]:
    """Probabilities per sample: ``codescore``/``exec_prob`` (mean over formats) and per format.

    The public :func:`unice.scoring.score` computes them, so dev metrics during training
    measure exactly what users of the exported checkpoint get.

    Returns:
        ``{"codescore": (n,), "exec_prob": (n,), "codescore_<fmt>": (n,) with nan where absent}``.
    """
    rows = score(
        model,
        generated=[s.generated for s in samples],
        references=[s.reference for s in samples],
        nls=[s.nl for s in samples],
        batch_size=batch_size,
        progress=progress,
        tokenizer=tokenizer,
    )

    def column(key: str) -> np.ndarray:
        return np.array([np.nan if row[key] is None else row[key] for row in rows], dtype=float)

    out = {"codescore": column("codescore"), "exec_prob": column("exec_prob")}
    for fmt in FORMATS:
        out[f"codescore_{fmt}"] = column(f"codescore_{fmt}")
    return out


def dev_metrics(predictions: dict[str, np.ndarray], samples: Sequence[Sample]) -> dict[str, float]:
    """Kendall/Spearman/Pearson/MAE of CodeScore vs PassRatio, per format too, and Exec accuracy."""
    labels = np.array([s.pass_ratio for s in samples])
    usable = ~np.isnan(predictions["codescore"])
    metrics = regression_metrics(predictions["codescore"][usable], labels[usable])
    executable = np.array([s.executable for s in samples])
    exec_pred = predictions["exec_prob"][usable] >= 0.5
    metrics["exec_accuracy"] = (
        float(np.mean(exec_pred == executable[usable])) if usable.any() else float("nan")
    )
    metrics["samples"] = int(usable.sum())
    for fmt in FORMATS:
        scores = predictions[f"codescore_{fmt}"]
        present = ~np.isnan(scores)
        if present.sum() >= 2:
            metrics[f"spearman_{fmt}"] = regression_metrics(scores[present], labels[present])[
                "spearman"
            ]
    return metrics
