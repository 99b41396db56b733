"""Host-side verdicts for programs in other languages: the program computes, the host judges.

Why: a test compiled into the program's own process can be made to report a pass (a C++ or
JavaScript program can write pass lines to every descriptor; a Java one can call the
harness's report function). So an assertion of the form ``actual OP expected`` — ``expected``
a constant the host can read from the test's text — is *split*: the program's process only
computes ``actual`` (the candidate's return value, or the test's expression around it) and
writes it in a canonical serialisation (``V k <token> <value>``); the expected value never
enters that process (it is not compiled in, not in its files or arguments), and the host
applies ``OP`` here with the test's own semantics. A program that wants a pass must then
produce the expected value, which is what solving the task is.

A :class:`Check` is one such assertion; :func:`judge` gives its status from the serialised
value (``values.py``: the serialisation and its Python types), with the language's
comparison (``semantics.py``, ``js_semantics.py``). Literal parsers
(``literals.py``) read the test's constants (C++ brace lists, strings, chars, numbers;
JavaScript arrays, object literals, strings, numbers); anything they cannot read (a
variable, a call, arithmetic) leaves the assertion to the program (the driver's in-program
case, counted per row as ``cases_judged_in_program``), unless the task has a trusted
reference solution: then an expected side the test computes comes from the reference's own
run (``reference.py``), and a check says so with ``origin``.
"""

from __future__ import annotations

import dataclasses
import math
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from data_builders.execution.compare import within_tolerance
from data_builders.execution.compiled.js_semantics import (
    js_deep_equal,
    js_json,
    js_loose_eq,
    js_strict_eq,
    js_to_number,
    js_truthy,
)
from data_builders.execution.compiled.semantics import (
    NullUnboxing,
    cpp_eq,
    cpp_issame,
    cpp_number,
    cpp_truthy,
    go_deep_equal,
    java_equals,
    java_identity,
    rust_eq,
)
from data_builders.execution.compiled.values import F32, GoValue, Turns, decode_value, to_f32
from data_builders.execution.values import short_repr


@dataclass(frozen=True)
class Check:
    """One assertion judged on the host: ``op`` applied to the program's value and
    ``expected`` (a Python value read from the test's text).

    ``op``: ``eq`` (the language's ``==``; JavaScript ``===`` with ``strict``),
    ``truthy`` (a bare condition), ``close`` (``abs(actual -
    expected) < tol``, ``<=`` with ``inclusive``), ``issame`` (C++ HumanEval-X's helper:
    element-wise exact, or within ``tol`` where the helper compares with ``abs``),
    ``below`` (Rust: ``actual < expected``, ``<=`` with ``inclusive``, a one-sided
    bound), ``json`` (JavaScript: ``actual`` is ``JSON.stringify(...)`` of the program's value,
    compared with ``JSON.stringify(expected)``; ``json_both``: both sides stringified here),
    ``deep`` (Node's ``assert.deepEqual`` /
    ``deepStrictEqual`` with ``strict``), ``equals`` (Java's ``a.equals(L)``; Java's
    ``eq`` is ``==``: by value for primitives, by identity for a string literal).
    ``negate``: ``!=``, ``!f(...)``. ``poly`` / ``poly_above`` (HumanEval's ``find_zero``
    property, ``abs(poly(xs, x)) < tol`` / ``> tol``): ``actual`` is ``x``, ``expected`` the
    coefficients ``xs``, and the host evaluates :func:`poly`.

    ``origin``: where ``expected`` comes from: ``"test"`` (a constant of the test's text),
    ``"reference"`` (the value the reference solution's run gave the test's own expression:
    ``reference.py``), ``"self"`` (both sides call the candidate, as ``issame(f(x),
    f(x))``: the value is the pair of both, compared with each other). ``each``: the
    assertion runs once per turn of a loop and is judged on every turn's value against the
    reference's turn (``expected``: the reference's values, one per turn): ``"turns"``, a
    ``V`` report per turn (C++, JavaScript), or ``"list"``, one ``V`` report of every turn's
    value at the end of the loop (Java: the loop is one case). ``stop_first``: the test
    stops at the first failing turn (Java's ``throw`` in a loop), so a failed turn decides
    the case whatever came after it.
    """

    language: str
    op: str
    expected: Any = None
    tol: float = 0.0
    inclusive: bool = False
    strict: bool = True
    f32: bool = False  # C++: the expected value is converted to float (a vector<float> helper)
    negate: bool = False  # the assertion holds when the comparison does not (!=, !f(...))
    text: str = ""  # the assertion, for details
    origin: str = "test"
    each: str = ""
    stop_first: bool = False


