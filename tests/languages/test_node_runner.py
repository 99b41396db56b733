"""JavaScript's runner: many programs in one Node process, each in its own worker thread.

What a program sees must not depend on the programs before it in the same runner: the
statuses equal those of one process per program, globals and built-ins start fresh, files
left in the scratch folders are gone, a program cannot end its run early by forging the
runner's end line, and a program that passes a limit or leaves the process unlike a fresh
one gets the next program a fresh runner. One worker thread, so one runner sees them all.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from data_builders.execution.executor import Executor
from data_builders.execution.types import Program, TestCode
from tests.languages.conftest import LIMITS, need, statuses
from tests.languages.test_hostile import FIND_JS, JS_TEST, LEAVE_JS
from tests.languages.test_programs import JS
from tests.languages.test_programs import JS_TEST as THREE_CASES

TWO_CASES = JS_TEST  # attack() === 0, then ok() === 1


@pytest.fixture
def one_runner(tmp_path: Path):
    need("js")
    with Executor("js", workers=1, limits=LIMITS, cache_dir=tmp_path / "builds") as ex:
        yield ex


def _run(ex: Executor, source: str, test: str = TWO_CASES) -> list[str]:
    return statuses(ex.run(Program(source, TestCode(test), language="js")))


def test_statuses_equal_one_process_per_program(tmp_path: Path) -> None:
    need("js")
    kinds = list(JS)
    got = {}
    for runners in (True, False):
        with Executor(
            "js", workers=1, limits=LIMITS, cache_dir=tmp_path / f"b{runners}", runners=runners
        ) as ex:
            got[runners] = [_run(ex, JS[k], THREE_CASES) for k in kinds]
            if runners:
                assert ex.pool.processes < len(kinds)  # the runner did run them
    assert got[True] == got[False]


def test_globals_and_builtins_start_fresh(one_runner: Executor) -> None:
    spoil = (
        "const ok = () => 1\nconst attack = () => {\n"
        "  globalThis.leaked = 7; Array.prototype.includes = () => true\n"
        "  Object.defineProperty(globalThis, 'console', { value: null }); return 0\n}\n"
    )
    check = (
        "const ok = () => 1\n"
        "const attack = () => (typeof leaked) === 'undefined' && ![1].includes(2) ? 0 : 1\n"
    )
    assert _run(one_runner, spoil) == ["pass", "pass"]
    assert _run(one_runner, check) == ["pass", "pass"]


def test_no_files_left_for_the_next_program(one_runner: Executor) -> None:
    assert _run(one_runner, LEAVE_JS) == ["pass", "pass"]
    assert _run(one_runner, FIND_JS) == ["pass", "pass"]


def test_a_forged_end_line_does_not_end_the_run(one_runner: Executor) -> None:
    forge = (
        "const ok = () => 2\nconst attack = () => {\n  const fs = require('fs')\n"
        "  const fd = Number(process.argv[3])\n"
        "  fs.writeSync(fd, 'X 00 0 \\n'); fs.writeSync(fd, 'P 1\\n'); return 0\n}\n"
    )
    assert _run(one_runner, forge) == ["pass", "wrong_answer"]
    assert _run(one_runner, JS["correct"], THREE_CASES) == ["pass", "pass", "pass"]


LOCKED = (
    "const fs = require('fs'); fs.mkdirSync('/tmp/locked'); fs.writeFileSync('/tmp/locked/f', 'x');"
    " fs.chmodSync('/tmp/locked', 0); return 0"
)
FRESH = (
    "const ok = () => 1\nconst attack = () => {\n  const fs = require('fs')\n"
    "  return fs.existsSync('/tmp/locked') || (typeof leaked) !== 'undefined' ? 1 : 0\n}\n"
)


@pytest.mark.parametrize(
    ("attack", "expected"),
    [
        (LOCKED, "pass"),
        ("globalThis.leaked = 1; process.kill(process.pid, 'SIGKILL')", "signal"),
    ],
    ids=["undeletable_scratch", "runtime_killed"],
)
def test_a_spoiled_runner_is_replaced(one_runner: Executor, attack: str, expected) -> None:
    """A scratch folder it cannot empty (the runner retires itself), the runtime killed from
    inside: the next program runs in a fresh runner."""
    source = f"const ok = () => 1\nconst attack = () => {{ {attack} }}\n"
    assert _run(one_runner, source)[0] == expected
    before = one_runner.pool.processes
    assert before >= 1  # the spoiled runner is gone
    assert _run(one_runner, FRESH) == ["pass", "pass"]
    assert one_runner.pool.processes == before  # it ran in the new runner, which is still up


def test_map_after_map_reuses_the_runners(tmp_path: Path) -> None:
    """A build maps chunk after chunk: each worker thread keeps its one runner."""
    need("js")
    with Executor("js", workers=2, limits=LIMITS, cache_dir=tmp_path / "builds") as ex:
        for _ in range(3):
            chunk = [Program(JS["correct"], TestCode(THREE_CASES), language="js") for _ in range(4)]
            assert [statuses(r) for r in ex.map(chunk)] == [["pass"] * 3] * 4
        assert 1 <= len(ex.pool._runners) <= 2
        assert ex.pool.processes == 0


def test_random_draws_are_the_same_in_every_run(tmp_path: Path) -> None:
    """A test drawing its inputs with ``Math.random`` (HumanEval-X's JavaScript/32) gives one
    verdict per program, in a runner and in a process of its own alike; with Node's own
    unseeded generator these 24 coin flips would match between runs once in 2**24."""
    need("js")
    source = "const coin = () => Math.random() < 0.5\n"
    flips = "".join("  console.assert(coin())\n" for _ in range(24))
    test = f"const testCoin = () => {{\n{flips}}}\ntestCoin()\n"
    runs = []
    for runners in (True, True, False):
        with Executor(
            "js", workers=1, limits=LIMITS, cache_dir=tmp_path / f"b{len(runs)}", runners=runners
        ) as ex:
            runs.append(_run(ex, source, test))
    assert runs[0] == runs[1] == runs[2]
    assert {"pass", "wrong_answer"} <= set(runs[0])  # real draws, both ways


def test_a_program_past_its_limit_is_stopped_and_the_runner_lives_on(one_runner: Executor) -> None:
    """A looping case is stopped by the runner (its worker terminated) when the host sees it
    pass its limit: that case is a timeout, the next case resumes in the same runner, and the
    next program finds nothing the looping one left (no runner start for either)."""
    source = "const ok = () => 1\nconst attack = () => { globalThis.leaked = 1; while (true) {} }\n"
    assert _run(one_runner, source) == ["timeout", "pass"]
    assert one_runner.pool.processes == 0  # no runner was killed or retired
    assert _run(one_runner, FRESH) == ["pass", "pass"]
    assert one_runner.pool.processes == 0


def test_a_program_that_does_not_stop_takes_the_runner_with_it(one_runner: Executor) -> None:
    """A program blocked in a system call (reading the runner's own request pipe, opened
    anew so that it blocks) cannot be stopped by V8 and takes the stop request itself: after
    the grace period the host kills the runner, and the next program runs in a fresh one."""
    source = (
        "const ok = () => 1\nconst attack = () => {\n  globalThis.leaked = 1\n"
        "  require('fs').readFileSync('/proc/self/fd/0')\n  return 0\n}\n"
    )
    assert _run(one_runner, source)[0] == "timeout"
    assert one_runner.pool.processes >= 1  # the runner was killed
    before = one_runner.pool.processes
    assert _run(one_runner, FRESH) == ["pass", "pass"]
    assert one_runner.pool.processes == before


def test_the_runner_refuses_to_start_outside_the_sandbox(tmp_path: Path) -> None:
    """It empties /tmp after every program, so started by hand it must not run at all (it exits
    before reading a request: with no request on stdin it would never empty anything, so this
    test cannot damage the machine even if the guard broke)."""
    import shutil
    import subprocess

    import data_builders.execution.compiled.languages as languages

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    canary = tmp_path / "canary"
    canary.write_text("kept")
    runner = Path(languages.__file__).parent / "node_runner.js"
    done = subprocess.run(
        [node, str(runner), "1"], cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True,
        text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 78 and "runs only inside UniCE's sandbox" in done.stderr
    assert canary.read_text() == "kept"


def test_without_bubblewrap_every_program_gets_a_process_of_its_own(tmp_path: Path) -> None:
    """A runner empties /tmp between programs, so it runs only where /tmp is the sandbox's."""
    need("js")
    with Executor("js", workers=1, limits=LIMITS, isolation="rlimits", cache_dir=tmp_path) as ex:
        assert not ex.pool.use_runners
        assert _run(ex, JS["wrong"], THREE_CASES) == ["pass", "pass", "wrong_answer"]
        assert ex.pool.processes == 1
