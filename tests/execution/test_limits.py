"""Per-test CPU limits (``Program.test_timeouts``) and the after-timeout cap."""

from __future__ import annotations

import pytest

from data_builders.execution import AssertionTest, CallTest, ExecutionLimits, Executor, Program

SPIN = (
    "import time\n"
    "def f(seconds):\n"
    "    start = time.process_time()\n"
    "    while time.process_time() - start < seconds:\n"
    "        pass\n"
    "    return seconds\n"
)


def test_each_test_runs_under_its_own_limit(executor: Executor) -> None:
    tests = [CallTest([0.4], 0.4), CallTest([0.4], 0.4), AssertionTest("assert candidate(0.4)")]
    program = Program(SPIN, tests, entry_point="f", test_timeouts=[0.15, 2.0, 0.15])
    statuses = [o.status for o in executor.run(program).outcomes]
    assert statuses == ["timeout", "pass", "timeout"]


def test_after_a_timeout_the_rest_runs_under_the_cap() -> None:
    limits = ExecutionLimits(timeout=0.6, after_timeout=0.1)
    tests = [
        CallTest([0.02], 0.02),
        CallTest([5.0], 5.0),
        CallTest([0.3], 0.3),
        CallTest([0.02], 0.02),
    ]
    with Executor(workers=1, limits=limits) as ex:
        capped = [o.status for o in ex.run(Program(SPIN, tests, entry_point="f")).outcomes]
        # every test still runs: the fast one after the timeouts passes
        assert capped == ["pass", "timeout", "timeout", "pass"]
        # without a timeout first, the same 0.3 s test passes under its own 0.6 s limit
        assert ex.run(Program(SPIN, [tests[2]], entry_point="f")).passed


def test_test_timeouts_must_match_the_tests(executor: Executor) -> None:
    with pytest.raises(ValueError, match="one per test"):
        executor.run(Program(SPIN, [CallTest([0.0], 0.0)], entry_point="f", test_timeouts=[1, 2]))
    with pytest.raises(ValueError, match="positive"):
        ExecutionLimits(after_timeout=0)
