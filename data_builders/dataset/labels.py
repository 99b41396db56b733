"""Label candidates: run each on its problem's original + extended tests, make dataset rows."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

from data_builders.candidates.base import Candidate
from data_builders.dataset.config import TimeoutConfig
from data_builders.dataset.tasks import TaskSpec
from data_builders.execution import Executor, Program, ProgramResult
from data_builders.extension.suite import ExtendedSuite

KIND_ORDER = {"samples": 0, "mutant": 1, "generate": 2}


def candidate_programs(
    candidate: Candidate, spec: TaskSpec, suite: ExtendedSuite, timeouts: TimeoutConfig
) -> tuple[Program, Program]:
    """The candidate's tests (originals first, then the new ones) in two parts: the first
    ``timeouts.probe_tests`` tests, and the rest (see :func:`label`)."""
    reference_time = max(spec.reference_time, suite.reference_time)
    tests = [*spec.original_tests, *suite.new_tests()]
    cut = len(spec.original_tests) + timeouts.probe_tests
    timeout = timeouts.for_reference(reference_time)

    def part(chunk: list[Any]) -> Program:
        return Program(candidate.program, chunk, spec.problem.entry_point, spec.setup, timeout)

    return part(tests[:cut]), part(tests[cut:])


def exec_seconds(result: ProgramResult) -> float:
    """Sum of the per-test CPU seconds the sandbox measured (``TestOutcome.time``).

    CPU time of the program's own work on each test, as the per-test limit counts it: not
    wall time, not loading the program, not sandbox start-up. A test stopped by the worker
    from outside (a C loop past the limit, a crash, a test skipped after earlier timeouts)
    reports 0, so this is a lower bound for such candidates. Rounded to microseconds.
    """
    return round(sum(outcome.time for outcome in result.outcomes), 6)


def make_row(candidate: Candidate, spec: TaskSpec, result: ProgramResult) -> dict[str, Any]:
    """One dataset line (the contract's fields plus ``status_counts``, ``exec_seconds`` and
    ``_order``). ``exec_seconds`` is the CPU time the executor measured over the candidate's
    tests (see :func:`exec_seconds`)."""
    n_base = len(spec.original_tests)
    base = result.outcomes[:n_base]
    row = {
        "id": candidate.id,
        "task_id": candidate.task_id,
        "nl": spec.problem.nl or "",
        "reference": spec.references[0] if spec.references else "",
        "generated": candidate.program,
        "pass_ratio": result.pass_ratio,
        "executable": result.executable,
        "passed": result.passed,
        "base_passed": bool(base) and all(o.status == "pass" for o in base),
        "n_tests": result.n_tests,
        "n_base_tests": n_base,
        "source": candidate.source,
        "status_counts": result.status_counts,  # all seven statuses, zeros included
        "exec_seconds": exec_seconds(result),
        "_order": [spec.index, KIND_ORDER.get(candidate.kind, 9), candidate.index],
    }
    if candidate.is_reference is not None:  # --reference-samples flag
        row["is_reference"] = candidate.is_reference
    return row


def label(
    candidates: Sequence[Candidate],
    specs: dict[str, TaskSpec],
    suites: dict[str, ExtendedSuite],
    executor: Executor,
    timeouts: TimeoutConfig,
) -> Iterator[dict[str, Any]]:
    """Rows for ``candidates``, in order.

    Why two passes: a program that loops forever costs the full time limit on *every*
    test (100+ of them). So each candidate first runs the original tests plus a few new
    ones; only if one of those timed out do the remaining tests run under the much shorter
    ``timeouts.after_timeout`` limit. The two parts load the program separately (two
    fresh processes), so a program whose results depend on state kept across tests (a
    module-level cache or counter, a mutated default argument) can get a different
    PassRatio than one pass over all tests would give. For programs without such state,
    those that never time out get the same verdicts as in one pass, and PassRatio stays
    per-test exact for the others too, except that a test needing more than
    ``after_timeout`` CPU seconds counts as a timeout in a program that has already timed
    out (it is non-executable either way).
    """
    parts = [
        candidate_programs(c, specs[c.task_id], suites[c.task_id], timeouts) for c in candidates
    ]
    firsts = list(executor.map([first for first, _ in parts], progress="label: probe tests"))
    rests = []
    for (_, rest), first in zip(parts, firsts, strict=True):
        if any(o.status == "timeout" for o in first.outcomes):
            rest = dataclasses.replace(rest, timeout=min(rest.timeout, timeouts.after_timeout))
        rests.append(rest)
    todo = [rest for rest in rests if rest.tests]
    done = iter(list(executor.map(todo, progress="label: all tests")))
    for candidate, first, rest in zip(candidates, firsts, rests, strict=True):
        outcomes = next(done).outcomes if rest.tests else []
        merged = ProgramResult(first.outcomes + outcomes, first.isolation)
        yield make_row(candidate, specs[candidate.task_id], merged)
