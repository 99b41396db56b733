"""The forked child's function mode: call tests, and the calls of assertion tests.

Split from :mod:`data_builders.execution.python.child` (confinement, the CPU clock, guarded runs
and the result channel, which every mode shares); the worker imports this module before
forking, so children never import it. A call test's return value goes back as plain data for
the host to compare; an assertion test's body runs in the worker (:mod:`.judge`), which
sends this child the calls to make, one request at a time.
"""

from __future__ import annotations

import builtins
import collections
import functools
import json
import os
import signal
import sys
from typing import Any

from data_builders.execution.python.child import (
    ENCODER,
    FUNCTION_PROGRAM_FRAMES,
    REPLAY_SEED,
    Channel,
    arm,
    classify,
    compile_source,
    describe,
    disarm,
    random,
    run_guarded,
    test_limit,
)
from data_builders.execution.values import ValueCodecError, decode_value, encode_value


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
        size = len(ENCODER.encode(encoded)) if _maybe_large(encoded) else 0
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
