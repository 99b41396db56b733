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
value. Literal parsers read the test's constants (C++ brace lists, strings, chars, numbers;
JavaScript arrays, object literals, strings, numbers); anything they cannot read (a
variable, a call, arithmetic) leaves the assertion to the program (the driver's in-program
case, counted per row as ``cases_judged_in_program``).

Serialisation (tagged JSON, written by each language's support code):

* JSON scalars, strings and arrays as themselves; C++ strings are byte strings, each byte
  one code point (``\\u00XX`` beyond ASCII), and C++ string literals are read the same way;
* ``{"$f64": "<16 hex digits>"}`` / ``{"$f32": "<8 hex>"}``: a C++ ``double`` / ``float``
  by its exact bits (C++ ``char`` is its integer code, as in C++ comparisons);
* ``{"$map": [[k, v], ...]}`` (C++ ``map``, JavaScript ``Map``), ``{"$set": [...]}``,
  ``{"$object": [[key, value], ...]}`` (a JavaScript object's own enumerable keys, in order),
  ``{"$float": "nan" | "inf" | "-inf"}``, ``{"$undefined": 1}``, ``{"$bigint": "<decimal>"}``,
  ``{"$function": 1}``, ``{"$symbol": 1}``; ``{"$opaque": 1}`` (a C++ type the support code
  cannot write) and ``{"$toolong": 1}`` (a value past ``MAX_VALUE_BYTES``) equal nothing.
"""

from __future__ import annotations

import json
import math
import re
import struct
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

MAX_VALUE_BYTES = 4 * 1024 * 1024
"""A serialised value longer than this is cut by the support code and fails here."""


class NotLiteral(ValueError):
    """The text is not a constant the host can read."""


class F32(float):
    """A C++ ``float`` (its value widened exactly to a double)."""


class JLong(int):
    """A Java ``long`` / ``Long``."""


class JChar(int):
    """A Java ``char`` / ``Character`` (its code)."""


class JShort(int):
    """A Java ``short`` / ``Short``."""


class JByte(int):
    """A Java ``byte`` / ``Byte``."""


_JAVA_INTS = {"$long": JLong, "$char": JChar, "$short": JShort, "$byte": JByte}


class NullUnboxing(ValueError):
    """Java: a ``null`` compared with ``==`` to a primitive (a NullPointerException)."""


@dataclass(frozen=True)
class JOptional:
    """A Java ``Optional``: ``()`` empty, ``(value,)`` present."""

    value: tuple[Any, ...]


@dataclass(frozen=True)
class JMap:
    """A Java ``Map`` the test fills with constants (``m.put(k, v)``): its entries."""

    items: tuple[tuple[Any, Any], ...]


@dataclass(frozen=True)
class Interned:
    """Java: a value and whether it is the interned instance of its string (``==``)."""

    value: Any
    interned: bool


@dataclass(frozen=True)
class GoValue:
    """A Go value and its type as ``reflect.Type.String()`` writes it: ``payload`` a scalar,
    a tuple of GoValues (slice, array, struct fields), a tuple of (key, value) pairs (map),
    or None (a nil slice, map, pointer or interface)."""

    type: str
    payload: Any


class Undefined:
    _instance: Undefined | None = None

    def __new__(cls) -> Undefined:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undefined"


UNDEFINED = Undefined()


@dataclass(frozen=True)
class JsObject:
    """A JavaScript object (``$object``; a literal ``{k: v}``): its own keys, in order."""

    items: tuple[tuple[str, Any], ...]


@dataclass(frozen=True)
class Tagged:
    """A value the comparisons treat as opaque (``$map``/``$set``/``$function``...)."""

    tag: str
    value: Any


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


# -- decoding the program's value ----------------------------------------------------------
def decode_value(payload: bytes) -> Any:
    """The Python value of a serialised value (ValueError when malformed)."""
    if len(payload) > MAX_VALUE_BYTES:
        raise ValueError("value longer than the cap")
    return _decode(json.loads(payload.decode("utf-8", errors="surrogatepass")), 0)


def _decode(value: Any, depth: int) -> Any:
    if depth > 200:
        raise ValueError("value nested too deep")
    if isinstance(value, list):
        return [_decode(item, depth + 1) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) != 1:
        raise ValueError("malformed tagged value")
    ((tag, inner),) = value.items()
    if tag == "$f64":
        return struct.unpack(">d", bytes.fromhex(inner))[0]
    if tag == "$f32":
        return F32(struct.unpack(">f", bytes.fromhex(inner))[0])
    if tag == "$float":
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[inner]
    if tag == "$undefined":
        return UNDEFINED
    if tag in _JAVA_INTS:
        return _JAVA_INTS[tag](int(inner))
    if tag == "$go":
        return _decode_go(inner, depth)
    if tag == "$optional":
        return JOptional(tuple(_decode(v, depth + 1) for v in inner))
    if tag == "$interned":
        return Interned(_decode(inner[0], depth + 1), bool(inner[1]))
    if tag in ("$array", "$collection"):
        return Tagged(tag, _decode(inner, depth + 1))
    if tag == "$bigint":
        return Tagged("$bigint", int(inner))
    if tag == "$object":
        return JsObject(tuple((str(k), _decode(v, depth + 1)) for k, v in inner))
    if tag in ("$map", "$set"):
        return Tagged(tag, _decode(inner, depth + 1))
    if tag in ("$function", "$symbol", "$opaque", "$toolong", "$class", "$assertion_panic"):
        return Tagged(tag, None)
    raise ValueError(f"unknown tag {tag!r}")


def _decode_go(inner: Any, depth: int) -> GoValue:
    kind, type_, payload = inner
    if payload is None:
        return GoValue(type_, None)
    if kind == "int":
        return GoValue(type_, int(payload))
    if kind == "float":
        bits = bytes.fromhex(payload)
        return GoValue(type_, struct.unpack(">d" if len(bits) == 8 else ">f", bits)[0])
    if kind in ("string", "bool"):
        return GoValue(type_, payload)
    if kind in ("list", "ptr"):
        return GoValue(type_, tuple(_decode(v, depth + 1) for v in payload))
    if kind == "map":
        pairs = tuple((_decode(k, depth + 1), _decode(v, depth + 1)) for k, v in payload)
        return GoValue(type_, pairs)
    return GoValue(type_, ("opaque", payload))


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
            return _holds_close(check, _cpp_number(actual))
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
        number = js_to_number(actual) if lang == "js" else _cpp_number(actual)
        diff = abs(number - check.expected)
        return diff <= check.tol if check.inclusive else diff < check.tol
    if op == "issame":
        return cpp_issame(actual, check.expected, check.tol, check.f32)
    if op == "json":
        return isinstance(actual, str) and actual == js_json(check.expected)
    if op == "deep":
        return js_deep_equal(actual, check.expected, check.strict)
    raise ValueError(f"unknown check {op!r}")


# -- C++ semantics -------------------------------------------------------------------------
def to_f32(x: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def _cpp_number(value: Any) -> float | int:
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
        a, e = _cpp_number(a), _cpp_number(e)
        if f32:
            e = to_f32(float(e))
            diff = abs(to_f32(float(a) - e))
        else:
            diff = abs(a - e)
        if diff > tol:
            return False
    return True


# -- Java semantics ------------------------------------------------------------------------
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
        return _holds_close(check, _cpp_number(actual))
    raise ValueError(f"unknown check {op!r}")


def _holds_close(check: Check, number: float) -> bool:
    diff = abs(number - check.expected)
    return diff <= check.tol if check.inclusive else diff < check.tol


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


# -- JavaScript semantics ------------------------------------------------------------------
def _js_kind(value: Any) -> str:
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Tagged) and value.tag == "$bigint":
        return "bigint"
    return "object"


def js_truthy(value: Any) -> bool:
    kind = _js_kind(value)
    if kind in ("undefined", "null"):
        return False
    if kind == "number":
        return not (value == 0 or math.isnan(value))
    if kind in ("boolean", "string"):
        return bool(value)
    if kind == "bigint":
        return value.value != 0
    return True


def js_strict_eq(actual: Any, expected: Any) -> bool:
    """``actual === expected`` for a literal ``expected`` (an array or object literal is a
    new object: never identical to anything)."""
    kind = _js_kind(actual)
    if kind != _js_kind(expected) or kind == "object":
        return False
    if kind == "bigint":
        return actual.value == expected.value
    return actual == expected


def js_to_number(value: Any) -> float:
    kind = _js_kind(value)
    if kind == "number":
        return float(value)
    if kind == "boolean":
        return 1.0 if value else 0.0
    if kind == "null":
        return 0.0
    if kind == "undefined":
        return math.nan
    if kind == "string":
        text = value.strip()
        if not text:
            return 0.0
        try:
            if re.fullmatch(r"[+-]?(Infinity|\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?)", text, re.I):
                return float(text.replace("Infinity", "inf"))
            if re.fullmatch(r"0[xob][0-9a-f]+", text, re.I):
                return float(int(text, 0))
        except ValueError:
            pass
        return math.nan
    if kind == "bigint":
        raise TypeError("Cannot mix BigInt and other types")
    return js_to_number(js_to_primitive(value))


def js_to_primitive(value: Any) -> Any:
    if isinstance(value, list):
        return ",".join("" if v is None or v is UNDEFINED else js_to_string(v) for v in value)
    if _js_kind(value) == "object":
        return "[object Object]"
    return value


def js_to_string(value: Any) -> str:
    kind = _js_kind(value)
    if kind == "string":
        return value
    if kind == "number":
        return js_number_to_string(float(value))
    if kind == "boolean":
        return "true" if value else "false"
    if kind in ("null", "undefined"):
        return kind
    if kind == "bigint":
        return str(value.value)
    return js_to_string(js_to_primitive(value))


def js_loose_eq(actual: Any, expected: Any) -> bool:
    """``actual == expected`` (the abstract equality of primitives; an object against a
    primitive through its primitive value)."""
    a, b = _js_kind(actual), _js_kind(expected)
    if a == b:
        return js_strict_eq(actual, expected)
    if {a, b} == {"null", "undefined"}:
        return True
    if "null" in (a, b) or "undefined" in (a, b):
        return False
    if a == "object" and b == "object":
        return False
    if a == "object":
        return js_loose_eq(js_to_primitive(actual), expected)
    if b == "object":
        return js_loose_eq(actual, js_to_primitive(expected))
    if a == "bigint" or b == "bigint":
        big, other = (actual, expected) if a == "bigint" else (expected, actual)
        number = js_to_number(other)
        return math.isfinite(number) and big.value == number
    return js_to_number(actual) == js_to_number(expected)


def js_deep_equal(actual: Any, expected: Any, strict: bool) -> bool:
    """Node's ``assert.deepStrictEqual`` (``strict``) / ``assert.deepEqual``: arrays element
    by element, objects by their own enumerable keys, primitives by ``Object.is`` (strict)
    or ``==`` (NaN equals NaN in both); an array is never equal to a non-array."""
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(js_deep_equal(a, e, strict) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, JsObject):
        if not isinstance(actual, JsObject):
            return False
        mine, want = dict(actual.items), dict(expected.items)
        return set(mine) == set(want) and all(js_deep_equal(mine[k], want[k], strict) for k in want)
    if isinstance(actual, list | JsObject | Tagged) and _js_kind(actual) == "object":
        return False if strict else js_loose_eq(actual, expected)
    kinds = (_js_kind(actual), _js_kind(expected))
    if kinds == ("number", "number") and math.isnan(actual) and math.isnan(expected):
        return True
    if strict:
        if kinds == ("number", "number") and actual == 0 and expected == 0:
            return math.copysign(1, actual) == math.copysign(1, expected)
        return js_strict_eq(actual, expected)
    return js_loose_eq(actual, expected)


def js_number_to_string(x: float) -> str:
    """ECMAScript's Number::toString (shortest round-trip digits, JavaScript's layout)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number_to_string(-x)
    sign, digits_t, exponent = Decimal(repr(x)).normalize().as_tuple()
    digits = "".join(map(str, digits_t))
    k = len(digits)
    n = exponent + k  # x = 0.digits * 10**n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def js_json(value: Any) -> str | None:
    """``JSON.stringify(value)`` (None for ``undefined``)."""
    kind = _js_kind(value)
    if kind == "undefined" or (isinstance(value, Tagged) and value.tag in ("$function", "$symbol")):
        return None
    if kind == "null":
        return "null"
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "number":
        return js_number_to_string(float(value)) if math.isfinite(value) else "null"
    if kind == "string":
        return json.dumps(value, ensure_ascii=False)
    if kind == "bigint":
        raise TypeError("Do not know how to serialize a BigInt")
    if isinstance(value, list):
        return "[" + ",".join(js_json(v) or "null" for v in value) + "]"
    if isinstance(value, JsObject):
        parts = []
        for key, item in value.items:
            text = js_json(item)
            if text is not None:
                parts.append(json.dumps(key, ensure_ascii=False) + ":" + text)
        return "{" + ",".join(parts) + "}"
    return "{}"  # Map, Set: no enumerable own keys


# -- reading literals ----------------------------------------------------------------------
_NUMBER = re.compile(
    r"(0[xX][0-9a-fA-F'_]+|0[bB][01'_]+|(?:\d[\d'_]*\.?[\d'_]*|\.\d[\d'_]*)(?:[eE][+-]?\d+)?)"
    r"([uUlLfFnNdD]*)"
)
_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:::[A-Za-z_]\w*)*")
_CPP_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "f": "\f",
                "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}  # fmt: skip


