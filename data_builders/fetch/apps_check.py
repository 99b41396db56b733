"""The shelf's APPS check: does a program pass all of a problem's original tests?

Rule (the shelf README): each program runs once per test, 4 s per test; standard-input
programs' stdout is compared after stripping trailing whitespace per line and trailing blank
lines; call-based programs' return value must ``==`` the expected value, or its only element
(APPS wraps some in ``[x]``). Call-based programs run after ``from typing import *``: LeetCode
solutions annotate with ``List`` without importing it (APPS's own harness imports it; the shelf
counts 58 such solutions of problem 2404 as passing). Programs run in the project's sandboxed executor (capture mode:
the comparison is this module's, not the executor's more lenient one). Verdicts are cached per
(program, tests) in a JSONL file, so an interrupted fetch resumes without rerunning them.

Why it matters for fetch: which generated programs become an APPS problem's reference solutions,
which problems are kept, and every sample's ``passes_original_tests`` come from this check.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TIMEOUT_S = 4.0
CALL_PRELUDE = "from typing import *\n"


@dataclass(frozen=True)
class Tests:
    """A problem's original tests: stdin texts and expected stdout, or call arguments."""

    __test__ = False  # not a pytest class

    inputs: tuple[Any, ...]
    outputs: tuple[Any, ...]
    fn_name: str | None = None

    def source(self, program: str) -> str:
        """The program as it runs: call-based ones after ``from typing import *``."""
        return CALL_PRELUDE + program if self.fn_name else program

    def key(self, program: str) -> str:
        blob = json.dumps(
            [self.source(program), list(self.inputs), list(self.outputs), self.fn_name]
        )
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def normalise_stdout(text: str) -> str:
    """Trailing whitespace stripped from every line, trailing blank lines dropped."""
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def call_matches(value: Any, expected: Any) -> bool:
    """``value == expected``, or ``value == expected[0]`` for APPS's ``[x]`` wrapping."""
    try:
        if value == expected:
            return True
        return isinstance(expected, list) and len(expected) == 1 and value == expected[0]
    except Exception:  # noqa: BLE001 - a hostile __eq__ is a failure, never a crash
        return False


def _entry_point(program: str, fn_name: str) -> str:
    return f"Solution.{fn_name}" if "class Solution" in program else fn_name


def _program(program: str, tests: Tests) -> Any:
    from data_builders.execution import MISSING, CallTest, Program, StdioTest

    if tests.fn_name:
        cases = [CallTest(args=list(args), expected=MISSING) for args in tests.inputs]
        return Program(
            tests.source(program),
            cases,
            entry_point=_entry_point(program, tests.fn_name),
            timeout=TIMEOUT_S,
        )
    return Program(program, [StdioTest(stdin=s) for s in tests.inputs], timeout=TIMEOUT_S)


def _verdict(result: Any, tests: Tests) -> bool:
    if len(result.outcomes) != len(tests.outputs):
        return False
    for outcome, expected in zip(result.outcomes, tests.outputs, strict=True):
        if outcome.status != "pass":
            return False
        if tests.fn_name:
            if not call_matches(outcome.output, expected):
                return False
        elif normalise_stdout(str(outcome.output or "")) != normalise_stdout(str(expected)):
            return False
    return True


class Checker:
    """Runs and caches verdicts; ``check`` takes many (program, tests) pairs at once."""

    def __init__(self, cache: Path, workers: int | None = None) -> None:
        self.cache = cache
        self.workers = workers
        self.verdicts: dict[str, bool] = {}
        if cache.is_file():
            for line in cache.read_text(encoding="utf-8").splitlines():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by an interruption
                self.verdicts[row["key"]] = bool(row["passed"])

    def check(self, pairs: Sequence[tuple[str, Tests]], label: str = "check APPS") -> list[bool]:
        """The verdict of every (program, tests) pair, running only the uncached ones."""
        keys = [tests.key(program) for program, tests in pairs]
        todo = {}
        for key, pair in zip(keys, pairs, strict=True):
            if key not in self.verdicts and key not in todo:
                todo[key] = pair
        if todo:
            from data_builders.execution import ExecutionLimits, Executor

            self.cache.parent.mkdir(parents=True, exist_ok=True)
            limits = ExecutionLimits(timeout=TIMEOUT_S, max_timeouts=1)
            with (
                Executor("python", workers=self.workers, limits=limits) as executor,
                self.cache.open("a", encoding="utf-8") as out,
            ):
                programs = [_program(p, t) for p, t in todo.values()]
                for key, (_, tests), result in zip(
                    todo, todo.values(), executor.map(programs, progress=label), strict=True
                ):
                    self.verdicts[key] = _verdict(result, tests)
                    out.write(json.dumps({"key": key, "passed": self.verdicts[key]}) + "\n")
                    out.flush()
        return [self.verdicts[key] for key in keys]
