"""Label candidates: run each on its problem's original + extended tests, make dataset rows."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from typing import Any

from data_builders.candidates.base import Candidate
from data_builders.dataset.config import TimeoutConfig
from data_builders.dataset.convention import row_texts
from data_builders.dataset.tasks import TaskSpec
from data_builders.execution import Executor, Program, ProgramResult
from data_builders.extension.suite import ExtendedSuite

KIND_ORDER = {"samples": 0, "mutant": 1, "generate": 2}


def candidate_parts(
    candidate: Candidate, spec: TaskSpec, suite: ExtendedSuite, timeouts: TimeoutConfig
) -> list[Program]:
    """The candidate's tests (originals first, then the new ones) in the parts :func:`label`
    runs one after another: the originals plus ``timeouts.probe_tests`` new tests, then the
    rest — in one part, or with ``timeouts.rest_chunk`` > 0 in parts of ``rest_chunk``,
    ``2 * rest_chunk``, ``4 * rest_chunk``... tests."""
    reference_time = max(spec.reference_time, suite.reference_time)
    tests = [*spec.original_tests, *suite.new_tests()]
    bounds = [0, min(len(tests), len(spec.original_tests) + timeouts.probe_tests)]
    size = timeouts.rest_chunk if timeouts.rest_chunk > 0 else len(tests)
    while bounds[-1] < len(tests):
        bounds.append(min(len(tests), bounds[-1] + size))
        size *= 2
    timeout = timeouts.for_reference(reference_time)
    return [
        Program(candidate.program, tests[a:b], spec.problem.entry_point, spec.setup, timeout)
        for a, b in zip(bounds, bounds[1:], strict=False)
    ]


def candidate_programs(
    candidate: Candidate, spec: TaskSpec, suite: ExtendedSuite, timeouts: TimeoutConfig
) -> tuple[Program, Program]:
    """The first part (originals + probe tests) and all the rest as one program."""
    first, *rest = candidate_parts(
        candidate, spec, suite, dataclasses.replace(timeouts, rest_chunk=0)
    )
    empty = dataclasses.replace(first, tests=[])
    return first, rest[0] if rest else empty


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
        **row_texts(candidate.program, spec.problem, spec.references[0] if spec.references else ""),
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


def worst_case_seconds(program: Program) -> float:
    """An upper bound of a program's CPU cost: every test at its limit.

    :func:`label` starts the costliest programs of each part first (longest-processing-time
    scheduling): a part ends when its last program does, so a 40-second APPS program handed
    out last would keep one worker busy while the others idle. The order changes no label:
    every program still runs alone, and rows come back in the candidates' order.
    """
    return float(sum(program.test_timeouts or [program.timeout or 0.0] * len(program.tests)))


def label(
    candidates: Sequence[Candidate],
    specs: dict[str, TaskSpec],
    suites: dict[str, ExtendedSuite],
    executor: Executor,
    timeouts: TimeoutConfig,
) -> Iterator[dict[str, Any]]:
    """Rows for ``candidates``, in order.

    Why parts: a program that loops forever costs the full time limit on *every* test
    (100+ of them). So each candidate first runs the original tests plus a few new ones; the
    remaining tests follow in further parts (:func:`candidate_parts`), and once any part has
    timed out, every later part runs under the much shorter ``timeouts.after_timeout`` limit.
    With one remaining part (``rest_chunk: 0``) a program whose first timeout comes after
    the probe tests pays the full limit on every later slow test; APPS programs that are too
    slow only on the large generated inputs do exactly that (``rest_chunk`` bounds it).
    Parts load the program separately (fresh processes), so a program whose results depend
    on state kept across tests (a module-level cache or counter, a mutated default
    argument) can get a different PassRatio than one pass over all tests would give. For
    programs without such state, those that never time out get the same verdicts as in one
    pass, and PassRatio stays per-test exact for the others too, except that a test needing
    more than ``after_timeout`` CPU seconds counts as a timeout in a program that has
    already timed out (it is non-executable either way).
    """
    parts = [candidate_parts(c, specs[c.task_id], suites[c.task_id], timeouts) for c in candidates]
    outcomes: list[list[Any]] = [[] for _ in candidates]
    isolation = [""] * len(candidates)
    timed_out = [False] * len(candidates)
    for k in range(max((len(p) for p in parts), default=0)):
        todo = []
        for i, programs in enumerate(parts):
            if k < len(programs) and (programs[k].tests or k == 0):
                program = programs[k]
                if timed_out[i]:
                    limit = min(program.timeout, timeouts.after_timeout)
                    program = dataclasses.replace(program, timeout=limit)
                todo.append((i, program))
        todo.sort(key=lambda item: -worst_case_seconds(item[1]))
        what = "probe tests" if k == 0 else f"tests, part {k + 1}"
        results = executor.map([program for _, program in todo], progress=f"label: {what}")
        for (i, _), result in zip(todo, results, strict=True):
            outcomes[i].extend(result.outcomes)
            isolation[i] = isolation[i] or result.isolation
            timed_out[i] = timed_out[i] or any(o.status == "timeout" for o in result.outcomes)
    for i, candidate in enumerate(candidates):
        merged = ProgramResult(outcomes[i], isolation[i])
        yield make_row(candidate, specs[candidate.task_id], merged)