_JAVA_CALL = re.compile(
    r"(?:(?:java\.util\.)?(?P<kind>Arrays\.asList|List\.of|Optional\.of|Optional\.empty"
    r"|Collections\.emptyList)|new\s+(?:java\.util\.)?(?:ArrayList|LinkedList)\s*(?:<[\w\s,<>?]*>)?)"
    r"\s*\("
)


def _java_number(body: str, suffix: str) -> Any:
    """A Java numeric literal as the boxed type its suffix and form give it."""
    body = body.replace("_", "")
    if "l" in suffix:
        return JLong(int(body, 0) if body[:2].lower() in ("0x", "0b") else int(body))
    floating = any(c in body for c in ".eE") and body[:2].lower() != "0x"
    if "f" in suffix:
        return F32(to_f32(float(body)))
    if "d" in suffix or floating:
        return float(body)
    if body[:2].lower() in ("0x", "0b"):
        return int(body, 0)
    if len(body) > 1 and body.startswith("0"):
        return int(body, 8)
    return int(body)


class _Reader:
    def __init__(self, text: str, language: str) -> None:
        self.text, self.i, self.language = text, 0, language

    def space(self) -> None:
        while self.i < len(self.text):
            if self.text[self.i].isspace():
                self.i += 1
            elif self.text.startswith("//", self.i):
                end = self.text.find("\n", self.i)
                self.i = len(self.text) if end < 0 else end
            elif self.text.startswith("/*", self.i):
                end = self.text.find("*/", self.i)
                if end < 0:
                    raise NotLiteral("open comment")
                self.i = end + 2
            else:
                break

    def peek(self) -> str:
        self.space()
        return self.text[self.i : self.i + 1]

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            raise NotLiteral(f"expected {ch!r}")
        self.i += 1

    def items(self, close: str) -> list[Any]:
        out: list[Any] = []
        while self.peek() != close:
            if not self.peek():
                raise NotLiteral("unclosed list")
            out.append(self.value())
            if self.peek() == ",":
                self.i += 1
            elif self.peek() != close:
                raise NotLiteral("expected ','")
        self.i += 1
        return out

    def value(self) -> Any:
        """A constant, with the arithmetic of numbers (``2.0/3.0``, ``3 * 19``) folded as
        the language does (C++: integer division truncates)."""
        left = self._term()
        while self.peek() in ("+", "-"):
            op = self.text[self.i]
            self.i += 1
            left = self._arith(op, left, self._term())
        return left

    def _term(self) -> Any:
        left = self._unary()
        while self.peek() in ("*", "/", "%") and not self.text.startswith(("//", "/*"), self.i):
            op = self.text[self.i]
            self.i += 1
            left = self._arith(op, left, self._unary())
        return left

    def _arith(self, op: str, a: Any, b: Any) -> Any:
        for v in (a, b):
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise NotLiteral("arithmetic on a non-number")
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if isinstance(a, int) and isinstance(b, int):
            if b == 0:
                raise NotLiteral("division by zero")
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            return q if op == "/" else a - q * b
        if op == "%":
            if self.language != "js":
                raise NotLiteral("% of a double")
            return math.fmod(a, b) if b else math.nan
        if b == 0:
            return math.copysign(math.inf, a) * math.copysign(1.0, b) if a else math.nan
        return a / b

    def _unary(self) -> Any:
        ch = self.peek()
        if not ch:
            raise NotLiteral("empty")
        if ch in "-+":
            self.i += 1
            inner = self._unary()
            if isinstance(inner, bool) or not isinstance(inner, int | float):
                raise NotLiteral("sign of a non-number")
            return -inner if ch == "-" else inner
        return self._primary()

    def _primary(self) -> Any:
        ch = self.peek()
        if ch == "(" and self.language == "rust":  # a tuple, or a parenthesised value
            self.i += 1
            items = self.items(")")
            if len(items) == 1 and not self.text[: self.i - 1].rstrip().endswith(","):
                return items[0]
            return items
        if ch == "(":
            self.i += 1
            inner = self.value()
            while self.peek() == ",":  # the comma operator: (0, 4) is 4
                self.i += 1
                inner = self.value()
            self.expect(")")
            return inner
        if ch == "{" and self.language != "java":
            self.i += 1
            return self._js_object() if self.language == "js" else self.items("}")
        if ch == "[" and self.language in ("js", "rust"):
            self.i += 1
            return self._postfix(self.items("]"))
        if ch == "&" and self.language == "rust":  # a reference compares as its value
            self.i += 1
            return self._primary()
        if ch == '"' or (ch in "'`" and self.language == "js"):
            return self._postfix(self._strings(ch))
        if ch == "'":
            text = self._quoted("'")
            if len(text) != 1:
                raise NotLiteral("multi-character char literal")
            return JChar(ord(text)) if self.language in ("java", "rust") else ord(text)
        if ch.isdigit() or ch == ".":
            return self._number()
        return self._word()

    def _number(self) -> Any:
        match = _NUMBER.match(self.text, self.i)
        if match is None:
            raise NotLiteral("bad number")
        self.i = match.end()
        body, suffix = match.group(1).replace("'", ""), match.group(2).lower()
        if self.language == "js" and suffix:
            raise NotLiteral("BigInt literal")
        if self.language == "java":
            return _java_number(body, suffix)
        if self.language == "rust":
            rust = re.compile(r"_*(?:[iu](?:8|16|32|64|128|size)|f32|f64)?").match(
                self.text, match.end(1)
            )
            assert rust is not None
            self.i = rust.end()
            body = body.replace("_", "")
            hexadecimal = body[:2].lower() in ("0x", "0b", "0o")
            if rust.group().strip("_").startswith("f") or (
                not hexadecimal and any(c in body for c in ".eE")
            ):
                value = float(body)
                return to_f32(value) if "f32" in rust.group() else value
            return int(body, 0) if hexadecimal else int(body)
        if body[:2].lower() in ("0x", "0b"):
            value: Any = int(body, 0)
        elif any(c in body for c in ".eE"):
            value = float(body)
            if "f" in suffix:
                value = to_f32(value)
        elif self.language == "cpp" and len(body) > 1 and body.startswith("0"):
            value = int(body, 8)
        else:
            value = int(body)
        return float(value) if self.language == "js" else value

    def _strings(self, quote: str) -> str:
        text = self._quoted(quote)
        while self.language == "cpp" and self.peek() == '"':  # "ab" "cd" is one literal
            text += self._quoted('"')
        return text

    def _quoted(self, quote: str) -> str:
        self.space()
        i, out = self.i + 1, []
        while True:
            if i >= len(self.text) or (self.text[i] == "\n" and quote != "`"):
                raise NotLiteral("unclosed string")
            ch = self.text[i]
            if ch == quote:
                break
            if quote == "`" and self.text.startswith("${", i):
                raise NotLiteral("template substitution")
            if ch == "\\":
                i, piece = self._escape(i + 1)
                out.append(piece)
                continue
            if self.language == "cpp" and ord(ch) >= 0x80:  # a C++ string is bytes: one
                ch = ch.encode("utf-8", "surrogatepass").decode("latin-1")  # code point each
            out.append(ch)
            i += 1
        self.i = i + 1
        return "".join(out)

    def _escape(self, i: int) -> tuple[int, str]:
        ch = self.text[i : i + 1]
        if ch == "x":
            match = re.match(
                r"[0-9a-fA-F]+" if self.language == "cpp" else r"[0-9a-fA-F]{2}", self.text[i + 1 :]
            )
            if not match:
                raise NotLiteral("bad \\x escape")
            return i + 1 + match.end(), chr(int(match.group(), 16) & 0xFF)
        if ch == "u" and self.language in ("js", "java", "rust"):
            braced = re.match(r"\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{4})", self.text[i + 1 :])
            if not braced:
                raise NotLiteral("bad \\u escape")
            return i + 1 + braced.end(), chr(int(braced.group(1) or braced.group(2), 16))
        if self.language in ("cpp", "java") and ch in "01234567":
            match = re.match(r"[0-7]{1,3}", self.text[i:])
            assert match is not None
            return i + match.end(), chr(int(match.group(), 8) & 0xFF)
        if ch == "\n":
            return i + 1, ""
        if ch in _CPP_ESCAPES:
            return i + 1, _CPP_ESCAPES[ch]
        if self.language == "js":
            return i + 1, ch
        raise NotLiteral(f"unknown escape \\{ch}")

    def _js_object(self) -> JsObject:
        items: list[tuple[str, Any]] = []
        while self.peek() != "}":
            ch = self.peek()
            if ch in "\"'":
                key = self._quoted(ch)
            elif ch.isdigit():
                key = js_number_to_string(self._number())
            else:
                match = _IDENT.match(self.text, self.i)
                if not match or "::" in match.group():
                    raise NotLiteral("bad key")
                key = match.group()
                self.i = match.end()
            self.expect(":")
            value = self.value()
            items = [(k, v) for k, v in items if k != key] + [(key, value)]
            if self.peek() == ",":
                self.i += 1
            elif self.peek() != "}":
                raise NotLiteral("expected ','")
        self.i += 1
        return JsObject(tuple(items))

    def _java_call(self) -> Any:
        """``Arrays.asList(...)``, ``List.of(...)``, ``new ArrayList<>(...)``,
        ``Optional.of(x)`` / ``Optional.empty()``, ``Collections.emptyList()``."""
        match = _JAVA_CALL.match(self.text, self.i)
        if match is None:
            raise NotLiteral("not a Java literal")
        self.i = match.end()
        args = self.items(")")
        kind = match.group("kind") or "new"
        if kind == "new":
            if len(args) > 1 or (args and not isinstance(args[0], list)):
                raise NotLiteral("new ArrayList of a non-list")
            return list(args[0]) if args else []
        if kind == "Optional.of":
            if len(args) != 1 or args[0] is None:
                raise NotLiteral("Optional.of takes one value")
            return JOptional((args[0],))
        if kind in ("Optional.empty", "Collections.emptyList") and args:
            raise NotLiteral(f"{kind} takes no argument")
        if kind == "Optional.empty":
            return JOptional(())
        return args

    def _postfix(self, value: Any) -> Any:
        """Rust: ``.to_string()``, ``.to_owned()``, ``.into()`` on a constant (same value)."""
        if self.language != "rust":
            return value
        while True:
            match = re.compile(r"\s*\.\s*(?:to_string|to_owned|into|to_vec)\s*\(\s*\)").match(
                self.text, self.i
            )
            if match is None:
                return value
            self.i = match.end()

    def _rust_word(self) -> Any:
        match = re.compile(
            r"vec!\s*\[|Some\s*\(|None\b|String\s*::\s*(?:from|new)\s*\(|Vec\s*::\s*new\s*\("
            r"|HashMap\s*::\s*(?:from|new)\s*\(|true\b|false\b"
        ).match(self.text, self.i)
        if match is None:
            raise NotLiteral("not a Rust literal")
        self.i = match.end()
        word = match.group()
        if word.startswith("vec!"):
            return self._postfix(self.items("]"))
        if word in ("true", "false"):
            return word == "true"
        if word == "None":
            return JOptional(())
        args = self.items(")")
        if word.startswith("Some"):
            if len(args) != 1:
                raise NotLiteral("Some takes one value")
            return JOptional((args[0],))
        if word.startswith("Vec"):
            if args:
                raise NotLiteral("Vec::new takes nothing")
            return []
        if word.startswith("HashMap"):  # its (key, value) pairs; compared as a map
            if "new" in word:
                if args:
                    raise NotLiteral("HashMap::new takes nothing")
                return []
            pairs = args[0] if len(args) == 1 and isinstance(args[0], list) else None
            if pairs is None or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
                raise NotLiteral("HashMap::from of a non-list of pairs")
            return pairs
        if "new" in word:
            if args:
                raise NotLiteral("String::new takes nothing")
            return ""
        if len(args) != 1 or not isinstance(args[0], str):
            raise NotLiteral("String::from of a non-string")
        return self._postfix(args[0])

    def _word(self) -> Any:
        if self.language == "rust":
            return self._rust_word()
        if self.language == "java" and _JAVA_CALL.match(self.text, self.i):
            return self._java_call()
        match = _IDENT.match(self.text, self.i)
        if match is None:
            raise NotLiteral("not a literal")
        word = match.group()
        self.i = match.end()
        if word in ("true", "false"):
            return word == "true"
        if self.language == "java":
            if word == "null":
                return None
            raise NotLiteral(word)
        if self.language == "js":
            known = {"null": None, "undefined": UNDEFINED, "NaN": math.nan, "Infinity": math.inf}
            if word in known:
                return known[word]
            raise NotLiteral(word)
        bare = word.removeprefix("std::")
        if bare == "string" and self.peek() == "(":
            self.i += 1
            if self.peek() == ")":
                self.i += 1
                return ""
            text = self.value()
            self.expect(")")
            if not isinstance(text, str):
                raise NotLiteral("string(...) of a non-string")
            return text
        if bare in ("vector", "map") and self.peek() == "<":
            self._skip_template()
            if self.peek() == "{":
                self.i += 1
                return self.items("}")
            self.expect("(")
            if self.peek() == ")":  # vector<T>()
                self.i += 1
                return []
            self.expect("{")  # MultiPL-E's std::vector<long>({1, 2})
            items = self.items("}")
            self.expect(")")
            return items
        raise NotLiteral(word)

    def _skip_template(self) -> None:
        depth = 0
        while self.i < len(self.text):
            ch = self.text[self.i]
            self.i += 1
            if ch == "<":
                depth += 1
            elif ch == ">":
                depth -= 1
                if depth == 0:
                    return
            elif not (ch.isalnum() or ch in " _:,*&"):
                break
        raise NotLiteral("bad template arguments")


def parse_literal(text: str, language: str) -> Any:
    """The constant ``text`` as a Python value (``language``: ``"cpp"`` or ``"js"``);
    NotLiteral when it is anything else (a variable, a call, an operator)."""
    reader = _Reader(text, language)
    value = reader.value()
    reader.space()
    if reader.i != len(text):
        raise NotLiteral("text after the literal")
    return value


def is_literal(text: str, language: str) -> bool:
    try:
        parse_literal(text, language)
    except (NotLiteral, ValueError, IndexError):
        return False
    return True
