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
value (``foreign_values.py``: the serialisation and its Python types), with the language's
comparison (``foreign_semantics.py``, ``foreign_js_semantics.py``). Literal parsers
(``foreign_literals.py``) read the test's constants (C++ brace lists, strings, chars, numbers;
JavaScript arrays, object literals, strings, numbers); anything they cannot read (a
variable, a call, arithmetic) leaves the assertion to the program (the driver's in-program
case, counted per row as ``cases_judged_in_program``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from data_builders.execution.foreign_js_semantics import (
    js_deep_equal,
    js_json,
    js_loose_eq,
    js_strict_eq,
    js_to_number,
    js_truthy,
)
from data_builders.execution.foreign_semantics import (
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
from data_builders.execution.foreign_values import GoValue, decode_value


@dataclass(frozen=True)
class Check:
    """One assertion judged on the host: ``op`` applied to the program's value and
    ``expected`` (a Python value read from the test's text).

    ``op``: ``eq`` (the language's ``==``; JavaScript ``===`` with ``strict``),
    ``truthy`` (a bare condition), ``close`` (``abs(actual -
    expected) < tol``, ``<=`` with ``inclusive``), ``issame`` (C++ HumanEval-X's helper:
    element-wise exact, or within ``tol`` where the helper compares with ``abs``),
    ``json`` (JavaScript: ``actual`` is ``JSON.stringify(...)`` of the program's value,
    compared with ``JSON.stringify(expected)``), ``deep`` (Node's ``assert.deepEqual`` /
    ``deepStrictEqual`` with ``strict``), ``equals`` (Java's ``a.equals(L)``; Java's
    ``eq`` is ``==``: by value for primitives, by identity for a string literal).
    ``negate``: ``!=``, ``!f(...)``.
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


# -- judging -------------------------------------------------------------------------------
def judge(check: Check, payload: bytes) -> tuple[str, str]:
    """``(status, detail)`` of ``check`` on the program's serialised value."""
    try:
        actual = decode_value(payload)
    except (ValueError, KeyError, TypeError, struct.error, OverflowError) as error:
        return "runtime_error", f"unreadable value: {error}"[:300]
    try:
        held = _holds(check, actual)
    except NullUnboxing:
        return "runtime_error", "java.lang.NullPointerException (null compared with ==)"
    except (TypeError, ValueError, OverflowError):
        held = False
    if held:
        return "pass", ""
    return "wrong_answer", f"got {_short(actual)}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 200 else text[:197] + "..."


def _holds(check: Check, actual: Any) -> bool:
    return _compare(check, actual) != check.negate


def _compare(check: Check, actual: Any) -> bool:
    lang, op = check.language, check.op
    if lang == "java":
        return _java_compare(check, actual)
    if lang == "rust":
        if op == "truthy":
            if not isinstance(actual, bool):
                raise TypeError("not a bool")
            return actual
        if op == "close":
            return _holds_close(check, cpp_number(actual))
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
        diff = abs(number - check.expected)
        return diff <= check.tol if check.inclusive else diff < check.tol
    if op == "issame":
        return cpp_issame(actual, check.expected, check.tol, check.f32)
    if op == "json":
        return isinstance(actual, str) and actual == js_json(check.expected)
    if op == "deep":
        return js_deep_equal(actual, check.expected, check.strict)
    raise ValueError(f"unknown check {op!r}")


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


def _holds_close(check: Check, number: float) -> bool:
    diff = abs(number - check.expected)
    return diff <= check.tol if check.inclusive else diff < check.tol
