"""``Executor.map`` for a compiled language (the foreign pool): results in input order, nothing
run before the first result is asked for, the input read a bounded window ahead, and a map
stopped early leaves the programs nobody will read unrun (no toolchain needed: the pool's
``run`` is replaced by a stand-in that echoes the program's source)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from data_builders.execution.compiled.pool import MAP_WINDOW_PER_WORKER
from data_builders.execution.executor import Executor
from data_builders.execution.types import Program, ProgramResult, TestCode, TestOutcome
from tests.languages.conftest import LIMITS


@pytest.fixture
def echo(tmp_path: Path) -> Iterator[tuple[Executor, list[str]]]:
    """2 workers whose ``run`` sleeps a little (a random while) and returns the source."""
    ran: list[str] = []
    lock = threading.Lock()
    rng = random.Random(0)

    def run(program: Program) -> ProgramResult:
        time.sleep(rng.random() * 0.004)
        with lock:
            ran.append(program.source)
        return ProgramResult([TestOutcome("pass", detail=program.source)])

    with Executor(
        "cpp", workers=2, limits=LIMITS, isolation="rlimits", cache_dir=tmp_path
    ) as executor:
        executor.pool.run = run  # type: ignore[method-assign]
        yield executor, ran


def _programs(n: int, pulled: list[int]) -> Iterator[Program]:
    for i in range(n):
        pulled.append(i)
        yield Program(str(i), TestCode(""), language="cpp")


def test_results_come_in_input_order(echo: tuple[Executor, list[str]]) -> None:
    executor, ran = echo
    results = list(executor.map(_programs(100, [])))
    assert [r.outcomes[0].detail for r in results] == [str(i) for i in range(100)]
    assert sorted(ran, key=int) == [str(i) for i in range(100)]


def test_a_generator_is_read_a_bounded_window_ahead(
    echo: tuple[Executor, list[str]],
) -> None:
    executor, ran = echo
    window = MAP_WINDOW_PER_WORKER * executor.n_workers
    pulled: list[int] = []
    results = executor.map(_programs(10 * window, pulled))
    for k in range(1, 2 * window):
        assert next(results).outcomes[0].detail == str(k - 1)
        assert len(pulled) <= window + k  # never more than the window ahead of the reader
    results.close()  # stopped early: what was not started yet never runs
    assert len(pulled) < 3 * window
    settled = len(ran)
    time.sleep(0.05)
    assert len(ran) == settled <= len(pulled)


def test_nothing_runs_before_the_first_result_is_asked_for(
    echo: tuple[Executor, list[str]],
) -> None:
    executor, ran = echo
    pulled: list[int] = []
    results = executor.map(_programs(10, pulled))
    time.sleep(0.05)
    assert pulled == [] and ran == []  # a generator: the input is not even read yet
    assert next(results).outcomes[0].detail == "0"
    results.close()


def test_a_closed_executor_refuses_to_map(echo: tuple[Executor, list[str]]) -> None:
    executor, _ = echo
    executor.close()
    with pytest.raises(RuntimeError, match="closed"):
        next(executor.map(_programs(1, [])))
    with pytest.raises(RuntimeError, match="closed"):
        executor.run(Program("0", TestCode(""), language="cpp"))
