"""The values of host-side verdicts: what a program reports and the constants of its test.

A program in another language writes each value case's value in a tagged JSON serialisation
(``checks.py`` says why); :func:`decode_value` reads it into the Python types here,
which the literal reader (``literals.py``) also gives the test's constants, so the
comparisons (``semantics.py``, ``js_semantics.py``) see one representation.

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

Python's values (``execution/values.py``) travel in the same envelope with tags of their own;
why the two vocabularies stay apart is said there (each is written inside the sandbox, and each
decodes into what its language's comparisons need).
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from typing import Any

MAX_VALUE_BYTES = 4 * 1024 * 1024
"""A serialised value longer than this is cut by the support code and fails here."""


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
class Turns:
    """Every turn's value of an assertion in a loop that is one case (Java: ``{"$turns":
    [[values...], error]}``), and the error that ended the loop (``(status, detail)``) or
    None."""

    values: list[Any]
    error: tuple[str, str] | None


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


def to_f32(x: float) -> float:
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


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
    if tag == "$turns" and depth == 0:
        values, error = inner
        if error is not None:
            error = ("memory" if error[0] == "memory" else "runtime_error", str(error[1]))
        return Turns([_decode(v, depth + 1) for v in values], error)
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
