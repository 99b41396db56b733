"""The comparisons of C++, Java, Rust and Go tests, applied on the host to a program's value
and a constant read from the test (``checks.py`` picks one per assertion; JavaScript's
are ``js_semantics.py``).

Why these are not in ``execution/compare.py``, the comparison module both families share:
each is its language's own ``==`` on its own typed values (``values.py``), which is not
Python's; the rule they do share, a tolerance, is ``compare.within_tolerance``."""

from __future__ import annotations

import math
import struct
from typing import Any

from data_builders.execution.compiled.values import (
    F32,
    GoValue,
    Interned,
    JByte,
    JChar,
    JLong,
    JMap,
    JOptional,
    JShort,
    Tagged,
    to_f32,
)


class NullUnboxing(ValueError):
    """Java: a ``null`` compared with ``==`` to a primitive (a NullPointerException)."""


# -- C++ semantics -------------------------------------------------------------------------
def cpp_number(value: Any) -> float | int:
    if isinstance(value, bool | int | float):
        return value
    raise TypeError("not a number")


def cpp_truthy(value: Any) -> bool:
    if isinstance(value, bool | int | float):
        return value != 0 or (isinstance(value, float) and math.isnan(value))
    raise TypeError("not a condition")


def cpp_eq(actual: Any, expected: Any, f32: bool) -> bool:
    """C++ ``==`` between a value and a literal converted to its type (``f32``: into
    ``float`` elements, as a brace list becomes a ``vector<float>``)."""
    if isinstance(actual, Tagged) and actual.tag == "$map":
        if not isinstance(expected, list):
            return False
        want: dict[Any, Any] = {}
        for pair in expected:
            if not isinstance(pair, list) or len(pair) != 2:
                return False
            key = _hashable(pair[0])
            want.setdefault(key, pair[1])  # a map built from a list keeps the first
        if len(want) != len(actual.value):
            return False
        for pair in actual.value:
            key = _hashable(pair[0])
            if key not in want or not cpp_eq(pair[1], want[key], f32):
                return False
        return True
    if isinstance(actual, list):
        return (
            isinstance(expected, list)
            and len(actual) == len(expected)
            and all(cpp_eq(a, e, f32) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(actual, str) or isinstance(expected, str):
        return isinstance(actual, str) and isinstance(expected, str) and actual == expected
    if isinstance(actual, bool | int | float) and isinstance(expected, bool | int | float):
        if f32 and isinstance(actual, F32) and not isinstance(expected, bool):
            return actual == to_f32(float(expected))
        return actual == expected
    return False


def _hashable(value: Any) -> Any:
    return tuple(_hashable(v) for v in value) if isinstance(value, list) else value


def cpp_issame(actual: Any, expected: Any, tol: float, f32: bool) -> bool:
    """HumanEval-X C++'s ``issame(a, b)``: same size, and every element equal (``tol`` 0) or
    not more than ``tol`` apart (the helper fails on ``abs(a[i]-b[i]) > tol`` only)."""
    if not tol:
        return cpp_eq(actual, expected, f32)
    if not isinstance(actual, list) or not isinstance(expected, list):
        return False
    if len(actual) != len(expected):
        return False
    for a, e in zip(actual, expected, strict=True):
        a, e = cpp_number(a), cpp_number(e)
        if f32:
            e = to_f32(float(e))
            diff = abs(to_f32(float(a) - e))
        else:
            diff = abs(a - e)
        if diff > tol:
            return False
    return True


# -- Java semantics ------------------------------------------------------------------------
def _java_box(value: Any) -> str:
    """The boxed class of a number decoded from Java or read from a Java literal."""
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, JLong | JChar | JShort | JByte):
        return type(value).__name__
    if isinstance(value, int):
        return "Integer"
    if isinstance(value, F32):
        return "Float"
    if isinstance(value, float):
        return "Double"
    return type(value).__name__


def java_equals(actual: Any, expected: Any) -> bool:
    """``actual.equals(expected)`` for a literal ``expected`` (boxed numbers equal only their
    own class: ``Long`` 1 is not ``Integer`` 1; ``Double`` compares bits, so NaN equals NaN
    and 0.0 does not equal -0.0; any two ``List``s with equal elements are equal)."""
    if expected is None or actual is None:
        return actual is None and expected is None
    if isinstance(expected, JMap):  # Map.equals: the same entries, in any order
        if not (isinstance(actual, Tagged) and actual.tag == "$map"):
            return False
        mine = actual.value
        return len(mine) == len(expected.items) and all(
            any(java_equals(k, ek) and java_equals(v, ev) for k, v in mine)
            for ek, ev in expected.items
        )
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(java_equals(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, JOptional):
        return (
            isinstance(actual, JOptional)
            and len(actual.value) == len(expected.value)
            and all(java_equals(a, e) for a, e in zip(actual.value, expected.value, strict=True))
        )
    if isinstance(expected, str):
        return isinstance(actual, str) and actual == expected
    if isinstance(expected, bool | int | float):
        if _java_box(actual) != _java_box(expected):
            return False
        if isinstance(expected, float):
            fmt = ">f" if isinstance(expected, F32) else ">d"
            return struct.pack(fmt, actual) == struct.pack(fmt, expected) or (
                math.isnan(actual) and math.isnan(expected)
            )
        return actual == expected
    return False


def java_identity(actual: Any, expected: Any) -> bool:
    """``actual == expected``: numbers and booleans by value (unboxed, promoted; a ``null``
    is a NullPointerException), a string literal by identity (the interned instance)."""
    if isinstance(expected, str):
        if isinstance(actual, Interned):
            return actual.interned and actual.value == expected
        return False
    if expected is None:
        return actual is None or (isinstance(actual, Interned) and actual.value is None)
    if isinstance(actual, Interned):
        actual = actual.value
    if actual is None:
        raise NullUnboxing
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and actual == expected
    if isinstance(actual, int | float) and isinstance(expected, int | float):
        return actual == expected
    return False


# -- Rust semantics ------------------------------------------------------------------------
def rust_eq(actual: Any, expected: Any) -> bool:
    """Rust's ``==`` between a value and a constant of the same (inferred) type: a float
    constant compared with an ``f32`` is an ``f32``; ``Vec``, arrays, slices and tuples
    element-wise; ``Option``; ``String`` and ``&str``; a map or set by its entries."""
    if isinstance(actual, Tagged) and actual.tag in ("$map", "$set"):
        if not isinstance(expected, list):
            return False
        items = [tuple(p) if isinstance(p, list) else p for p in expected]
        mine = [tuple(p) if isinstance(p, list) else p for p in actual.value]
        return len(items) == len(mine) and all(
            any(rust_eq(list(a) if isinstance(a, tuple) else a, list(e) if isinstance(e, tuple) else e)
                for a in mine) for e in items
        )  # fmt: skip
    if isinstance(actual, list):
        return (
            isinstance(expected, list)
            and len(actual) == len(expected)
            and all(rust_eq(a, e) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(actual, JOptional):
        return (
            isinstance(expected, JOptional)
            and len(actual.value) == len(expected.value)
            and all(rust_eq(a, e) for a, e in zip(actual.value, expected.value, strict=True))
        )
    if isinstance(actual, str) or isinstance(expected, str):
        return isinstance(actual, str) and isinstance(expected, str) and actual == expected
    if isinstance(actual, bool) or isinstance(expected, bool):
        return isinstance(actual, bool) and isinstance(expected, bool) and actual == expected
    if isinstance(actual, JChar) or isinstance(expected, JChar):
        return isinstance(actual, JChar) and isinstance(expected, JChar) and actual == expected
    if isinstance(actual, int | float) and isinstance(expected, int | float):
        if isinstance(actual, F32):
            return actual == to_f32(float(expected))
        return actual == expected
    return False


# -- Go semantics --------------------------------------------------------------------------
def go_deep_equal(actual: Any, expected: Any) -> bool:
    """testify's ``ObjectsAreEqual(expected, actual)``: ``reflect.DeepEqual`` (same types, a
    nil slice is not an empty one, NaN equals nothing) and ``nil`` only equal to ``nil``."""
    if not isinstance(actual, GoValue) or not isinstance(expected, GoValue):
        return False
    if actual.type != expected.type:
        return False
    a, e = actual.payload, expected.payload
    if a is None or e is None:
        return a is None and e is None
    if isinstance(e, tuple) and e and isinstance(e[0], tuple) and expected.type.startswith("map["):
        if not isinstance(a, tuple) or len(a) != len(e):
            return False
        return all(
            any(go_deep_equal(ak, ek) and go_deep_equal(av, ev) for ak, av in a) for ek, ev in e
        )
    if isinstance(e, tuple):
        return (
            isinstance(a, tuple)
            and len(a) == len(e)
            and all(go_deep_equal(x, y) for x, y in zip(a, e, strict=True))
        )
    if isinstance(e, bool) or isinstance(a, bool):
        return isinstance(e, bool) and isinstance(a, bool) and a == e
    return a == e
