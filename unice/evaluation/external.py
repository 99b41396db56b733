"""External metric scores (earlier runs, ICE-Score files...) joined to the split by sample id.

File format: JSONL lines ``{"id": <dataset row id>, "<metric name>": <float or null>, ...}``.
Every numeric field other than ``id`` becomes a column; ``null`` means "not scored" (e.g. an
unparsable judge answer) and is counted, never turned into 0.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from pathlib import Path

import numpy as np

from data_builders.errors import UserError
from data_builders.jsonl import iter_jsonl
from unice.evaluation.columns import MetricColumn
from unice.evaluation.errors import EvaluationError

NON_METRIC_FIELDS = frozenset({"id", "task_id", "sample_id", "split"})


def as_paths(scores: str | Sequence[str] | None) -> list[Path]:
    """``scores=a.jsonl`` and ``scores=[a.jsonl,b.jsonl]`` both work from the command line."""
    if scores in (None, ""):
        return []
    if isinstance(scores, (str, Path)):
        return [Path(scores)]
    return [Path(p) for p in scores]


def _value(path: Path, line: int, name: str, value: object) -> float:
    if value is None:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise EvaluationError(f"{path}:{line}: {name!r} is {value!r}, expected a number or null")
    return float(value)


def load_scores_file(path: Path, ids: Sequence[str]) -> list[MetricColumn]:
    """Columns of one scores file, aligned with ``ids``.

    Raises:
        EvaluationError: unreadable file, ids not in the split, ids of the split missing from the
            file, duplicate ids, or no metric field.
    """
    position = {sample_id: i for i, sample_id in enumerate(ids)}
    values: dict[str, np.ndarray] = {}
    seen: set[str] = set()
    unknown: list[str] = []
    try:
        for line, record in iter_jsonl(path, required=("id",), what="score line"):
            sample_id = str(record["id"])
            if sample_id not in position:
                unknown.append(sample_id)
                continue
            if sample_id in seen:
                raise EvaluationError(f"{path}:{line}: duplicate id {sample_id!r}")
            seen.add(sample_id)
            for name, value in record.items():
                if name in NON_METRIC_FIELDS or isinstance(value, (str, list, dict)):
                    continue
                column = values.setdefault(name, np.full(len(ids), math.nan))
                column[position[sample_id]] = _value(path, line, name, value)
    except UserError as exc:
        raise EvaluationError(str(exc)) from None
    if unknown:
        raise EvaluationError(
            f"{path}: {len(unknown)} id(s) are not in the evaluated split (e.g. {unknown[0]!r}); "
            "score the same data and split, or pass the matching data=/split="
        )
    missing = [i for i in ids if i not in seen]
    if missing:
        raise EvaluationError(
            f"{path}: {len(missing)} of {len(ids)} samples of the split have no line "
            f"(e.g. {missing[0]!r}); score every sample (write null for unscored ones)"
        )
    if not values:
        raise EvaluationError(
            f'{path}: no metric field; lines look like {{"id": ..., "MyMetric": 0.7}}'
        )
    return [
        MetricColumn(name=name, scores=column, kind="external", settings={"file": str(path)})
        for name, column in values.items()
    ]


def _free_name(name: str, stem: str, taken: set[str]) -> str:
    """``name``, or ``<stem>:name`` (then ``<stem>:name#2``...) when it is already taken."""
    if name not in taken:
        return name
    candidate, n = f"{stem}:{name}", 2
    while candidate in taken:
        candidate, n = f"{stem}:{name}#{n}", n + 1
    return candidate


def load_external_scores(
    scores: str | Sequence[str] | None, ids: Sequence[str], taken: Collection[str] = ()
) -> list[MetricColumn]:
    """All columns of all scores files, each under a name no other column of the run has.

    Args:
        scores: one path or a list of paths (JSONL, see the module docstring).
        ids: the split's sample ids, in order; columns are aligned with them.
        taken: names of the run's other columns (checkpoint formats, baselines, ICE-Score).
            Feeding back an earlier ``scores.jsonl`` repeats those names; a repeated name is
            prefixed with its file's stem (``scores:CodeScore (avg)``) so no column replaces
            another in the report or in the new ``scores.jsonl``.
    """
    used = set(taken)
    columns: list[MetricColumn] = []
    for path in as_paths(scores):
        for column in load_scores_file(path, ids):
            column.name = _free_name(column.name, path.stem, used)
            used.add(column.name)
            columns.append(column)
    return columns
