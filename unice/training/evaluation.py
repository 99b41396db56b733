"""Dev-set evaluation during training: CodeScore vs PassRatio, Exec accuracy, dev loss."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from unice.data.dataset import Sample
from unice.metrics import auroc, regression_metrics
from unice.metrics.example_level import within_problem_score
from unice.modeling.configuration import FORMATS
from unice.scoring import empty_row, has_usable_format, score


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
    formats = list(model.config.formats)
    usable = [i for i, s in enumerate(samples) if has_usable_format(formats, s.reference, s.nl)]
    scored = score(
        model,
        generated=[samples[i].generated for i in usable],
        references=[samples[i].reference for i in usable],
        nls=[samples[i].nl for i in usable],
        languages=[samples[i].language for i in usable],
        batch_size=batch_size,
        progress=progress,
        tokenizer=tokenizer,
    )
    rows = [empty_row() for _ in samples]  # a sample the model has no format for stays nan
    for index, row in zip(usable, scored, strict=True):
        rows[index] = row

    def column(key: str) -> np.ndarray:
        return np.array([np.nan if row[key] is None else row[key] for row in rows], dtype=float)

    out = {"codescore": column("codescore"), "exec_prob": column("exec_prob")}
    for fmt in FORMATS:
        out[f"codescore_{fmt}"] = column(f"codescore_{fmt}")
    return out


def dev_metrics(predictions: dict[str, np.ndarray], samples: Sequence[Sample]) -> dict[str, float]:
    """Dev figures of CodeScore vs PassRatio: what users need first, and the rest beside it.

    ``example_spearman``/``example_kendall`` (the default monitor): per-problem correlations
    averaged over the problems whose labels vary, a problem scored all alike counting as 0
    (:func:`~unice.metrics.example_level.within_problem_score`) -- whether the model orders
    the candidates of one problem, which is what selecting among generations needs. Corpus-level ``kendall``/``spearman``/``pearson``/``mae`` mostly reward knowing
    which problems are hard. ``exec_accuracy`` and ``exec_auroc`` judge the Exec head;
    ``spearman_<format>`` and ``example_spearman_<format>`` each input format alone (a
    model trained on several formats is monitored on its primary one with the latter).
    """
    labels = np.array([s.pass_ratio for s in samples])
    usable = ~np.isnan(predictions["codescore"])
    scores = predictions["codescore"][usable]
    metrics = regression_metrics(scores, labels[usable])
    tasks = [s.task_id for s, ok in zip(samples, usable, strict=True) if ok]
    metrics["example_spearman"] = within_problem_score(scores, labels[usable], tasks, "spearman")
    metrics["example_kendall"] = within_problem_score(scores, labels[usable], tasks, "kendall")
    executable = np.array([s.executable for s in samples])[usable]
    exec_prob = predictions["exec_prob"][usable]
    metrics["exec_accuracy"] = (
        float(np.mean((exec_prob >= 0.5) == executable)) if usable.any() else float("nan")
    )
    metrics["exec_auroc"] = auroc(exec_prob, executable)
    metrics["samples"] = int(usable.sum())
    for fmt in FORMATS:
        fmt_scores = predictions[f"codescore_{fmt}"]
        present = ~np.isnan(fmt_scores)
        if present.sum() >= 2:
            metrics[f"spearman_{fmt}"] = regression_metrics(fmt_scores[present], labels[present])[
                "spearman"
            ]
            fmt_tasks = [s.task_id for s, ok in zip(samples, present, strict=True) if ok]
            metrics[f"example_spearman_{fmt}"] = within_problem_score(
                fmt_scores[present], labels[present], fmt_tasks, "spearman"
            )
    return metrics
