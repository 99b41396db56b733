"""Lanes: big jobs and outputs, worker deaths mid-map, input order, early exits, close()."""

from __future__ import annotations

import threading

from data_builders.execution import CallTest, ExecutionLimits, Executor, Program, StdioTest

ECHO = "import sys\nsys.stdout.write(sys.stdin.read())\n"
GOOD = "def f(x):\n    return x + 1\n"


def _within(seconds: float, work) -> list:
    """Run work() in a thread; fail (instead of hanging the suite) if it does not finish."""
    box: list = []
    thread = threading.Thread(target=lambda: box.append(work()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"did not finish within {seconds} s (deadlock?)"
    return box[0]


def test_big_jobs_with_big_outputs_do_not_deadlock(executor: Executor) -> None:
    """Jobs and results each larger than a pipe (64 KiB) cross without blocking either side."""
    text = "x" * (64 * 1024) + "\n"
    programs = [Program(ECHO, [StdioTest(text, text), StdioTest("a\n", "a")]) for _ in range(6)]
    results = _within(60, lambda: list(executor.map(programs)))
    assert [r.pass_ratio for r in results] == [1.0] * 6


def test_programs_after_a_worker_death_still_run() -> None:
    killer = "import os, signal\ndef f(x):\n    os.kill(os.getppid(), signal.SIGKILL)\n"
    programs = [
        Program(GOOD, [CallTest([1], 2)], entry_point="f"),
        Program(killer, [CallTest([1], 2), CallTest([2], 3)], entry_point="f"),
        Program(GOOD, [CallTest([2], 3), CallTest([3], 5)], entry_point="f"),
        Program(GOOD, [CallTest([4], 5)], entry_point="f"),
    ]
    limits = ExecutionLimits(timeout=1.0)
    with Executor(workers=1, limits=limits, isolation="rlimits") as ex:
        results = _within(60, lambda: list(ex.map(programs)))
    statuses = [[o.status for o in r.outcomes] for r in results]
    assert statuses == [
        ["pass"],
        ["runtime_error", "runtime_error"],
        ["pass", "wrong_answer"],
        ["pass"],
    ]


def test_results_keep_input_order_when_programs_finish_out_of_order(executor: Executor) -> None:
    slow = "def f(x):\n    n = 0\n    for i in range(3_000_000):\n        n += i\n    return x\n"
    programs = [
        Program(slow if i % 5 == 0 else GOOD.replace("+ 1", f"+ {i}"), [CallTest([0])], "f")
        for i in range(20)
    ]
    outputs = [r.outcomes[0].output for r in _within(60, lambda: list(executor.map(programs)))]
    assert outputs == [0 if i % 5 == 0 else i for i in range(20)]


def test_leaving_a_map_early_keeps_the_pool_usable(executor: Executor) -> None:
    programs = (Program(GOOD, [CallTest([i], i + 1)], entry_point="f") for i in range(500))
    results = executor.map(programs)
    assert next(results).passed
    results.close()  # the consumer walks away mid-stream
    again = _within(60, lambda: list(executor.map([Program(GOOD, [CallTest([1], 2)], "f")] * 3)))
    assert all(r.passed for r in again)


def test_a_failing_input_stops_the_map_with_its_error(executor: Executor) -> None:
    def programs():
        yield Program(GOOD, [CallTest([1], 2)], entry_point="f")
        raise ValueError("malformed input line 2")

    results = executor.map(programs())
    assert next(results).passed
    try:
        next(results)
    except ValueError as exc:
        assert "line 2" in str(exc)
    else:  # pragma: no cover - the failure must surface
        raise AssertionError("the input's error was swallowed")


def test_closing_the_executor_stops_an_unfinished_map() -> None:
    """A map left half-read (its generator still referenced) must not hang ``close()``."""

    def abandon() -> bool:
        with Executor(workers=2, limits=ExecutionLimits(timeout=1.0)) as ex:
            results = ex.map(Program(GOOD, [CallTest([i], i + 1)], "f") for i in range(2000))
            first = next(results).passed
        return first  # `results` is still alive here: only close() can stop its lanes

    assert _within(60, abandon)


def _zygotes() -> int:
    """Import zygotes now running. A program forked from a zygote carries its name until it
    exits and is reaped, so only processes whose parent is not a zygote count."""
    from pathlib import Path

    from data_builders.execution.python.zygote import ZYGOTE_NAME

    parents: dict[str, str] = {}
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_bytes().strip() == ZYGOTE_NAME:
                stat = (entry / "stat").read_text()
                parents[entry.name] = stat[stat.rindex(")") + 2 :].split()[1]
        except OSError:
            continue
    return sum(1 for parent in parents.values() if parent not in parents)


def test_heavy_import_programs_go_to_one_worker() -> None:
    """Programs importing a zygote library run on one worker (its zygote imports the library
    once for the pool); results stay in input order, mixed with the other programs."""
    heavy = "from fractions import Fraction\n" + GOOD
    before = _zygotes()
    programs = [
        Program(heavy if i % 3 == 0 else GOOD.replace("+ 1", f"+ {i}"), [CallTest([0])], "f")
        for i in range(40)
    ]
    with Executor(
        workers=2, limits=ExecutionLimits(timeout=1.0), shared_imports=("fractions",)
    ) as ex:
        for _ in range(2):  # a second map routes to the same worker again
            outputs = [r.outcomes[0].output for r in _within(60, lambda: list(ex.map(programs)))]
            assert outputs == [1 if i % 3 == 0 else i for i in range(40)]
        assert _zygotes() - before == 1
