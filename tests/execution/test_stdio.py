"""Standard-input programs run as ``__main__`` with real file descriptors."""

from __future__ import annotations

import subprocess
import sys

from data_builders.execution import CallTest, Executor, Program, StdioTest

TRICKY = '''
import sys

TEMPLATE = """line one
  line two"""
count = 0


def bump():
    global count
    count += 1


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    bump()
    print(TEMPLATE.splitlines()[1].strip(), n * count)
    if n < 0:
        exit()
    sys.stdout.write(str(n + 1) + "\\n")


if __name__ == "__main__":
    main()
'''


def test_main_guard_globals_multiline_strings_and_buffer(executor: Executor) -> None:
    tests = [StdioTest("5\n", "line two 5\n6\n"), StdioTest("-1", "line two -1"), StdioTest("7\n")]
    result = executor.run(Program(TRICKY, tests))
    assert [o.status for o in result.outcomes] == ["pass", "pass", "pass"]
    assert result.outcomes[2].output == "line two 7\n8\n"  # fresh globals: count restarts


def test_exit_status_and_errors(executor: Executor) -> None:
    program = "import sys\nx = int(input())\nprint(x)\nif x == 1:\n    sys.exit(3)\nif x == 2:\n    1 / 0\n"
    tests = [StdioTest("0", "0"), StdioTest("1", "1"), StdioTest("2", "2"), StdioTest("0", "1")]
    result = executor.run(Program(program, tests))
    statuses = [o.status for o in result.outcomes]
    assert statuses == ["pass", "runtime_error", "runtime_error", "wrong_answer"]
    assert "exited with status 3" in result.outcomes[1].detail
    assert result.pass_ratio == 0.25


def test_os_exit_zero_keeps_flushed_output_like_a_real_process(executor: Executor) -> None:
    program = "import os, sys\nprint(input(), flush=True)\nprint('lost')\nos._exit(0)\n"
    result = executor.run(Program(program, [StdioTest("a\n", "a\n"), StdioTest("b\n")]))
    assert [o.status for o in result.outcomes] == ["pass", "pass"]
    assert result.outcomes[1].output == "b\n"  # unflushed 'lost' is lost, as with CPython


def test_compile_error_and_timeouts(executor: Executor) -> None:
    broken = executor.run(Program("print(\n", [StdioTest("", "")] * 3))
    assert broken.status_counts["compile_error"] == 3 and not broken.executable
    slow = "n = int(input())\nwhile n:\n    pass\nprint('done')\n"
    result = executor.run(
        Program(slow, [StdioTest("0", "done"), StdioTest("1", "done")], timeout=0.5)
    )
    assert [o.status for o in result.outcomes] == ["pass", "timeout"]


def test_numeric_tolerance_applies_in_the_host(executor: Executor) -> None:
    program = "print(1 / 3)\nprint(10 ** 9)\n"
    result = executor.run(
        Program(
            program, [StdioTest("", "0.333333\n1000000000"), StdioTest("", "0.3333\n1000000000")]
        )
    )
    assert [o.status for o in result.outcomes] == ["pass", "wrong_answer"]


def test_many_tests_in_one_fork(executor: Executor) -> None:
    tests = [StdioTest(f"{i} {i + 1}\n", f"{2 * i + 1}\n") for i in range(300)]
    result = executor.run(Program("a, b = map(int, input().split())\nprint(a + b)\n", tests))
    assert result.passed and result.n_tests == 300


def test_main_in_a_big_stack_thread_is_waited_for(executor: Executor) -> None:
    program = (
        "import sys, threading\n"
        "sys.setrecursionlimit(100000)\n"
        "threading.stack_size(2**26)\n"
        "def depth(n):\n"
        "    return 0 if n == 0 else 1 + depth(n - 1)\n"
        "def main():\n"
        "    print(depth(int(input())))\n"
        "threading.Thread(target=main).start()\n"
    )
    result = executor.run(Program(program, [StdioTest("20000\n", "20000\n"), StdioTest("5", "5")]))
    assert [o.status for o in result.outcomes] == ["pass", "pass"]


def test_buffered_output_never_leaks_into_the_next_test(executor: Executor) -> None:
    program = (
        "s = input()\n"
        "print('junk', end='')\n"
        "if s == 'loop':\n"
        "    while True:\n"
        "        pass\n"
        "print('done')\n"
    )
    tests = [StdioTest("loop"), StdioTest("x"), StdioTest("loop"), StdioTest("y")]
    result = executor.run(Program(program, tests, timeout=0.3))
    assert [o.status for o in result.outcomes] == ["timeout", "pass", "timeout", "pass"]
    assert result.outcomes[1].output == result.outcomes[3].output == "junkdone\n"


def test_own_stdout_wrapper_is_flushed_like_at_interpreter_exit(executor: Executor) -> None:
    program = (
        "import io, sys\n"
        "sys.stdout = io.TextIOWrapper(sys.stdout.buffer, encoding='utf-8')\n"
        "sys.stdout.write(input()[::-1])\n"
    )
    result = executor.run(Program(program, [StdioTest("abc", "cba"), StdioTest("xy", "yx")]))
    assert [o.status for o in result.outcomes] == ["pass", "pass"]


DEPTH_FUNCTION = "def depth(n):\n    return 0 if n == 0 else 1 + depth(n - 1)\n"
DEPTH_SCRIPT = DEPTH_FUNCTION + "print(depth(int(input())))\n"
DEPTHS = range(980, 1011)


def _deepest_under_plain_python() -> int:
    """The deepest ``depth(n)`` a script may run under ``python`` on this interpreter."""

    def passes(n: int) -> bool:
        run = subprocess.run(
            [sys.executable, "-c", DEPTH_SCRIPT],
            input=f"{n}\n",
            capture_output=True,
            text=True,
            timeout=30,
        )
        return run.returncode == 0

    deepest = max(n for n in DEPTHS if passes(n))
    assert DEPTHS[0] < deepest < DEPTHS[-1], "the scan must bracket the limit"
    return deepest


def test_a_program_gets_exactly_the_recursion_headroom_of_plain_python(executor: Executor) -> None:
    """The harness's own frames must not count against the program (APPS 2771: a memoised
    recursion 998 deep passes under ``python3`` and failed in the sandbox), nor may a program
    get more room than ``python`` gives it."""
    deepest = _deepest_under_plain_python()
    stdio = executor.run(Program(DEPTH_SCRIPT, [StdioTest(f"{n}\n", f"{n}\n") for n in DEPTHS]))
    calls = executor.run(
        Program(DEPTH_FUNCTION, [CallTest([n], n) for n in DEPTHS], entry_point="depth")
    )
    for result in (stdio, calls):
        passing = [
            n
            for n, outcome in zip(DEPTHS, result.outcomes, strict=True)
            if outcome.status == "pass"
        ]
        assert passing == list(range(DEPTHS[0], deepest + 1))


def test_a_limit_the_program_raises_at_load_holds_for_its_calls(executor: Executor) -> None:
    source = "import sys\nsys.setrecursionlimit(20000)\n" + DEPTH_FUNCTION
    result = executor.run(Program(source, [CallTest([5000], 5000)], entry_point="depth"))
    assert result.passed
