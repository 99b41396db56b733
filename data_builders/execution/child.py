"""The forked child that runs one program's tests (never imported by the host's hot path).

It runs inside a worker, after ``fork``: it confines itself (new session, rlimits, seccomp),
loads the program, then runs tests ``start..n-1`` one by one with a CPU-time limit each, and
reports one JSON line per test on the result pipe. It never sees expected values and decides
no verdict: for call and stdin tests it reports the return value / stdout and the host
compares; for assertion tests it answers the calls of a test body that the worker runs.
"""

from __future__ import annotations

import builtins
import collections
import ctypes
import functools
import json
import math
import os
import resource
import signal
import sys
import traceback
from typing import Any

from data_builders.execution.values import ValueCodecError, decode_value, encode_value

_PR_SET_PDEATHSIG = 1
_PR_GET_DUMPABLE = 3  # a read-only prctl: warms up the foreign call, changes nothing
_ENCODER = json.JSONEncoder(allow_nan=False, separators=(",", ":"))
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
        data = (_ENCODER.encode(message) + "\n").encode()
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


def _resolve(namespace: dict[str, Any], entry_point: str) -> Any:
    head, _, method = entry_point.partition(".")
    target = namespace[head]
    if method:
        target = getattr(target(), method)
    return target


class Requests:
    """The worker's requests during an assertion test (a pipe only the worker writes to)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def next(self) -> dict[str, Any]:
        while b"\n" not in self.buffer:
            chunk = os.read(self.fd, 1 << 20)
            if not chunk:
                raise EOFError("the worker closed the request pipe")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)


def _builtin_name(kind: type) -> str:
    """The most derived builtin class of an exception (the worker raises that in the test)."""
    for base in kind.__mro__:
        if getattr(builtins, base.__name__, None) is base:
            return base.__name__
    return "Exception"


def serve_assertion(
    index: int, namespace: dict[str, Any], entry: str | None, requests: Requests, channel: Channel,
    timeout: float,
) -> bool:  # fmt: skip
    """Answer the worker's calls for assertion test ``index`` until it says ``end``; True
    when a call ran out of time.

    The test body runs in the worker (:mod:`.judge`), never here: this process only turns
    plain arguments into calls and return values into plain data. Whatever the program does
    to this process, all it can send back is values. The test's CPU limit covers all its
    calls together.
    """
    random.seed(REPLAY_SEED)  # the program's own draws repeat from test to test
    channel.send({"k": index, "s": "serve"})
    left, targets, timed_out = timeout, {}, False
    while True:
        request = requests.next()
        if "end" in request:
            return timed_out
        if "names" in request:
            channel.send(
                {"n": {name: _describe_name(namespace, name) for name in request["names"]}}
            )
            continue
        name = request.get("call")
        try:
            if name not in targets:  # the entry point is resolved once per test, as a test would
                targets[name] = _resolve(namespace, entry) if name is None else namespace[name]
            target = targets[name]
            args, kwargs = decode_value(request["a"]), decode_value(request["kw"])
        except Exception as exc:  # noqa: BLE001 - e.g. Solution() raising
            channel.send({"e": _builtin_name(type(exc)), "d": describe(exc)})
            continue
        reply, used = _answer(target, args, kwargs, request["a"], max(left, 0.001))
        left -= used
        timed_out |= reply.get("x") == "timeout"
        channel.send(reply)


def _answer(target: Any, args: list[Any], kwargs: dict[str, Any], sent: Any, timeout: float) -> Any:
    """One call, under what is left of the test's CPU time; (reply, CPU seconds)."""
    started = arm(timeout)
    reply: dict[str, Any] = {}
    try:
        value = target(*args, **kwargs)
        signal.setitimer(signal.ITIMER_PROF, 0)
    except Exception as exc:  # noqa: BLE001 - raised by the program: the test may expect it
        signal.setitimer(signal.ITIMER_PROF, 0)
        if isinstance(exc, MemoryError):
            reply = {"x": "memory", "d": describe(exc)}
        else:
            reply = {"e": _builtin_name(type(exc)), "d": describe(exc)}
    except BaseException as exc:  # noqa: BLE001 - Timeout, SystemExit, ...
        signal.setitimer(signal.ITIMER_PROF, 0)
        status, detail = classify(exc)
        reply = {"x": status, "d": detail}
    if not reply:
        try:
            reply = {"r": encode_value(value)}
        except (ValueCodecError, RecursionError) as exc:
            reply = {
                "x": "wrong_answer",
                "d": f"the program returned a value that cannot cross: {exc}",
            }
    used = disarm(started)
    if "x" not in reply:
        try:
            after = encode_value(args)
            if after != sent:
                reply["m"] = after
        except (ValueCodecError, RecursionError):
            reply = {"x": "runtime_error", "d": "the program left a non-plain value in an argument"}
    return reply, used


