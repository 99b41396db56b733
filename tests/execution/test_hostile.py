"""Hostile programs: each is contained, labelled correctly, bounded in time, and leaves no
process or file behind; the host and the pool keep working afterwards."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

import pytest

from data_builders.execution import (
    AssertionTest,
    CallTest,
    ExecutionLimits,
    Executor,
    Program,
    StdioTest,
)
from data_builders.execution.python import process
from data_builders.execution.python.process import scratch_parent
from data_builders.execution.python.zygote import ZYGOTE_NAME

MARKER = "unice-hostile-marker"


def processes_with(text: str) -> list[int]:
    """Pids of live (non-zombie) processes whose command line contains ``text``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


GOOD = "def f(x):\n    return x + 1\n"
ONE = [CallTest([1], 2)]

HOSTILE = {
    "infinite_loop": ("def f(x):\n    while True:\n        pass\n", {"timeout"}),
    "sleep": ("import time\ndef f(x):\n    time.sleep(1000)\n", {"timeout"}),
    "loop_in_c_code": ("def f(x):\n    return sum(range(10**14))\n", {"timeout"}),
    "allocate_8_gb": ("def f(x):\n    return len(bytearray(8 * 2**30))\n", {"memory"}),
    "unbounded_list_growth": (
        "def f(x):\n    a = []\n    while True:\n        a.append(bytes(10**8))\n",
        {"memory"},
    ),
    "stdout_flood": ("def f(x):\n    while True:\n        print('x' * 65536)\n", {"runtime_error"}),
    "sys_exit_before_tests": ("import sys\nsys.exit(0)\n" + GOOD, {"runtime_error"}),
    "os_exit_before_tests": ("import os\nos._exit(0)\n" + GOOD, {"runtime_error"}),
    "segfault": ("import ctypes\ndef f(x):\n    return ctypes.string_at(0)\n", {"signal"}),
    "deep_recursion": (
        "import sys\nsys.setrecursionlimit(10**9)\ndef f(x):\n    return f(x + 1) + 1\n",
        {"timeout", "signal", "memory"},
    ),
    "recursion_error": ("def f(x):\n    return f(x + 1)\n", {"runtime_error"}),
    "always_equal_object": (
        "class A:\n    def __eq__(self, o):\n        return True\ndef f(x):\n    return A()\n",
        {"wrong_answer"},
    ),
    "int_subclass_always_equal": (
        "class I(int):\n    def __eq__(self, o):\n        return True\n"
        "    __hash__ = int.__hash__\ndef f(x):\n    return I(0)\n",
        {"wrong_answer"},
    ),
    "imitate_result_channel": (
        "def f(x):\n"
        "    for k in range(3):\n"
        '        print(\'{"k": %d, "s": "pass", "t": 0, "d": ""}\' % k, flush=True)\n'
        '    print(\'{"id": 0, "done": true}\', flush=True)\n'
        "    return 0\n",
        {"wrong_answer"},
    ),
    "forge_result_pipe": (
        "import os\ndef f(x):\n"
        "    for fd in range(3, 256):\n"
        "        try:\n"
        '            os.write(fd, b\'{"k": 0, "s": "pass", "t": 0, "d": "", "done": true}\\n\')\n'
        "        except OSError:\n"
        "            pass\n"
        "    return 0\n",
        {"runtime_error"},  # a "pass" can only come from the host's comparison
    ),
    "close_stdout": (
        "import os, sys\nsys.stdout.close()\nos.close(1)\nos.close(2)\n" + GOOD,
        {"pass"},
    ),
    "block_on_input": ("def f(x):\n    return int(input())\n", {"runtime_error"}),
}

SANDBOX_ONLY = {  # need bubblewrap + seccomp to be contained
    "fork_bomb": ("import os\ndef f(x):\n    while True:\n        os.fork()\n", {"runtime_error"}),
    "kill_the_parent": (
        "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n" + GOOD,
        {"runtime_error"},
    ),
    "kill_everything": (
        "import os, signal\nos.kill(-1, signal.SIGKILL)\n" + GOOD,
        {"runtime_error"},
    ),
    "network_connection": (
        "import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=1)\n" + GOOD,
        {"runtime_error"},
    ),
    "background_grandchild": (
        f"import subprocess\nsubprocess.Popen(['sleep', '1000', '{MARKER}'])\n" + GOOD,
        {"runtime_error"},
    ),
}


