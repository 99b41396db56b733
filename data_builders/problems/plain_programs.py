"""The whole programs the plain harness runs (``data_builders.execution``'s ``run_plain``):
one per sample, assembled from a problems file as the label path would.

Why here and not beside the harness: assembling needs the problem sources (this package),
which the executor must not import (the layering test, tests/foundation/test_layering.py).
"""

from __future__ import annotations

from pathlib import Path

from data_builders.errors import UserError
from data_builders.execution import LANGUAGE_ALIASES, plain_program
from data_builders.jsonl import iter_jsonl


def build_programs(
    fmt: str, language: str, problems_file: Path, samples: Path
) -> list[tuple[str, str]]:
    """``(task_id, whole program)`` per sample, as the label path would assemble it."""
    if fmt == "multipl-e":
        from data_builders.problems.multipl_e import load_multipl_e_file, match_samples

        problems = [
            p
            for p in load_multipl_e_file(problems_file)
            if LANGUAGE_ALIASES.get(p.language, p.language) == language
        ]
        if not problems:
            raise UserError(f"{problems_file}: no MultiPL-E rows in {language}")
        return [(name, program) for name, _, program in match_samples(problems, samples)]
    from data_builders.problems.humaneval_x import load_humaneval_x_file, program_and_test

    problems = load_humaneval_x_file(problems_file)
    out = []
    for line, sample in iter_jsonl(samples, required=("task_id", "completion"), what="sample"):
        problem = problems.get(sample["task_id"])
        if problem is None:
            raise UserError(f"{samples}:{line}: unknown task_id {sample['task_id']!r}")
        source, test = program_and_test(problem, sample["completion"])
        out.append((sample["task_id"], plain_program(language, source, test)))
    return out
