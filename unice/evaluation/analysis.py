"""Every agreement figure of every metric column against the split's execution labels."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from unice.evaluation.columns import MetricColumn
from unice.evaluation.data import EvalData
from unice.evaluation.errors import EvaluationError
from unice.evaluation.paired import paired_kendall, paired_report
from unice.metrics import (
    auroc,
    best_of_n,
    binary_metrics,
    bootstrap_correlations,
    corpus_correlations,
    example_level_correlations,
    passability_agreement,
    system_level_correlations,
)

LABELS = ("pass_ratio", "passed", "usefulness")
"""``usefulness``: a human 0-4 grade (CoNaLa, ICE-Score's Table 1); the execution figures
(MAE vs PassRatio, Exec, Passability, AUROC vs passed) are then left out."""


@dataclass(frozen=True)
class AnalysisSettings:
    """Knobs of the analysis (mirrors ``configs/evaluate.yaml``).

    Attributes:
        label: what correlations are computed against: ``pass_ratio`` (CodeScore paper),
            ``passed`` (binary functional correctness, as in ICE-Score's HumanEval tables) or
            ``usefulness`` (developers' 0-4 grade, ICE-Score's CoNaLa table).
        threshold: probability threshold for Exec and Passability decisions.
        n_resamples: bootstrap resamples (0 disables the intervals).
        confidence: interval mass.
        seed: bootstrap seed.
    """

    label: str = "pass_ratio"
    threshold: float = 0.5
    n_resamples: int = 1000
    confidence: float = 0.95
    seed: int = 0

    @classmethod
    def from_mapping(
        cls, values: Mapping[str, Any], bootstrap: Mapping[str, Any] | None = None
    ) -> AnalysisSettings:
        """From ``configs/evaluate.yaml``'s keys (``label``, ``threshold``, and the bootstrap's
        ``n_resamples``/``confidence``/``seed``, read from ``bootstrap`` when given, else from
        ``values`` itself as a report's flat ``settings`` holds them); missing keys keep the
        defaults."""
        boot = values if bootstrap is None else bootstrap
        return cls(
            label=values.get("label", cls.label),
            threshold=float(values.get("threshold", cls.threshold)),
            n_resamples=int(boot.get("n_resamples", cls.n_resamples)),
            confidence=float(boot.get("confidence", cls.confidence)),
            seed=int(boot.get("seed", cls.seed)),
        )

    def __post_init__(self) -> None:
        if self.label not in LABELS:
            raise EvaluationError(
                f"label={self.label!r} is unknown; choose from {', '.join(LABELS)}"
            )
        if self.n_resamples < 0:
            raise EvaluationError(f"bootstrap.n_resamples={self.n_resamples} must be >= 0")


def label_values(data: EvalData, label: str) -> np.ndarray:
    """The ground-truth vector the correlations use, shape ``(n,)``."""
    if label == "usefulness":
        return data.usefulness
    return data.pass_ratio if label == "pass_ratio" else data.passed.astype(np.float64)


def is_human_label(label: str) -> bool:
    """Whether ``label`` is a human grade (no execution figures apply)."""
    return label == "usefulness"


def analyse_column(
    column: MetricColumn, data: EvalData, settings: AnalysisSettings
) -> dict[str, Any]:
    """The figures of one column (``None`` stands for "undefined", never 0)."""
    gold = label_values(data, settings.label)
    keep = np.isfinite(column.scores)
    example = example_level_correlations(column.scores, gold, data.task_ids)
    result: dict[str, Any] = {
        "name": column.name,
        "kind": column.kind,
        "n_scored": column.n_scored,
        "seconds": column.seconds,
        "time_note": column.time_note,
        "settings": column.settings,
        "corpus": corpus_correlations(column.scores[keep], gold[keep]),
        "example": example.to_dict(),
        "exec": None,
        "passability": None,
    }
    if is_human_label(settings.label):  # a grade: no execution labels to compare with
        # the grade of the snippet the metric ranks first per problem (ties: expected value)
        best = {settings.label: best_of_n(column.scores, gold, data.task_ids)}
        return {**result, "mae": None, "auroc_passed": None, "best_of_n": best}
    result |= {
        "mae": (
            float(np.mean(np.abs(column.scores[keep] - data.pass_ratio[keep])))
            if is_calibrated(column)
            else None
        ),
        "auroc_passed": auroc(column.scores, data.passed),
        "best_of_n": {
            "passed": best_of_n(column.scores, data.passed.astype(float), data.task_ids),
            "pass_ratio": best_of_n(column.scores, data.pass_ratio, data.task_ids),
        },
    }
    if column.exec_probs is not None:
        result["exec"] = binary_metrics(column.exec_probs, data.executable, settings.threshold)
    if column.kind == "codescore":
        result["passability"] = passability_agreement(
            column.scores, data.passed, settings.threshold
        )
    return result


def is_calibrated(column: MetricColumn) -> bool:
    """Whether MAE against PassRatio means anything for ``column``: CodeScore is trained to
    output PassRatio; the baselines (BLEU, chrF, CodeBERTScore, ICE-Score's grade, external
    scores) are similarities or grades on scales of their own, calibrated to nothing here, so
    their distance from PassRatio measures the scale, not the metric."""
    return column.kind == "codescore" and column.unit_interval


def paired_comparison(
    columns: Sequence[MetricColumn],
    data: EvalData,
    settings: AnalysisSettings,
    exclude: Sequence[str] = (),
    also_ours: Sequence[str] = (),
) -> dict[str, Any] | None:
    """Every CodeScore column minus every other column (example- and corpus-level Kendall
    tau on one common problem set, paired bootstrap over problems); None without both.

    ``exclude`` (``paired_exclude`` in configs/evaluate.yaml) names columns left out: a metric
    that is constant within most problems (ExactMatch) would shrink the common set to nothing.
    Columns that scored no row are left out too. ``also_ours`` (``paired_ours``) names other
    columns compared like CodeScore's, e.g. a CodeScore scored elsewhere and passed in with
    ``scores=`` (``make usefulness``'s fold models).
    """
    columns = [c for c in columns if c.name not in set(exclude) and c.n_scored]
    ours = [c.name for c in columns if c.kind == "codescore" or c.name in set(also_ours)]
    others = [c.name for c in columns if c.name not in ours]
    if not ours or not others:
        return None
    draws = paired_kendall(
        {c.name: c.scores for c in columns},
        label_values(data, settings.label),
        data.task_ids,
        n_resamples=settings.n_resamples,
        confidence=settings.confidence,
        seed=settings.seed,
    )
    return paired_report(draws, ours, others)


def system_level(
    columns: Sequence[MetricColumn],
    data: EvalData,
    settings: AnalysisSettings,
    generators: Sequence[str],
    source: str = "",
) -> dict[str, Any]:
    """Each generator's mean score vs its pass rate (mean ``passed`` for the execution labels;
    the mean grade for a human label such as ``usefulness``),
    Kendall tau and Pearson r across generators, with a bootstrap over generators (the same
    resamples for every column; ``unice/metrics/system_level.py`` says why generators)."""
    human = is_human_label(settings.label)
    result = system_level_correlations(
        {c.name: c.scores for c in columns if c.n_scored},
        label_values(data, settings.label) if human else data.passed,
        list(generators),
        n_resamples=settings.n_resamples,
        confidence=settings.confidence,
        seed=settings.seed,
    )
    for column in columns:
        if column.name in result["metrics"]:
            result["metrics"][column.name]["kind"] = column.kind
    result["unit"] = "generators"
    result["generators_from"] = source
    # what each generator's mean score is correlated with (``pass_rate`` holds it either way)
    result["target"] = f"mean {settings.label}" if human else "pass rate"
    return result


def analyse(
    columns: Sequence[MetricColumn],
    data: EvalData,
    settings: AnalysisSettings,
    progress: bool = True,
) -> list[dict[str, Any]]:
    """Figures of every column plus paired bootstrap intervals (same problem resamples)."""
    results = [analyse_column(column, data, settings) for column in columns]
    if settings.n_resamples and columns:
        intervals = bootstrap_correlations(
            {c.name: c.scores for c in columns},
            label_values(data, settings.label),
            data.task_ids,
            n_resamples=settings.n_resamples,
            confidence=settings.confidence,
            seed=settings.seed,
            progress=progress,
        )
        for result in results:
            result["ci"] = intervals[result["name"]]
    return results


def label_summary(data: EvalData, label: str = "pass_ratio") -> dict[str, Any]:
    """What the labels look like: the context every correlation needs."""
    if is_human_label(label):
        values = label_values(data, label)
        return {
            "n_samples": len(data),
            "n_problems": data.n_problems,
            "label": label,
            f"avg_{label}": float(np.nanmean(values)),
            "grade_counts": {
                str(int(g)): int(n)
                for g, n in zip(*np.unique(values, return_counts=True), strict=True)
            },
            "with_reference": int(sum(bool(r.strip()) for r in data.references)),
            "with_nl": int(sum(bool(n.strip()) for n in data.nls)),
        }
    return {
        "n_samples": len(data),
        "n_problems": data.n_problems,
        "avg_pass_ratio": float(data.pass_ratio.mean()),
        "pass_rate": float(data.passed.mean()),
        "exec_rate": float(data.executable.mean()),
        "with_reference": int(sum(bool(r.strip()) for r in data.references)),
        "with_nl": int(sum(bool(n.strip()) for n in data.nls)),
    }
