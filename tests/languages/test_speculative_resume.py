"""Speculative resumes (``ForeignPool(speculative_resume=...)``, ``foreign_run._run_lanes``).

After a program's case times out, the processes that would resume it after its next cases
start beside each other in idle workers. The verdicts must be those of resuming one process
at a time: kept where each earlier lane died in its first case, dropped where a lane got past
it (a later case then runs in that process, after the state the earlier cases left).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from data_builders.execution.executor import Executor
from data_builders.execution.types import Program, TestCode
from tests.languages.conftest import LIMITS, need, statuses

# Short limits: every looping case costs one of them; after the first timeout, 0.1 s each
FAST = dataclasses.replace(LIMITS, timeout=0.2, after_timeout=0.1)
P, T = "pass", "timeout"

LOOPS = {  # f(1) returns; every later call loops
    "js": "const f = (x) => {\n  if (x > 1) { while (true) {} }\n  return x + 1\n}\n",
    "cpp": "int f(int x) { if (x > 1) { volatile int y = 0; while (true) { y++; } } return x + 1; }\n",
}
# f counts its calls: after f(0) times out, a fresh process's f(5) is its first call (1) and
# f(6), in the same process, its second (2); a process started at f(6) would return 1
COUNTS = {
    "js": (
        "let calls = 0\nconst f = (x) => {\n  calls += 1\n"
        "  if (x === 0) { while (true) {} }\n  return calls\n}\n"
    ),
    "cpp": (
        "int calls = 0;\n"
        "int f(int x) { calls++; if (x == 0) { volatile int y = 0; while (true) { y++; } }"
        " return calls; }\n"
    ),
}


def _test(language: str, pairs: list[tuple[int, int]]) -> str:
    """A HumanEval-X style test asserting ``f(arg) == want`` for each pair, in order."""
    if language == "js":
        lines = "".join(f"  console.assert(f({a}) === {w})\n" for a, w in pairs)
        return f"const testF = () => {{\n{lines}}}\ntestF()\n"
    lines = "".join(f"    assert (f({a}) == {w});\n" for a, w in pairs)
    return f"#include<assert.h>\nint main(){{\n{lines}}}\n"


def _run_both(language: str, source: str, test: str, tmp_path: Path) -> dict[bool, tuple]:
    """Statuses and (resumes started ahead, kept) with speculation on and off, 2 workers."""
    need(language)
    got = {}
    for on in (True, False):
        with Executor(
            language,
            workers=2,
            limits=FAST,
            cache_dir=tmp_path / "builds",  # the second executor reuses the first's build
            speculative_resume=on,
        ) as ex:
            result = ex.run(Program(source, TestCode(test), language=language))
            got[on] = (statuses(result), ex.pool.resumes_ahead, ex.pool.resumes_ahead_kept)
    return got


@pytest.mark.parametrize("language", ["js", "cpp"])
def test_looping_cases_resume_ahead_with_the_same_verdicts(language: str, tmp_path: Path) -> None:
    test = _test(language, [(1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7)])
    got = _run_both(language, LOOPS[language], test, tmp_path)
    assert got[True][0] == got[False][0] == [P, T, T, T, T, T]
    assert got[True][2] >= 1  # a lane started ahead was kept: its timeout is the verdict
    assert got[False][1:] == (0, 0)


@pytest.mark.parametrize("language", ["js", "cpp"])
def test_a_lane_ahead_of_a_passing_case_is_dropped(language: str, tmp_path: Path) -> None:
    test = _test(language, [(0, 1), (5, 1), (6, 2)])
    got = _run_both(language, COUNTS[language], test, tmp_path)
    assert got[True][0] == got[False][0] == [T, P, P]  # f(6) ran after f(5), in its process
    started, kept = got[True][1:]
    assert started == 1 and kept == 0  # the lane started at f(6) got 1 there: dropped