# -- judging -------------------------------------------------------------------------------
def host_cases(checks: Sequence[Check | None]) -> tuple[frozenset[int], frozenset[int]]:
    """``(value cases, turn cases)`` of a driver's checks: the cases the host judges from one
    value, and those it judges from a value per turn of a loop (``Check.each == "turns"``);
    every other case is the program's."""
    host = frozenset(k for k, check in enumerate(checks) if check is not None)
    turns = frozenset(k for k in host if checks[k].each == "turns")
    return host - turns, turns


def judge(check: Check, payload: bytes) -> tuple[str, str]:
    """``(status, detail)`` of ``check`` on the program's serialised value."""
    try:
        actual = decode_value(payload)
    except (ValueError, KeyError, TypeError, struct.error, OverflowError) as error:
        return "runtime_error", f"unreadable value: {error}"[:300]
    if check.each == "list":  # every turn of a loop in one value (Java)
        if not isinstance(actual, Turns):
            return "runtime_error", "unreadable value: not a loop's turns"
        return _judge_turns(check, actual.values, actual.error)
    return _judge_one(check, actual)


def _judge_one(check: Check, actual: Any) -> tuple[str, str]:
    try:
        held = _holds(check, actual)
    except NullUnboxing:
        return "runtime_error", "java.lang.NullPointerException (null compared with ==)"
    except (TypeError, ValueError, OverflowError):
        held = False
    if held:
        return "pass", ""
    return "wrong_answer", f"got {short_repr(actual)}"


def judge_series(
    check: Check, payloads: list[bytes], errors: tuple[str, str] | None
) -> tuple[str, str]:
    """``(status, detail)`` of an assertion in a loop reported turn by turn (``each ==
    "turns"``): one serialised value per turn, and the worst error a turn reported
    (``errors``: status and detail)."""
    values = []
    for payload in payloads:
        try:
            values.append(decode_value(payload))
        except (ValueError, KeyError, TypeError, struct.error, OverflowError) as error:
            return "runtime_error", f"unreadable value: {error}"[:300]
    return _judge_turns(check, values, errors)


def _judge_turns(
    check: Check, values: list[Any], errors: tuple[str, str] | None
) -> tuple[str, str]:
    """Each turn's value against the reference's turn (``check.expected``, one value per
    turn), as the test judges its turns: the worst of them, an error a turn reported
    included; with ``stop_first`` the first failed turn decides (the test would have stopped
    there, before any later error). A run with another number of turns than the reference's
    fails: the candidate changed the loop or its inputs."""
    expected = check.expected if isinstance(check.expected, list) else []
    single = dataclasses.replace(check, each="")
    mismatch = ("wrong_answer", f"{len(values)} turns, the reference ran {len(expected)}")
    worst: tuple[str, str] = ("pass", "")
    for turn, actual in enumerate(values):
        if turn >= len(expected):
            worst = _worse(worst, mismatch)
            break
        status, detail = _judge_one(dataclasses.replace(single, expected=expected[turn]), actual)
        if status != "pass":
            found = (status, f"turn {turn}: {detail}")
            if check.stop_first:
                return found
            worst = _worse(worst, found)
    if errors is not None:
        worst = _worse(worst, errors)
    elif worst[0] == "pass" and len(values) != len(expected):
        worst = mismatch
    return worst


_RANK = {"pass": 0, "wrong_answer": 1}


def _worse(a: tuple[str, str], b: tuple[str, str]) -> tuple[str, str]:
    """The worse of two outcomes (a failure over a pass, an error over a failure)."""
    return b if _RANK.get(b[0], 2) > _RANK.get(a[0], 2) else a


def _holds(check: Check, actual: Any) -> bool:
    if check.origin == "self":  # the pair (left, right), both the candidate's
        if not isinstance(actual, list) or len(actual) != 2:
            raise TypeError("not a pair")
        actual, check = actual[0], dataclasses.replace(check, expected=actual[1])
    return _compare(check, actual) != check.negate


