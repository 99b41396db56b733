"""Which generator (system) wrote each row: what the system-level figures group by.

A row built from a samples file has the id ``<task_id>::samples::<k>``, where ``k`` is the
sample's position among that task's lines of the file (``data_builders.candidates.samples``),
and ``source: samples:<file name>``. Rows do not carry the generator; the samples file does
(``{"task_id", "completion", "generator", ...}`` per line). So the generator of a row is that of
the ``k``-th line of its task in the file. A row carrying a ``generator`` field of its own (a
future build may write it) keeps it: the field wins over the file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.jsonl import iter_jsonl
from unice.evaluation.data import EvalData
from unice.evaluation.errors import EvaluationError

SAMPLE_ID = re.compile(r"^(?P<task>.+)::samples::(?P<index>\d+)$")
FIELD = "generator"


def _own(row: dict[str, Any]) -> str | None:
    value = row.get(FIELD)
    return value if isinstance(value, str) and value.strip() else None


def read_generators(path: Path) -> dict[str, list[str | None]]:
    """task_id -> the ``generator`` of each of its lines, in file order (None: line has none)."""
    out: dict[str, list[str | None]] = {}
    try:
        for _, record in iter_jsonl(path, required=("task_id",), what="sample"):
            out.setdefault(str(record["task_id"]), []).append(_own(record))
    except UserError as exc:
        raise EvaluationError(str(exc)) from None
    return out


def row_generators(data: EvalData, samples: str | Path | None) -> tuple[list[str] | None, str]:
    """The generator of every row, and where it came from; ``(None, reason)`` when unknown.

    Args:
        data: the evaluated split.
        samples: the samples file the split was built from (``generators=`` of evaluate.py), or
            None: then only rows' own ``generator`` fields are used, and every row must have one.

    Raises:
        EvaluationError: ``samples`` is given but missing, is not the file the rows were built
            from (their ``source``), or a row is not a sample of it (id not ``task::samples::k``,
            ``k`` beyond the task's lines, or the line has no ``generator``).
    """
    own = [_own(row) for row in data.rows]
    if all(own):
        return [str(g) for g in own], "the rows' generator field"
    if samples in (None, ""):
        if any(own):
            return None, (
                f"{sum(1 for g in own if not g)} of {len(own)} rows carry no generator; pass "
                "generators=SAMPLES_FILE"
            )
        return None, "no generators= samples file and no generator field on the rows"
    path = Path(samples)
    if not path.is_file():
        raise EvaluationError(
            f"generators={path}: no such file; pass the samples file the split was built from "
            "(lines with task_id and generator)"
        )
    by_task = read_generators(path)
    out: list[str] = []
    for row, generator in zip(data.rows, own, strict=True):
        if generator:
            out.append(generator)
            continue
        sample_id = str(row["id"])
        source = str(row.get("source") or "")
        if source.startswith("samples:") and source[len("samples:") :] != path.name:
            raise EvaluationError(
                f"row {sample_id!r} was built from {source[len('samples:') :]}, not from "
                f"generators={path}; pass the samples file the split was built from"
            )
        match = SAMPLE_ID.match(sample_id)
        if match is None:
            raise EvaluationError(
                f"row {sample_id!r} is not a sample of a samples file (ids look like "
                "TASK::samples::K); system-level figures need every row's generator"
            )
        task, index = match["task"], int(match["index"])
        lines = by_task.get(task, [])
        if index >= len(lines):
            raise EvaluationError(
                f"row {sample_id!r}: {path} has {len(lines)} line(s) of task {task!r}, not "
                f"{index + 1}; pass the samples file the split was built from"
            )
        if lines[index] is None:
            raise EvaluationError(
                f"{path}: line {index + 1} of task {task!r} has no {FIELD!r} field; "
                "system-level figures need one per line"
            )
        out.append(str(lines[index]))
    return out, f"samples file {path} (k-th line of the row's task)"
