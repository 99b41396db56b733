"""Executor API behaviour: capture mode, Solution methods, overrides, ordering, isolation."""

from __future__ import annotations

import pytest

from data_builders.execution import (
    STATUSES,
    AssertionTest,
    CallTest,
    ExecutionLimits,
    Executor,
    ExecutorUnavailableError,
    Program,
)
from data_builders.execution.sandbox import bwrap_problem


def test_capture_mode_returns_decoded_values(executor: Executor) -> None:
    program = Program(
        "def f(n):\n    return {n: (n, [n] * 2)}, {n}\n", [CallTest([3])], entry_point="f"
    )
    outcome = executor.run(program).outcomes[0]
    assert outcome.status == "pass"
    assert outcome.output == ({3: (3, [3, 3])}, {3})


def test_solution_class_methods(executor: Executor) -> None:
    source = "class Solution:\n    def twice(self, x):\n        return 2 * x\n"
    result = executor.run(
        Program(source, [CallTest([4], 8), CallTest([1], 3)], entry_point="Solution.twice")
    )
    assert [o.status for o in result.outcomes] == ["pass", "wrong_answer"]


def test_missing_entry_point_is_a_runtime_error(executor: Executor) -> None:
    result = executor.run(Program("x = 1\n", [CallTest([1], 1)], entry_point="nope"))
    assert result.outcomes[0].status == "runtime_error"


def test_assertion_tests_see_setup_and_wrap_candidate(executor: Executor) -> None:
    source = "class Weird(list):\n    pass\ndef f(x):\n    return Weird([x]) if x else [x]\n"
    tests = [
        AssertionTest("assert candidate(HELPER) == [HELPER]"),
        AssertionTest("assert candidate(1) == [1]"),  # list subclass: refused
        AssertionTest("str = 'shadow'\nassert candidate(0) == [0]"),
    ]
    result = executor.run(Program(source, tests, entry_point="f", setup="HELPER = 0\n"))
    assert [o.status for o in result.outcomes] == ["pass", "wrong_answer", "pass"]
    assert "Weird" in result.outcomes[1].detail


def test_per_program_timeout_override(executor: Executor) -> None:
    busy = "def f(n):\n    x = 0\n    for i in range(n):\n        x += i\n    return x\n"
    result = executor.run(Program(busy, [CallTest([10**9], 0)], entry_point="f", timeout=0.3))
    assert result.outcomes[0].status == "timeout"


def test_map_keeps_input_order_and_counts(executor: Executor) -> None:
    programs = [
        Program(f"def f():\n    return {i}\n", [CallTest([], i), CallTest([], -1)], entry_point="f")
        for i in range(40)
    ]
    results = list(executor.map(programs))
    assert [r.outcomes[0].status for r in results] == ["pass"] * 40
    row = results[0].to_dict()
    assert row["pass_ratio"] == 0.5 and row["n_tests"] == 2 and row["executable"]
    assert set(row["status_counts"]) == set(STATUSES) and row["isolation"] == executor.isolation


def test_unserialisable_return_is_a_wrong_answer(executor: Executor) -> None:
    result = executor.run(
        Program("def f():\n    return object()\n", [CallTest([])], entry_point="f")
    )
    assert result.outcomes[0].status == "wrong_answer"
    assert "cannot encode" in result.outcomes[0].detail


def test_mixing_stdio_and_call_tests_is_refused(executor: Executor) -> None:
    from data_builders.execution import StdioTest

    with pytest.raises(ValueError, match="mix"):
        executor.run(Program("", [StdioTest(""), CallTest([])], entry_point="f"))


def test_requesting_unavailable_isolation_fails_clearly(monkeypatch: pytest.MonkeyPatch) -> None:
    import data_builders.execution.sandbox as module

    monkeypatch.setattr(module, "bwrap_problem", lambda: "bwrap not found (install bubblewrap)")
    with pytest.raises(ExecutorUnavailableError, match="bubblewrap"):
        Executor(workers=1, isolation="bwrap+seccomp")


def test_auto_isolation_uses_bubblewrap_when_it_works(executor: Executor) -> None:
    if bwrap_problem() is not None:
        pytest.skip(bwrap_problem())
    assert executor.isolation.startswith("bwrap")


def test_fallback_warns_once_loudly(capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    import data_builders.execution.isolation as isolation
    import data_builders.execution.sandbox as sandbox

    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: "bwrap not found (test)")
    monkeypatch.setattr(isolation, "_WARNED", set())
    for _ in range(2):
        with Executor(workers=1, limits=ExecutionLimits(timeout=1.0)) as ex:
            assert "bwrap" not in ex.isolation
            assert ex.run(
                Program("def f():\n    return 1\n", [CallTest([], 1)], entry_point="f")
            ).passed
    assert capsys.readouterr().err.count("warning: programs run with isolation") == 1


def test_truthy_falsy_and_identity_comparisons_run_in_the_host(executor: Executor) -> None:
    source = "def f(x):\n    return x\n"
    tests = [
        CallTest([[1]], compare="truthy"),
        CallTest([[]], compare="truthy"),
        CallTest([0], compare="falsy"),
        CallTest(["0"], compare="falsy"),
        CallTest([1], True, compare="is"),
        CallTest([True], True, compare="is"),
        CallTest([0.5], 0.4, compare="abs_lt", tol=0.2),
        CallTest([0.5], 0.4, compare="abs_lt", tol=0.01),
    ]
    result = executor.run(Program(source, tests, entry_point="f"))
    assert [o.status == "pass" for o in result.outcomes] == [
        True, False, True, False, False, True, True, False,
    ]  # fmt: skip


def test_a_worker_killed_from_outside_is_replaced() -> None:
    import os
    import signal

    with Executor(workers=1, limits=ExecutionLimits(timeout=1.0)) as ex:
        program = Program("def f():\n    return 1\n", [CallTest([], 1)], entry_point="f")
        assert ex.run(program).passed
        (worker,) = ex.pool._workers
        os.kill(worker.proc.pid, signal.SIGKILL)
        worker.proc.wait()
        assert ex.run(program).passed  # respawned; the innocent program is not blamed


def test_max_timeouts_labels_the_rest_without_running_them() -> None:
    hang_on_odd = "def f(x):\n    while x % 2:\n        pass\n    return x\n"
    tests = [CallTest([x], x) for x in (0, 1, 2, 3, 4, 5, 6)]
    limits = ExecutionLimits(timeout=0.3, max_timeouts=2)
    with Executor(workers=1, limits=limits) as ex:
        result = ex.run(Program(hang_on_odd, tests, entry_point="f"))
    statuses = [o.status for o in result.outcomes]
    assert statuses == ["pass", "timeout", "pass", "timeout", "timeout", "timeout", "timeout"]
    assert "not run" in result.outcomes[4].detail and "not run" not in result.outcomes[3].detail
    with pytest.raises(ValueError, match="max_timeouts"):
        ExecutionLimits(max_timeouts=0)
