"""The forked child that runs one program's tests (never imported by the host's hot path).

It runs inside a worker, after ``fork``: it confines itself (new session, rlimits, seccomp),
loads the program, then runs tests ``start..n-1`` one by one with a CPU-time limit each, and
reports one JSON line per test on the result pipe. It never sees expected values and decides
no verdict: for call and stdin tests it reports the return value / stdout and the host
compares; for assertion tests it answers the calls of a test body that the worker runs.

This module is what every mode shares: confinement, the per-test CPU clock, guarded runs and
the result channel. The modes: :mod:`.function_child` (call and assertion tests of a
function) and :mod:`.stdio_child` (standard-input programs); :mod:`.child_entry` dispatches.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import resource
import signal
import sys
import traceback
from typing import Any

_PR_SET_PDEATHSIG = 1
_PR_GET_DUMPABLE = 3  # a read-only prctl: warms up the foreign call, changes nothing
ENCODER = json.JSONEncoder(allow_nan=False, separators=(",", ":"))
try:
    _LIBC: Any = ctypes.CDLL(None, use_errno=True)  # loaded once in the worker, not per child
except OSError:  # pragma: no cover - no dynamic libc
    _LIBC = None
REPLAY_SEED = 20240601
"""``random`` is seeded with this before every fork (so a program's "random" numbers are the
same on every run), and before every assertion test both in the child (the program's draws)
and in the worker that runs the test body (:mod:`.judge`: the test's random inputs)."""


def _import_random_without_fork_reseed() -> Any:
    """``random``, imported without its at-fork hook.

    Why: on import, ``random`` registers a hook that reseeds it from ``os.urandom`` in every
    forked child — 0.1 ms on each program's fork here, for a seed we replace anyway (the
    worker seeds it with ``REPLAY_SEED`` before every fork). Already imported (a host process
    or a test): the module is returned as it is.
    """
    if "random" in sys.modules:
        return sys.modules["random"]
    register = os.register_at_fork
    os.register_at_fork = lambda **_: None  # type: ignore[assignment]
    try:
        import random
    finally:
        os.register_at_fork = register
    return random


random = _import_random_without_fork_reseed()
_PLAIN_SCALARS = (bool, int, float, str, bytes, complex, type(None))


class Timeout(BaseException):
    """Raised by the SIGPROF handler: the test used up its CPU time."""


def _on_sigprof(signum: int, frame: Any) -> None:
    raise Timeout


def install_timeout_handler() -> None:
    """Called once in the worker: forked children inherit the SIGPROF handler."""
    signal.signal(signal.SIGPROF, _on_sigprof)


def warm_up(seccomp: Any) -> None:
    """Called once in the worker: make the foreign calls that :func:`confine` makes.

    Why: ctypes prepares a foreign call on its first use; left to each child, after the
    fork, that costs ~0.1 ms per program (fresh memory touched, copied on write).
    """
    if _LIBC is not None:
        _LIBC.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)
    if seccomp is not None:
        seccomp.warm_up()


def write_all(fd: int, data: bytes) -> None:
    """Write every byte (``os.write`` may write part of it, to a pipe in particular)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


class Channel:
    """The result pipe (close-on-exec, so an exec'd program could not inherit it)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, message: dict[str, Any]) -> None:
        message["c"] = _CLOCK["cpu"]  # lets the worker spot a test stuck in C code early
        data = (ENCODER.encode(message) + "\n").encode()
        write_all(self.fd, data)


def confine(
    job: dict[str, Any], scratch: str, result_fd: int, seccomp: Any, request_fd: int = -1
) -> None:
    """Session, death signal, rlimits, file descriptors and seccomp for this child."""
    os.setsid()
    if _LIBC is not None and not job.get("in_pid_namespace"):
        # the worker dies -> so does the child (inside bubblewrap the PID namespace does it)
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    memory = job["memory_mb"] * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_FSIZE, (job["max_output"], job["max_output"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_NOFILE, (job["nofile"], job["nofile"]))
    limits = sum(test.get("timeout", job["timeout"]) + 1 for test in job["tests"])
    budget = math.ceil(_cpu() + limits + job["timeout"] + 6)
    resource.setrlimit(resource.RLIMIT_CPU, (budget, budget))
    _CLOCK.update(soft=budget, hard=budget)
    if seccomp is None and os.geteuid() != 0:
        resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # ignored for root
    os.chdir(scratch)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    _redirect(1, "stdout")
    _redirect(2, "stderr")
    low = 3
    for keep in sorted(fd for fd in (result_fd, request_fd) if fd >= 0):
        os.closerange(low, keep)
        low = keep + 1
    os.closerange(low, 65536)
    # sys.stdin/stdout/stderr already wrap fds 0/1/2 (UTF-8, set by the worker's environment),
    # which now point at /dev/null and the scratch files; stdio jobs reopen them per test.
    if seccomp is not None:
        seccomp.install()


def _redirect(fd: int, name: str) -> None:
    new = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_NOFOLLOW, 0o600)
    os.dup2(new, fd)
    os.close(new)


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


_CLOCK = {"cpu": 0.0, "soft": -1, "hard": resource.RLIM_INFINITY}
"""This child's CPU clock: last reading, and the RLIMIT_CPU values it set (saves syscalls)."""


def arm(timeout: float) -> float:
    """Start one test's CPU clock: SIGPROF for Python code, RLIMIT_CPU for C loops."""
    now = _cpu()
    soft = min(_CLOCK["hard"], math.ceil(now + timeout) + 1)
    if soft != _CLOCK["soft"]:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, _CLOCK["hard"]))
        _CLOCK["soft"] = soft
    signal.setitimer(signal.ITIMER_PROF, timeout)
    return now


