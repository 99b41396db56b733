"""Reference-free columns scored after an evaluation: a seeded random score and external files.

A user reranking samples has no reference, so the figures that matter to them are those of the
reference-free columns (CodeScore NL-only, an LLM judge without reference, ...). Their floor is a
**random score**: its expected example-level Kendall tau is 0 and its expected best-of-n pass
rate is that of random choice; one seeded draw shows how far chance alone moves both.

:func:`score_after` re-reads the evaluated split (checked against the report's sha256) and runs
the same analysis as ``evaluate.py`` (:func:`unice.evaluation.analysis.analyse`) on these
columns, so their numbers sit beside the report's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from unice.evaluation.analysis import AnalysisSettings, analyse
from unice.evaluation.columns import MetricColumn
from unice.evaluation.data import load_split
from unice.evaluation.errors import EvaluationError
from unice.evaluation.external import load_external_scores

RANDOM = "Random score"


def random_column(n: int, seed: int = 0) -> MetricColumn:
    """Uniform [0, 1) scores, seeded: a metric that knows nothing (expected tau 0)."""
    scores = np.random.default_rng(seed).random(n)
    return MetricColumn(RANDOM, scores, "baseline", seconds=0.0, settings={"seed": seed})


def _data_path(path: str, root: Path | None) -> Path:
    candidate = Path(path)
    if candidate.is_file() or candidate.is_absolute() or root is None:
        return candidate
    return root / candidate


def score_after(
    report: Mapping[str, Any],
    scores: Sequence[str | Path] = (),
    seed: int = 0,
    root: Path | None = None,
) -> list[dict[str, Any]]:
    """The random column and every column of ``scores`` files on the report's split.

    Args:
        report: an ``evaluate.py`` report (``data.path``, ``data.sha256``, ``settings``).
        scores: JSONL files ``{"id", "<metric>": float|null}`` covering the split.
        seed: seed of the random score.
        root: folder a relative ``data.path`` is resolved against when it is not found as is.

    Returns:
        :func:`analyse`'s figures for each column (random first), with the report's label,
        threshold and bootstrap settings.

    Raises:
        EvaluationError: the split is gone or changed since the evaluation, or a scores file
            does not match it.
    """
    data_info = report["data"]
    data = load_split(_data_path(str(data_info["path"]), root))
    if data.sha256 != data_info.get("sha256"):
        raise EvaluationError(
            f"{data.path} changed since the evaluation (sha256 differs from the report's); "
            "re-run evaluate.py"
        )
    analysis = AnalysisSettings.from_mapping(report.get("settings") or {})
    taken = [RANDOM] + [m["name"] for m in report.get("metrics", [])]
    columns = [random_column(len(data), seed)]
    columns += load_external_scores([str(p) for p in scores], data.ids, taken)
    return analyse(columns, data, analysis, progress=False)
