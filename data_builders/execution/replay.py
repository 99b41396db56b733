"""Worker-side check of an ``AssertionTest`` pass: replay the test against the call log.

Why: the test body runs in the child, in the same process as the program, so the program can
write a well-formed "pass" line to the result pipe itself (or patch the harness) — no secret
kept in that process is safe from it. The worker, a separate process the program cannot
touch under seccomp (no ptrace, no ``process_vm_*``, no signals), therefore does not take a
pass on trust: the child sends, with the pass, the log of every ``candidate`` call (plain
arguments before and after the call, and the plain return value or builtin exception), and
the worker re-runs the test body here with a ``candidate`` that answers from that log and
demands the very same calls, in order. A pass stands only if the replay passes too.

What this guarantees: a forged log can only claim return values, i.e. the program gets the
label of *some* function answering those calls — as a program with a lookup table would.
What it does not (documented in docs/execution.md): tests whose body uses names the program
defines (``poly`` in HumanEval/32) cannot run here, so their pass is the child's word; the
child sees the test's source, so a program that parses its own test can still forge a log
the test accepts.
"""

from __future__ import annotations

import ast
import builtins
import signal
from typing import Any

from data_builders.execution.child import REPLAY_SEED, Timeout, random, test_function
from data_builders.execution.values import ValueCodecError, decode_value, encode_value


class Mismatch(BaseException):
    """The replayed test made a call the log does not answer (BaseException: a test's own
    ``except Exception`` must not swallow it)."""


def free_names(source: str) -> set[str]:
    """Names the test body reads but never binds itself (builtins and ``candidate`` aside)."""
    loaded, bound = set(), {"candidate"}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return {name for name in loaded - bound if not hasattr(builtins, name)}


class _LogCandidate:
    """``candidate`` for the replay: answers each call from the log, in order."""

    def __init__(self, calls: list[Any]) -> None:
        self.calls = calls
        self.used = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.used >= len(self.calls):
            raise Mismatch("the test made more calls than the program answered")
        entry = self.calls[self.used]
        self.used += 1
        try:
            before, named = encode_value(list(args)), encode_value(kwargs)
        except ValueCodecError:
            raise Unverifiable("the test passes a non-plain argument") from None
        if type(entry) is not list or len(entry) != 5 or [before, named] != entry[:2]:
            raise Mismatch(f"call {self.used} of the test is not the one the program answered")
        _, _, result, error, after = entry
        if after is not None:
            _mutate(args, decode_value(after))
        if error is not None:
            kind = getattr(builtins, str(error), None)
            if not (isinstance(kind, type) and issubclass(kind, Exception)):
                raise Mismatch(f"unknown exception {error!r} in the call log")
            raise kind("raised by the program (replayed)")
        return decode_value(result)


class Unverifiable(BaseException):
    """The test cannot be replayed outside the program's process."""


def _mutate(args: tuple[Any, ...], after: Any) -> None:
    """Apply the program's in-place changes to list/dict/set arguments, as it made them."""
    if type(after) is not list or len(after) != len(args):
        raise Mismatch("malformed argument state in the call log")
    for arg, new in zip(args, after, strict=True):
        if arg == new:
            continue
        if type(arg) is list and type(new) is list:
            arg[:] = new
        elif type(arg) in (dict, set) and type(new) is type(arg):
            arg.clear()
            arg.update(new)
        else:
            raise Mismatch("the program changed an argument that cannot be changed in place")


def verify_pass(source: str, calls: Any, timeout: float) -> tuple[str, str] | None:
    """None when the replay confirms the child's pass (or cannot run: see module doc);
    otherwise the (status, detail) the test gets instead."""
    if free_names(source):
        return None  # the body needs the program's own names: only the child can run it
    if type(calls) is not list:
        return "wrong_answer", "pass not confirmed: no call log"
    candidate = _LogCandidate(calls)
    random.seed(REPLAY_SEED)
    signal.setitimer(signal.ITIMER_PROF, max(timeout, 0.05) * 2)
    try:
        test_function(source, {"__builtins__": builtins})(candidate)
        if candidate.used != len(calls):
            raise Mismatch("the log holds calls the test never made")
    except Unverifiable:
        return None
    except Mismatch as exc:
        return "wrong_answer", f"pass not confirmed by the worker's replay: {exc}"
    except Timeout:
        return "timeout", "pass not confirmed: the worker's replay ran out of time"
    except BaseException as exc:  # noqa: BLE001 - the replayed test failed, however
        return "wrong_answer", f"pass not confirmed by the worker's replay: {type(exc).__name__}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    return None
