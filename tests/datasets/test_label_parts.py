"""Labelling in parts: after a timeout, later parts run under ``after_timeout``; the time
limit follows the slowest accepted reference solution."""

from __future__ import annotations

from data_builders.candidates.base import Candidate
from data_builders.dataset.config import TimeoutConfig
from data_builders.dataset.labels import candidate_parts, label
from data_builders.dataset.tasks import TaskSpec, check_references, make_spec
from data_builders.execution import CallTest
from data_builders.extension.suite import ExtendedSuite
from data_builders.problems.base import Problem

# Correct for x <= 100, an endless loop beyond: slow only on the late, large tests.
LOOPS_ON_LARGE = "def f(x):\n    while x > 100:\n        pass\n    return x\n"
NEW = [2, 3, 500, 501, 502, 503, 504, 505]


def _spec_and_suite() -> tuple[TaskSpec, ExtendedSuite]:
    problem = Problem("T/0", "", "", "def f(x):\n    return x\n", "f")
    spec = TaskSpec(0, problem, "call", [CallTest([1], 1)], [], references=[problem.reference])
    suite = ExtendedSuite("T/0", "call", [((x,), x) for x in NEW], n_original=1)
    return spec, suite


class _Recorder:
    """Delegates to the real executor, remembering every program's time limit."""

    def __init__(self, executor) -> None:
        self.executor, self.limits = executor, []

    def map(self, programs, progress=None):
        programs = list(programs)
        self.limits.extend((len(p.tests), p.timeout) for p in programs)
        return self.executor.map(programs)


def test_parts_double_and_cover_every_test_once() -> None:
    spec, suite = _spec_and_suite()
    candidate = Candidate("T/0", LOOPS_ON_LARGE, "s", "samples", 0)
    timeouts = TimeoutConfig(probe_tests=2, rest_chunk=2)
    parts = candidate_parts(candidate, spec, suite, timeouts)
    assert [len(p.tests) for p in parts] == [3, 2, 4]
    one_rest = candidate_parts(candidate, spec, suite, TimeoutConfig(probe_tests=2))
    assert [len(p.tests) for p in one_rest] == [3, 6]


def test_after_a_timeout_later_parts_get_the_short_limit(executor) -> None:
    spec, suite = _spec_and_suite()
    candidate = Candidate("T/0", LOOPS_ON_LARGE, "s", "samples", 0)
    chunked = TimeoutConfig(min=0.3, max=0.3, probe_tests=2, after_timeout=0.02, rest_chunk=2)
    recorder = _Recorder(executor)
    (row,) = label([candidate], {"T/0": spec}, {"T/0": suite}, recorder, chunked)
    # probe (3 tests) passes; part 2 times out at the full limit; part 3 gets 0.02 s
    assert recorder.limits == [(3, 0.3), (2, 0.3), (4, 0.02)]
    assert row["status_counts"]["pass"] == 3 and row["status_counts"]["timeout"] == 6
    assert row["executable"] is False and row["pass_ratio"] == 3 / 9
    # one rest part (the default): every late slow test pays the full limit
    recorder = _Recorder(executor)
    one_rest = TimeoutConfig(min=0.3, max=0.3, probe_tests=2, after_timeout=0.02)
    (same,) = label([candidate], {"T/0": spec}, {"T/0": suite}, recorder, one_rest)
    assert recorder.limits == [(3, 0.3), (6, 0.3)]
    assert same["status_counts"] == row["status_counts"]


def test_time_limit_follows_the_slowest_passing_reference(executor) -> None:
    slow = "def f(x):\n    s = 0\n    for i in range(300000):\n        s += i\n    return x\n"
    problem = Problem(
        "T/1",
        "",
        "",
        "def f(x):\n    return x\n",
        "f",
        metadata={
            "kind": "call",
            "inputs": [[1], [2]],
            "outputs": [[1], [2]],
            "solutions": ["def f(x):\n    return x\n", slow],
        },
    )
    spec = make_spec(0, problem, max_references=2)
    check_references([spec], executor, timeout=3.0)
    assert spec.references == problem.metadata["solutions"]
    fast_only = make_spec(0, problem, max_references=1)
    check_references([fast_only], executor, timeout=3.0)
    assert spec.reference_time > 5 * max(fast_only.reference_time, 1e-4)


def test_costliest_programs_start_first_and_rows_keep_candidate_order(executor) -> None:
    cheap_spec, suite = _spec_and_suite()
    costly_problem = Problem("T/1", "", "", "def f(x):\n    return x\n", "f")
    costly_spec = TaskSpec(
        1, costly_problem, "call", [CallTest([1], 1)], [], references=["def f(x):\n    return x\n"]
    )
    costly_spec.reference_time = 0.04  # limit 10 x 0.04 = 0.4 s against the cheap task's 0.1 s
    costly_suite = ExtendedSuite("T/1", "call", [((x,), x) for x in NEW], n_original=1)
    identity = "def f(x):\n    return x\n"
    candidates = [
        Candidate("T/0", identity, "a", "samples", 0),
        Candidate("T/1", identity, "b", "samples", 0),
    ]
    recorder = _Recorder(executor)
    rows = list(
        label(
            candidates,
            {"T/0": cheap_spec, "T/1": costly_spec},
            {"T/0": suite, "T/1": costly_suite},
            recorder,
            TimeoutConfig(factor=10.0, min=0.1, max=1.0, probe_tests=2),
        )
    )
    # each part hands out the task with the longer limit first ...
    assert recorder.limits == [(3, 0.4), (3, 0.1), (6, 0.4), (6, 0.1)]
    # ... and the rows still follow the candidates, each with its own tests' results
    assert [row["task_id"] for row in rows] == ["T/0", "T/1"]
    assert all(row["passed"] and row["n_tests"] == 9 for row in rows)