def _describe_name(namespace: dict[str, Any], name: str) -> list[Any]:
    """How the worker may bind a program name its test uses (see judge.bind_program_names)."""
    if name not in namespace:
        return ["missing"]
    value = namespace[name]
    if type(value) is type(sys):
        return ["module", getattr(value, "__name__", "")]
    if callable(value):
        return ["call"]
    try:
        return ["value", encode_value(value)]
    except (ValueCodecError, RecursionError):
        return ["missing"]


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


def run_function_job(
    job: dict[str, Any], start: int, channel: Channel, requests: Requests | None = None
) -> None:
    """Load a function program once, then run tests start..n-1 (assertion tests are judged
    by the worker, which sends its calls on ``requests``)."""
    tests, timeout = job["tests"], job["timeout"]
    namespace: dict[str, Any] = {}
    try:
        code = compile_source(job["source"] + "\n" + job["setup"], "<program>")
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as exc:
        channel.send({"k": -1, "s": "compile_error", "d": describe(exc)})
        return
    status, detail, _, _ = run_guarded(
        lambda: exec(code, namespace),  # noqa: S102
        timeout,
        program_frames=FUNCTION_PROGRAM_FRAMES,
    )
    channel.send({"k": -1, "s": status, "d": detail})
    if status != "ok":
        return
    entry = job.get("entry_point")
    timed_out = job.get("_timeouts", 0) > 0
    for index in range(start, len(tests)):
        test = tests[index]
        timeout = test_limit(job, index, timed_out)
        if test["kind"] == "call":
            status, detail, value, used = run_guarded(
                functools.partial(_call, namespace, entry, test["args"], test.get("truth")),
                timeout,
            )
            message = {"k": index, "s": status, "t": used, "d": detail}
            if status == "ok":
                _attach_value(message, value, job["max_output"])
        else:
            timed_out |= serve_assertion(index, namespace, entry, requests, channel, timeout)
            continue
        timed_out |= status == "timeout"
        channel.send(message)


def _call(namespace: dict[str, Any], entry: str, args: Any, truth: bool | None) -> Any:
    """One call test's call. A truthiness test (``assert candidate(x)``) reports
    ``bool(value)``, computed here as the assert would: any returned object can be tested
    for truth, plain or not (``re.search`` returns a ``re.Match``)."""
    value = _resolve(namespace, entry)(*decode_value(args))
    return bool(value) if truth else value


_DICT_LIKE = (collections.Counter, collections.OrderedDict, collections.defaultdict)


def _as_dicts(value: Any, depth: int = 0) -> Any:
    """``value`` with every ``Counter``/``OrderedDict``/``defaultdict`` (exact types) inside
    lists, tuples and dicts turned into a plain ``dict``.

    Why: ``Counter(...) == {...}`` is plain dict equality (so is ``OrderedDict``'s against a
    dict), which is what a test comparing with a dict literal computes; the host compares
    with the literal. A program that patched these classes can only produce some dict this
    way — no more than returning that dict itself.
    """
    if depth > 200:
        raise ValueCodecError("returned value nested deeper than 200 levels")
    kind = type(value)
    if kind in _DICT_LIKE:
        return {key: _as_dicts(item, depth + 1) for key, item in dict.items(value)}
    if kind is list:
        return [_as_dicts(item, depth + 1) for item in value]
    if kind is tuple:
        return tuple(_as_dicts(item, depth + 1) for item in value)
    if kind is dict:
        return {key: _as_dicts(item, depth + 1) for key, item in value.items()}
    return value


def _attach_value(message: dict[str, Any], value: Any, limit: int) -> None:
    try:
        try:
            encoded = encode_value(value)
        except ValueCodecError:  # rare: only then look for Counter & co. inside
            encoded = encode_value(_as_dicts(value))
        size = len(_ENCODER.encode(encoded)) if _maybe_large(encoded) else 0
    except (ValueCodecError, RecursionError, ValueError, MemoryError) as exc:
        message.update(s="wrong_answer", d=f"return value cannot be sent: {exc}")
        return
    if size > limit:
        message.update(s="wrong_answer", d=f"return value too large ({size} bytes encoded)")
        return
    message["o"] = encoded


def _maybe_large(encoded: Any) -> bool:
    """Cheap pre-check: only containers and long strings can exceed the output cap."""
    return not isinstance(encoded, (int, float, bool, type(None))) and not (
        isinstance(encoded, str) and len(encoded) < 4096
    )
