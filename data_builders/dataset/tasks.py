"""From a :class:`Problem` to what the builder executes: original tests, seeds, references.

HumanEval/MBPP problems carry a ``check(candidate)`` test, split by the executor into one
test per assertion. APPS problems carry inputs/outputs (``metadata``) for call-based or
standard-input programs. Either way the reference solutions are run once on the original
tests here: that checks them (a reference failing its own tests is reported in the stats),
picks which of APPS's many solutions serve as references, fixes APPS's ambiguous call-based
expected values (``x`` vs ``[x]``), and gives the reference's CPU time on each original test,
from which the candidates' per-test limits follow (:mod:`data_builders.execution.calibrate`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from data_builders.execution import (
    CallTest,
    Executor,
    Program,
    StdioTest,
    split_check,
    stdout_matches,
)
from data_builders.extension.cases import parse_cases
from data_builders.extension.signature import seeds_from_signature
from data_builders.extension.suite import call_test
from data_builders.problems.base import Problem


@dataclass
class TaskSpec:
    """One problem, ready to extend and to label candidates against."""

    index: int
    problem: Problem
    kind: str  # "call" | "stdio"
    original_tests: list[Any]
    seeds: list[Any]
    setup: str = ""
    references: list[str] = field(default_factory=list)
    reference_passes: bool = True
    reference_time: float = 0.0  # the slowest original test of any accepted reference
    # per original test: the slowest accepted reference's CPU s; None where none passed it
    test_times: list[float | None] = field(default_factory=list)

    @property
    def task_id(self) -> str:
        return self.problem.task_id


def _metadata(problem: Problem) -> dict[str, Any]:
    return getattr(problem, "metadata", None) or {}


def make_spec(index: int, problem: Problem, max_references: int) -> TaskSpec:
    """Original tests and seed inputs of ``problem`` (nothing is run here)."""
    meta = _metadata(problem)
    if meta.get("kind") == "stdio":
        tests = [StdioTest(i, o) for i, o in zip(meta["inputs"], meta["outputs"], strict=True)]
        refs = meta.get("solutions", [problem.reference])[:max_references]
        return TaskSpec(index, problem, "stdio", tests, list(meta["inputs"]), references=refs)
    if meta.get("kind") == "call":
        tests = [CallTest(list(a), o) for a, o in zip(meta["inputs"], meta["outputs"], strict=True)]
        refs = meta.get("solutions", [problem.reference])[:max_references]
        seeds = [tuple(args) for args in meta["inputs"]]
        return TaskSpec(index, problem, "call", tests, seeds, references=refs)
    setup, tests = split_check(problem.test or "", problem.entry_point)
    seeds = [case.args for case in parse_cases(problem.test or "", problem.entry_point)]
    if not seeds:
        seeds = seeds_from_signature(problem.prompt or problem.reference, problem.entry_point)
    return TaskSpec(index, problem, "call", list(tests), seeds, setup, [problem.reference])


def _capture(test: Any) -> Any:
    if isinstance(test, StdioTest):
        return StdioTest(test.stdin)
    return CallTest(list(test.args))


def _agrees(test: Any, output: Any) -> bool:
    """APPS's own acceptance rule for the given expected value (host-side)."""
    if isinstance(test, StdioTest):
        return isinstance(output, str) and stdout_matches(output, test.expected)
    value = list(output) if isinstance(output, tuple) else output
    expected = test.expected
    return value == expected or (
        isinstance(expected, list) and len(expected) == 1 and value == expected[0]
    )


def check_references(specs: Sequence[TaskSpec], executor: Executor, timeout: float) -> None:
    """Run every reference on its problem's original tests; keep those that pass.

    HumanEval/MBPP tests run as they are. APPS tests run in capture mode and are compared by
    APPS's rule; when the first passing reference agrees, its exact return values become the
    expected values (so ``[x]``-wrapped outputs and tuples-vs-lists do not fail correct code).
    """
    jobs = []
    for spec in specs:
        for reference in spec.references:
            tests = spec.original_tests
            if _metadata(spec.problem).get("kind"):
                tests = [_capture(t) for t in tests]
            program = Program(reference, tests, spec.problem.entry_point, spec.setup, timeout)
            jobs.append((spec, reference, program))
    results = executor.map([job[2] for job in jobs], progress="check references")
    passing: dict[int, list[tuple[str, Any]]] = {}
    first_runs: dict[int, Any] = {}  # the first reference's result, for failing tasks' times
    for (spec, reference, _), result in zip(jobs, results, strict=True):
        first_runs.setdefault(spec.index, result)
        if _metadata(spec.problem).get("kind"):
            ok = all(
                o.status == "pass" and _agrees(t, o.output)
                for t, o in zip(spec.original_tests, result.outcomes, strict=True)
            )
        else:
            ok = result.passed
        if ok:
            passing.setdefault(spec.index, []).append((reference, result))
    for spec in specs:
        found = passing.get(spec.index, [])
        spec.reference_passes = bool(found)
        if not found:
            spec.references = spec.references[:1]
            spec.test_times = _own_times(spec, first_runs.get(spec.index))
            continue
        spec.references = [reference for reference, _ in found]
        first = found[0][1]
        # Candidate time limits derive from these: on each test, the *slowest* accepted
        # solution, so a program as fast as one of the problem's own solutions is never cut
        # off (APPS 3856: its first solution needs 0.03 s on a test, its third 0.65 s).
        spec.reference_time = max(
            (o.time for _, result in found for o in result.outcomes), default=0.0
        )
        spec.test_times = [
            max(result.outcomes[i].time for _, result in found)
            for i in range(len(spec.original_tests))
        ]
        if spec.kind == "call" and _metadata(spec.problem).get("kind") == "call":
            spec.original_tests = [
                call_test(list(t.args), o.output)
                for t, o in zip(spec.original_tests, first.outcomes, strict=True)
            ]


def _own_times(spec: TaskSpec, result: Any) -> list[float | None]:
    """Per-test times of a reference that fails its own tests: its time where it got the test
    right, None (the limit policy's cap) where it did not, as ``label``'s calibration does."""
    if result is None:
        return [None] * len(spec.original_tests)
    times: list[float | None] = []
    for test, outcome in zip(spec.original_tests, result.outcomes, strict=True):
        if _metadata(spec.problem).get("kind"):
            right = outcome.status == "pass" and _agrees(test, outcome.output)
        else:
            right = outcome.status == "pass"
        times.append(outcome.time if right else None)
    return times