def _compare(check: Check, actual: Any) -> bool:
    lang, op = check.language, check.op
    if op in ("poly", "poly_above"):
        xs, x = check.expected, actual
        if lang == "go":  # typed values: []int coefficients, a float64 root
            xs, x = _go_numbers(xs), _go_numbers(x)
        value = abs(poly(xs, x))
        if op == "poly_above":
            return value > check.tol
        return within_tolerance(value, check.tol, check.inclusive)
    if lang == "java":
        return _java_compare(check, actual)
    if lang == "rust":
        if op == "truthy":
            if not isinstance(actual, bool):
                raise TypeError("not a bool")
            return actual
        if op == "close":
            return _holds_close(check, cpp_number(actual))
        if op == "below":  # X < T: T has X's type (an f32 bound for an f32 value)
            number = cpp_number(actual)
            bound = to_f32(check.expected) if isinstance(actual, F32) else check.expected
            return number <= bound if check.inclusive else number < bound
        return rust_eq(actual, check.expected)
    if lang == "go":
        if op == "close":
            if not isinstance(actual, GoValue) or not isinstance(actual.payload, int | float):
                return False
            return _holds_close(check, actual.payload)
        return go_deep_equal(actual, check.expected)
    if op == "truthy":
        return js_truthy(actual) if lang == "js" else cpp_truthy(actual)
    if op == "eq":
        if lang == "js":
            if check.strict:
                return js_strict_eq(actual, check.expected)
            return js_loose_eq(actual, check.expected)
        return cpp_eq(actual, check.expected, f32=False)
    if op == "close":
        number = js_to_number(actual) if lang == "js" else cpp_number(actual)
        return within_tolerance(abs(number - check.expected), check.tol, check.inclusive)
    if op == "issame":
        return cpp_issame(actual, check.expected, check.tol, check.f32)
    if op == "json":
        return isinstance(actual, str) and actual == js_json(check.expected)
    if op == "json_both":  # JSON.stringify(X) == JSON.stringify(Y), both stringified here
        return js_json(actual) == js_json(check.expected)
    if op == "deep":
        return js_deep_equal(actual, check.expected, check.strict)
    raise ValueError(f"unknown check {op!r}")


def poly(xs: Any, x: Any) -> float:
    """HumanEval's ``poly(xs, x)`` as the C++, Java and JavaScript prompts define it: the sum
    of ``xs[i] * pow(x, i)`` in index order, in doubles (``math.pow`` is the C library's
    ``pow``, as C++'s; Java's and V8's agree with it to the last bit but in rare cases, far
    below the test's tolerance)."""
    if not isinstance(xs, list) or isinstance(x, bool):
        raise TypeError("not a polynomial")
    total = 0.0
    for i, c in enumerate(xs):
        if isinstance(c, bool):
            raise TypeError("not a number")
        total += float(c) * _pow(float(x), i)
    return total


def _pow(x: float, i: int) -> float:
    """C's ``pow``: an infinity where Python's ``math.pow`` raises ``OverflowError``."""
    try:
        return math.pow(x, i)
    except OverflowError:
        return -math.inf if x < 0 and i % 2 else math.inf


# -- Java ---------------------------------------------------------------------------------
def _java_compare(check: Check, actual: Any) -> bool:
    op = check.op
    if op == "equals":  # a.equals(L), Objects.equals(a, L)
        return java_equals(actual, check.expected)
    if op == "eq":  # a == L with a primitive or string L
        return java_identity(actual, check.expected)
    if op == "truthy":
        if actual is None:
            raise NullUnboxing
        if not isinstance(actual, bool):
            raise TypeError("not a boolean")
        return actual
    if op == "close":
        if actual is None:
            raise NullUnboxing
        return _holds_close(check, cpp_number(actual))
    raise ValueError(f"unknown check {op!r}")


def _go_numbers(value: Any) -> Any:
    """A Go number, or a slice of them, as Python numbers (``poly``'s operands)."""
    if not isinstance(value, GoValue) or value.payload is None:
        raise TypeError("not a Go number or slice")
    if isinstance(value.payload, tuple):
        return [_go_numbers(item) for item in value.payload]
    if isinstance(value.payload, bool) or not isinstance(value.payload, int | float):
        raise TypeError("not a Go number")
    return value.payload


def _holds_close(check: Check, number: float) -> bool:
    return within_tolerance(abs(number - check.expected), check.tol, check.inclusive)
