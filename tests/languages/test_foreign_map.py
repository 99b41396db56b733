"""``ForeignExecutor.map``: results in input order, the input read a bounded window ahead, and
a map stopped early leaves the programs nobody will read unrun (no toolchain needed: ``run``
is replaced by a stand-in that echoes the program's source)."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from data_builders.execution.foreign import MAP_WINDOW_PER_WORKER, ForeignExecutor
from data_builders.execution.types import Program, ProgramResult, TestOutcome
from tests.languages.conftest import LIMITS


@pytest.fixture
def echo(tmp_path: Path) -> Iterator[tuple[ForeignExecutor, list[str]]]:
    """2 workers whose ``run`` sleeps a little (a random while) and returns the source."""
    ran: list[str] = []
    lock = threading.Lock()
    rng = random.Random(0)

    def run(program: Program) -> ProgramResult:
        time.sleep(rng.random() * 0.004)
        with lock:
            ran.append(program.source)
        return ProgramResult([TestOutcome("pass", detail=program.source)])

    with ForeignExecutor(
        workers=2, limits=LIMITS, isolation="rlimits", cache_dir=tmp_path
    ) as executor:
        executor.run = run  # type: ignore[method-assign]
        yield executor, ran


def _programs(n: int, pulled: list[int]) -> Iterator[Program]:
    for i in range(n):
        pulled.append(i)
        yield Program(str(i), "", language="cpp")


def test_results_come_in_input_order(echo: tuple[ForeignExecutor, list[str]]) -> None:
    executor, ran = echo
    results = list(executor.map(_programs(100, [])))
    assert [r.outcomes[0].detail for r in results] == [str(i) for i in range(100)]
    assert sorted(ran, key=int) == [str(i) for i in range(100)]


def test_a_generator_is_read_a_bounded_window_ahead(
    echo: tuple[ForeignExecutor, list[str]],
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
