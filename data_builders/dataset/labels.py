"""Label candidates: run each on its problem's original + extended tests, make dataset rows."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from data_builders.candidates.base import Candidate
from data_builders.dataset.convention import row_texts
from data_builders.dataset.tasks import TaskSpec
from data_builders.execution import ExecutionLimits, Executor, LimitPolicy, Program, ProgramResult
from data_builders.extension.suite import ExtendedSuite

KIND_ORDER = {"samples": 0, "mutant": 1, "generate": 2, "sample_mutant": 3}


def per_test_limits(spec: TaskSpec, suite: ExtendedSuite, policy: LimitPolicy) -> list[float]:
    """Each test's CPU limit, originals first: ``clamp(factor x the reference's time on that
    test, floor, cap)`` (``configs/build/limits.yaml``, the policy ``label`` uses). The times
    are those the build measured anyway: the slowest accepted reference on each original test
    (``check_references``), the slowest reference run on each new one (extension)."""
    times = [*spec.test_times, *suite.reference_times]
    if len(times) != len(spec.original_tests) + len(suite.cases):
        raise ValueError(f"{spec.task_id}: reference times do not match its tests")
    return [policy.limit(seconds) for seconds in times]


def candidate_program(
    candidate: Candidate, spec: TaskSpec, suite: ExtendedSuite, policy: LimitPolicy
) -> Program:
    """The candidate on all its tests (originals first) under per-test limits; loading the
    program (its top-level code) gets ``policy.load`` seconds."""
    return Program(
        candidate.program,
        [*spec.original_tests, *suite.new_tests()],
        spec.problem.entry_point,
        spec.setup,
        policy.load,
        per_test_limits(spec, suite, policy),
    )


def label_limits(policy: LimitPolicy) -> ExecutionLimits:
    """The executor limits for labelling: once a program has timed out, its remaining tests
    run under ``policy.after_timeout`` (an endless loop would otherwise cost its limit on
    every one of 100+ tests). Reference runs must not get this cap: use another executor."""
    return ExecutionLimits(timeout=policy.load, after_timeout=policy.after_timeout)


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
    if candidate.generator is not None:  # the samples line named its generator
        row["generator"] = candidate.generator
    if candidate.is_reference is not None:  # --reference-samples flag
        row["is_reference"] = candidate.is_reference
    if result.judged_in_program is not None:  # other languages: assertions judged in-process
        row["cases_judged_in_program"] = result.judged_in_program
    return row


def worst_case_seconds(program: Program) -> float:
    """An upper bound of a program's CPU cost: every test at its limit.

    :func:`label` starts the costliest programs of each chunk first (longest-processing-time
    scheduling): a chunk ends when its last program does, so a 40-second APPS program handed
    out last would keep one worker busy while the others idle. The order changes no label:
    every program still runs alone, and rows come back in the candidates' order.
    """
    return float(sum(program.test_timeouts or [program.timeout or 0.0] * len(program.tests)))


def label(
    candidates: Sequence[Candidate],
    specs: dict[str, TaskSpec],
    suites: dict[str, ExtendedSuite],
    executor: Executor,
    policy: LimitPolicy,
) -> Iterator[dict[str, Any]]:
    """Rows for ``candidates``, in order.

    Each candidate runs once on all its tests under its per-test limits
    (:func:`candidate_program`), as ``python -m data_builders label`` runs a sample; the
    executor must cap the tests after a timeout (:func:`label_limits`). The costliest
    programs are handed out first (:func:`worst_case_seconds`).
    """
    programs = [
        candidate_program(c, specs[c.task_id], suites[c.task_id], policy) for c in candidates
    ]
    order = sorted(range(len(programs)), key=lambda i: -worst_case_seconds(programs[i]))
    results = executor.map([programs[i] for i in order], progress="label")
    by_index = dict(zip(order, results, strict=True))
    for i, candidate in enumerate(candidates):
        yield make_row(candidate, specs[candidate.task_id], by_index[i])