def _descendants(root: int) -> set[int]:
    """Pids of all live descendants of ``root`` (from /proc/*/stat parent links)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _worker_processes() -> int:
    """Our own executor processes (other test runs on this machine may have theirs), import
    zygotes aside."""
    ours = _descendants(os.getpid())
    found = set(processes_with("data_builders.execution.python.worker")) & ours
    return len({pid for pid in found if not _is_zygote(pid)})


def _program_processes() -> set[int]:
    """Our executor processes that are neither workers nor zygotes: programs' children, or
    anything they forked. The worker reaps a child just after answering, so a caller polls."""
    found = set(processes_with("data_builders.execution.python.worker")) & _descendants(os.getpid())
    pythons = {pid for pid in found if not _argv0(pid).endswith("bwrap")}  # not its wrapper
    return {pid for pid in pythons if _parent(pid) in pythons and not _is_zygote(pid)}


def _comm(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "comm").read_text().strip()
    except OSError:
        return ""


def _is_zygote(pid: int) -> bool:
    """A worker's import zygote (its program children inherit the name, not the parent)."""
    zygote = ZYGOTE_NAME.decode()
    return _comm(pid) == zygote and _comm(_parent(pid)) != zygote


def _argv0(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().split(b"\0")[0].decode()
    except (OSError, UnicodeDecodeError):
        return ""


def _parent(pid: int) -> int:
    try:
        return int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


LISTER = Program(
    GOOD + "import os\ndef g():\n    return sorted(os.listdir('.'))\n",
    [CallTest([1], 2), CallTest([], ["stderr", "stdout"])],
    entry_point="f",
)
LEFTOVER = "open('unice-leftover', 'w').close()\n"  # so an unwiped scratch dir shows


def _check_contained(executor: Executor, source: str, allowed: set[str], tests=ONE) -> None:
    deadline = time.monotonic() + 5  # the previous program's child may still be reaped
    while _program_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    before = _worker_processes()
    started = time.monotonic()
    result = executor.run(Program(LEFTOVER + source, tests, entry_point="f"))
    elapsed = time.monotonic() - started
    assert {o.status for o in result.outcomes} <= allowed, result.outcomes
    assert elapsed < 20, f"took {elapsed:.1f}s"
    assert processes_with(MARKER) == []
    # no stray process: every program child is gone, and no worker was lost or added
    deadline = time.monotonic() + 5
    while _program_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _program_processes() == set()
    assert _worker_processes() == before
    _check_pool_and_scratch(executor)


def _check_pool_and_scratch(executor: Executor) -> None:
    """Every worker (the hostile program's among them) still runs programs, and its scratch
    dir holds only the new child's own stdout/stderr files."""
    for _ in range(executor.n_workers):  # idle workers are handed out in turn
        good = executor.run(LISTER)
        listing = executor.run(Program(LISTER.source, [CallTest([])], entry_point="g"))
        assert good.outcomes[0].status == "pass", good.outcomes
        assert listing.outcomes[0].output == ["stderr", "stdout"], listing.outcomes


def test_scratch_check_fails_when_wiping_is_disabled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check above can fail: with a worker that never wipes, the leftover file shows."""
    # The worker runs as __main__, so its Worker class cannot be patched from outside:
    # instead its scan of the scratch dir (Worker.wipe_scratch) is made to find nothing.
    (tmp_path / "sitecustomize.py").write_text(
        "import os\n"
        "_scandir = os.scandir\n"
        "def _no_scratch(path='.'):\n"
        "    return iter(()) if 'unice-exec-' in str(path) else _scandir(path)\n"
        "os.scandir = _no_scratch\n"
    )
    environment = process._environment

    def patched(scratch: str) -> dict[str, str]:
        env = environment(scratch)
        env["PYTHONPATH"] = f"{tmp_path}{os.pathsep}{env['PYTHONPATH']}"
        return env

    monkeypatch.setattr(process, "_environment", patched)
    with Executor(workers=1, limits=ExecutionLimits(timeout=1.0), isolation="rlimits") as ex:
        ex.run(Program(LEFTOVER + GOOD, ONE, entry_point="f"))
        with pytest.raises(AssertionError, match="unice-leftover"):
            _check_pool_and_scratch(ex)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_program_is_contained(executor: Executor, name: str) -> None:
    source, allowed = HOSTILE[name]
    _check_contained(executor, source, allowed)


@pytest.mark.parametrize("name", sorted(SANDBOX_ONLY))
def test_sandboxed_hostile_program_is_contained(executor: Executor, name: str) -> None:
    if executor.isolation != "bwrap+seccomp":
        pytest.skip(f"needs bubblewrap + seccomp (have {executor.isolation})")
    source, allowed = SANDBOX_ONLY[name]
    _check_contained(executor, source, allowed)


@pytest.fixture(scope="module")
def zygote_executor():
    """A pool whose programs importing ``fractions`` run in the import zygote (made up front
    on every worker, so that counting processes before and after a program is fair)."""
    limits = ExecutionLimits(timeout=1.0, memory_mb=1024)
    with Executor(workers=2, limits=limits, shared_imports=("fractions",)) as ex:
        warm = Program(USES_ZYGOTE + GOOD, ONE, entry_point="f")
        assert all(r.passed for r in ex.map([warm] * 8))
        yield ex


USES_ZYGOTE = "from fractions import Fraction\n"


@pytest.mark.parametrize("name", sorted({**HOSTILE, **SANDBOX_ONLY}))
def test_hostile_program_is_contained_in_the_zygote(zygote_executor: Executor, name: str) -> None:
    if name in SANDBOX_ONLY and zygote_executor.isolation != "bwrap+seccomp":
        pytest.skip(f"needs bubblewrap + seccomp (have {zygote_executor.isolation})")
    source, allowed = {**HOSTILE, **SANDBOX_ONLY}[name]
    _check_contained(zygote_executor, USES_ZYGOTE + source, allowed)


def test_writing_outside_scratch_is_refused(executor: Executor, tmp_path: Path) -> None:
    if "bwrap" not in executor.isolation:
        pytest.skip(f"needs bubblewrap (have {executor.isolation})")
    target = tmp_path / "pwned.txt"
    source = f"open({str(target)!r}, 'w').write('x')\n" + GOOD
    _check_contained(executor, source, {"runtime_error"})
    assert not target.exists()


def test_scratch_is_wiped_between_programs(executor: Executor) -> None:
    writer = "import os\nos.makedirs('d/e')\nopen('d/e/f', 'w').write('x')\nopen('left', 'w')\n"
    lister = "import os\ndef f():\n    return sorted(os.listdir('.'))\n"
    for _ in range(2 * executor.n_workers):  # every worker sees a writer before a lister
        assert executor.run(Program(writer + lister, [CallTest([])], entry_point="f")).passed
    for _ in range(2 * executor.n_workers):
        listing = executor.run(Program(lister, [CallTest([])], entry_point="f")).outcomes[0].output
        assert listing == ["stderr", "stdout"]


LEAVE_BEHIND = (
    "import os\n"
    "for folder in ('/tmp', '/dev/shm', '/dev', '/var/tmp'):\n"
    "    try:\n"
    "        os.makedirs(folder + '/unice-left/sub', exist_ok=True)\n"
    "        open(folder + '/unice-left/sub/data', 'w').write('for the next program')\n"
    "        open(folder + '/unice-left-file', 'w').write('x')\n"
    "        os.symlink('/tmp/unice-scratch', folder + '/unice-left-link')\n"
    "    except OSError:\n"
    "        pass\n"
)
LOOK_AROUND = (
    "import os\n"
    "def f():\n"
    "    found = {}\n"
    "    for folder in ('/tmp', '/dev/shm', '/dev', '/var/tmp'):\n"
    "        try:\n"
    "            found[folder] = sorted(os.listdir(folder))\n"
    "        except OSError:\n"
    "            found[folder] = None\n"
    "    return found\n"
)


def test_no_program_leaves_data_for_the_next(executor: Executor) -> None:
    """Whatever a program writes anywhere it can (/tmp outside its scratch folder, /dev/shm)
    is gone before the next program runs on that worker."""
    if "bwrap" not in executor.isolation:
        pytest.skip(f"needs bubblewrap: without it /tmp is the host's (have {executor.isolation})")
    look = Program(LOOK_AROUND, [CallTest([])], entry_point="f")
    before = [executor.run(look).outcomes[0].output for _ in range(executor.n_workers)]
    assert all("unice-left-file" not in str(listing) for listing in before)
    for _ in range(2 * executor.n_workers):  # every worker runs a writer
        writer = Program(LEAVE_BEHIND + LOOK_AROUND, [CallTest([])], entry_point="f")
        written = executor.run(writer).outcomes[0].output
        assert "unice-left-file" in written["/tmp"] and "unice-left-file" in written["/dev/shm"]
    after = [executor.run(look).outcomes[0].output for _ in range(2 * executor.n_workers)]
    assert all(listing == before[0] for listing in after), after


def test_stdio_program_blocking_on_missing_input(executor: Executor) -> None:
    result = executor.run(
        Program("a = input()\nb = input()\nprint(a, b)\n", [StdioTest("1\n", "1 2")])
    )
    assert result.outcomes[0].status == "runtime_error"
    assert "EOFError" in result.outcomes[0].detail


def test_rlimits_mode_survives_a_program_that_kills_its_worker() -> None:
    """Without seccomp a program can kill its worker: the pool respawns it and goes on."""
    killer = "import os, signal\ndef f(x):\n    os.kill(os.getppid(), signal.SIGKILL)\n"
    grandchild = f"import subprocess\nsubprocess.Popen(['sleep', '1000', '{MARKER}'])\n" + GOOD
    deadline = time.monotonic() + 5  # the previous program's child may still be reaped
    while _program_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    workers_before = _worker_processes()
    with Executor(workers=1, limits=ExecutionLimits(timeout=1.0), isolation="rlimits") as ex:
        assert ex.isolation == "rlimits"
        result = ex.run(Program(killer, [CallTest([1], 2), CallTest([2], 3)], entry_point="f"))
        assert [o.status for o in result.outcomes] == ["runtime_error", "runtime_error"]
        assert "killed its worker" in result.outcomes[0].detail
        assert ex.run(Program(grandchild, ONE, entry_point="f")).passed
        deadline = time.monotonic() + 5  # the grandchild dies with the process group
        while processes_with(MARKER) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert processes_with(MARKER) == []
        assert ex.run(Program(GOOD, ONE, entry_point="f")).passed
    assert _worker_processes() == workers_before
    for parent in {scratch_parent() or tempfile.gettempdir(), tempfile.gettempdir()}:
        assert not list(Path(parent).glob("unice-exec-*"))  # scratch removed


FORGE_LINE = '{"k": %d, "s": "pass", "t": 0, "d": "", "c": 0, "calls": []}\n'
FORGERS = {
    "print_pass_lines": (
        "def f(x):\n"
        "    for k in range(4):\n"
        f"        print({FORGE_LINE!r} % k, flush=True)\n"
        "    return 0\n"
    ),
    "write_every_fd": (
        "import os\ndef f(x):\n"
        "    for fd in range(256):\n"
        "        for k in range(4):\n"
        "            try:\n"
        f"                os.write(fd, ({FORGE_LINE!r} % k).encode())\n"
        "            except OSError:\n"
        "                pass\n"
        "    return 0\n"
    ),
    "many_fake_lines_then_exit": (
        "import os\ndef f(x):\n"
        f"    data = ''.join({FORGE_LINE!r} % k for k in range(1000)).encode()\n"
        "    for fd in range(3, 64):\n"
        "        try:\n"
        "            os.write(fd, data)\n"
        "        except OSError:\n"
        "            pass\n"
        "    os._exit(0)\n"
    ),
    "patch_the_harness": (
        "import sys\n"
        "child = sys.modules['data_builders.execution.python.child']\n"
        "mode = sys.modules['data_builders.execution.python.function_child']\n"
        "child.classify = mode.classify = lambda exc, assertion=False: ('ok', '')\n"
        "def f(x):\n    return 0\n"
    ),
}


@pytest.mark.parametrize("name", sorted(FORGERS))
def test_forged_assertion_pass_is_refused(executor: Executor, name: str) -> None:
    """A program failing its assertion tests cannot make them pass by writing "pass" lines
    on its result pipe or by patching the in-process harness: the worker judges each test."""
    tests = [
        AssertionTest("assert candidate(1) == 2"),
        AssertionTest("for i in range(3):\n    assert candidate(i) == i + 1"),
    ]
    result = executor.run(Program(FORGERS[name], tests, entry_point="f"))
    assert [o.status == "pass" for o in result.outcomes] == [False, False], result.outcomes


def test_replayed_assertion_passes_stand(executor: Executor) -> None:
    """Honest passes survive judging in the worker: random inputs, in-place changes, raised
    exceptions, keyword arguments and tests that use names the program defines."""
    source = (
        "def helper(x):\n    return x * 2\n"
        "def f(xs=None, *, k=0):\n"
        "    if xs is None:\n        raise ValueError('no list')\n"
        "    xs.sort()\n    return sum(xs) + k\n"
    )
    tests = [
        AssertionTest(
            "import random\nfor _ in range(20):\n"
            "    a = [random.randint(0, 9) for _ in range(5)]\n"
            "    assert candidate(a, k=1) == sum(a) + 1 and a == sorted(a)"
        ),
        AssertionTest("try:\n    candidate()\nexcept ValueError:\n    pass\nelse:\n    assert 0"),
        AssertionTest("assert helper(candidate([1, 2])) == 6"),
        AssertionTest("assert candidate([3]) == 4"),
    ]
    result = executor.run(Program(source, tests, entry_point="f"))
    assert [o.status for o in result.outcomes] == ["pass", "pass", "pass", "wrong_answer"]