def disarm(started: float) -> float:
    signal.setitimer(signal.ITIMER_PROF, 0)
    _CLOCK["cpu"] = _cpu()
    return _CLOCK["cpu"] - started


def classify(exc: BaseException) -> tuple[str, str]:
    """Map an exception raised by the program to (status, detail)."""
    if isinstance(exc, Timeout):
        return "timeout", "CPU time limit exceeded"
    if isinstance(exc, MemoryError):
        return "memory", "MemoryError (memory limit exceeded)"
    return "runtime_error", describe(exc)


def describe(exc: BaseException) -> str:
    """One line for an exception (its last 500 characters), safe against hostile ``__str__``."""
    try:
        text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    except Exception:  # noqa: BLE001 - a hostile __str__ must not break reporting
        text = type(exc).__name__
    return text[-500:]


def test_limit(job: dict[str, Any], index: int, timed_out: bool) -> float:
    """Test ``index``'s CPU limit: its own (calibrated) or the job's, capped at
    ``after_timeout`` once the program has timed out (the worker computes the same)."""
    limit = job["tests"][index].get("timeout", job["timeout"])
    cap = job.get("after_timeout")
    return min(limit, cap) if timed_out and cap is not None else limit


PROGRAM_RECURSION_LIMIT = sys.getrecursionlimit()
"""The recursion limit a program gets under plain ``python`` (the interpreter's default)."""
FUNCTION_PROGRAM_FRAMES = 1
"""Set when a function program loads, for its call tests: ``_call``'s frame."""
STDIO_PROGRAM_FRAMES = 2
"""Each stdin run: ``_exec_main``'s frame and the ``exec`` call."""


def _frame_depth(frame: Any) -> int:
    depth = 0
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return depth


def run_guarded(
    fn: Any, timeout: float, *, program_frames: int | None = None
) -> tuple[str, str, Any, float]:
    """Run fn() under the per-test CPU limit; (status, detail, value, cpu seconds).

    ``program_frames`` (a program starting: loading a module, a stdin run) gives it the
    recursion headroom plain ``python`` gives a script, counted from the program's own frames
    rather than from ours: without it the harness's frames count against the program, and a
    memoised recursion 998 deep that passes under ``python3`` (APPS 2771) raised
    ``RecursionError`` here. It is how many recursion levels lie between this call and the
    program's first frame beyond those a script has (the interpreter counts the ``exec``
    call itself); ``tests/execution/test_stdio.py`` checks the deepest recursion that passes
    against plain ``python`` on the running interpreter.
    """
    if program_frames is not None:
        sys.setrecursionlimit(
            PROGRAM_RECURSION_LIMIT + _frame_depth(sys._getframe()) + program_frames
        )
    started = arm(timeout)
    try:
        value = fn()
        status, detail = "ok", ""
    except BaseException as exc:  # noqa: BLE001 - the program may raise anything, SystemExit too
        signal.setitimer(signal.ITIMER_PROF, 0)
        status, detail = classify(exc)
        value = None
    return status, detail, value, disarm(started)


def compile_source(source: str, name: str) -> Any:
    """Compile without inheriting this module's ``from __future__`` flags."""
    return compile(source, name, "exec", dont_inherit=True)


def test_function(source: str, namespace: dict[str, Any]) -> Any:
    """Compile an AssertionTest body as ``def _unice_test(candidate): <body>`` via the AST,
    so multi-line strings in the test keep their exact text."""
    import ast

    body = ast.parse(source).body or [ast.Pass()]
    args = ast.arguments(
        posonlyargs=[], args=[ast.arg("candidate")], kwonlyargs=[], kw_defaults=[], defaults=[]
    )
    func = ast.FunctionDef(name="_unice_test", args=args, body=body, decorator_list=[])
    module = ast.fix_missing_locations(ast.Module(body=[func], type_ignores=[]))
    local: dict[str, Any] = {}
    exec(compile(module, "<test>", "exec"), namespace, local)  # noqa: S102 - sandboxed child
    return local["_unice_test"]
