"""Python values written as C++, Java, JavaScript, Go and Rust literals, through declared types.

HE-Eval's extended tests are Python values (``args`` tuples and expected results). To run
them against a HumanEval-X program they must be spelled in that language, and the spelling
depends on the declared type, not only on the value: a Java ``long`` needs ``5L`` (and
``Objects.equals(5L, 5)`` is false), a Rust float needs a ``.`` (``3`` is an integer there), a
Java ``List<Double>`` needs ``1.0`` (``Arrays.asList(1, 2.0)`` does not compile). A value that
does not fit its type (a Python int beyond a 32-bit ``int``, ``None`` where an ``int`` is
declared, a non-ASCII ``char``) raises :class:`Untranslatable` with the reason, so callers can
count the tests that do not translate and say why.

Strings keep their characters exactly: quotes, backslashes and control characters are
escaped, non-ASCII characters become the language's Unicode escape (C++ ``\\u00e9`` and Go
``\\u00e9`` are UTF-8 bytes at run time; Java and JavaScript hold UTF-16, Rust UTF-8).

Whether a value fits its declared type (and :class:`Untranslatable`, re-exported here) is
:mod:`~data_builders.test_translation.literal_checks`'s job; this module spells the values.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from data_builders.test_translation.literal_checks import (
    Untranslatable,
    _check_char,
    _check_str,
    _fit_float,
    _fit_int,
    _int_text,
    _is_int,
    _kind,
    _mapping,
    _sequence,
    _spell,
    _tuple_items,
)
from data_builders.test_translation.types import ANY, Type


def float_text(number: float) -> str:
    """Python's shortest round-trip repr, always with a ``.`` or an exponent (``3.0``, ``1e-05``)."""
    text = repr(number)
    return text if any(c in text for c in ".en") else text + ".0"


def _escape(text: str, named: dict[str, str], other: Callable[[int], str], quote: str) -> str:
    """Escape ``text`` for a ``quote``-delimited literal: named escapes, ``other`` for the rest."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch in named:
            out.append(named[ch])
        elif ch == quote or ch == "\\":
            out.append("\\" + ch)
        elif code < 0x20 or code == 0x7F or code > 0x7E:
            out.append(other(code))
        else:
            out.append(ch)
    return "".join(out)


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _u4_or_u8(code: int) -> str:
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _octal(code: int) -> str:
    return f"\\{code:03o}"


# ---------------------------------------------------------------- C++
def cpp_string(text: str) -> str:
    """A C++ string literal: octal escapes for control bytes (a ``\\x`` escape would swallow
    following hex digits), universal character names for non-ASCII (UTF-8 with g++)."""
    return '"' + _escape(text, _NAMED, lambda c: _octal(c) if c < 0x80 else _u4_or_u8(c), '"') + '"'


def cpp_type(t: Type) -> str:
    """The C++ spelling of a type, ``std::``-qualified (independent of ``using namespace``)."""
    if t.kind in ("int", "float") and t.spelling:
        return t.spelling
    if t.kind == "int":
        return {32: "int", 64: "long long"}[t.bits or 32] if t.signed else "size_t"
    if t.kind == "float":
        return "float" if t.bits == 32 else "double"
    if t.kind in ("list", "map", "tuple"):
        inner = ", ".join(cpp_type(a) for a in t.args)
        name = {"list": "std::vector", "map": "std::map"}.get(
            t.kind, f"std::{t.tuple_name or 'tuple'}"
        )
        if t.kind == "map" and "unordered" in t.spelling:
            name = "std::unordered_map"
        return f"{name}<{inner}>"
    return {"bool": "bool", "str": "std::string", "char": "char"}.get(t.kind, t.spelling)


def cpp_literal(value: Any, t: Type) -> str:
    """``value`` as a C++17 expression of type ``t`` (vectors and maps are typed: ``std::vector<int>{1, 2}``)."""
    if t.kind == "int":
        number = _fit_int(value, t, "C++")
        return "(-9223372036854775807LL - 1)" if number == -(2**63) else str(number)
    if t.kind == "float":
        text = float_text(_fit_float(value, t, "C++"))
        return text + "f" if t.bits == 32 else text
    if t.kind == "bool":
        return _bool(value, t, "C++")
    if t.kind == "str":
        return cpp_string(_check_str(value, t, "C++"))
    if t.kind == "char":
        ch = _check_char(value, t, "C++", ascii_only=True)
        return "'" + _escape(ch, _NAMED, _octal, "'") + "'"
    if t.kind == "list":
        items = ", ".join(cpp_literal(v, t.args[0]) for v in _sequence(value, t, "C++"))
        return f"{cpp_type(t)}{{{items}}}"
    if t.kind == "tuple":
        items = _tuple_items(value, t, "C++")
        return f"{cpp_type(t)}{{{', '.join(cpp_literal(v, a) for v, a in zip(items, t.args, strict=True))}}}"
    if t.kind == "map":
        pairs = ", ".join(
            f"{{{cpp_literal(k, t.args[0])}, {cpp_literal(v, t.args[1])}}}"
            for k, v in _mapping(value, t, "C++").items()
        )
        return f"{cpp_type(t)}{{{pairs}}}"
    raise Untranslatable(f"C++ {_spell(t)} has no literal form")


def _bool(value: Any, t: Type, language: str) -> str:
    if not isinstance(value, bool):
        raise Untranslatable(f"{_kind(value)} where {language} {_spell(t)} is declared")
    return "true" if value else "false"


# ---------------------------------------------------------------- Java
def java_string(text: str, quote: str = '"') -> str:
    """A Java string (or char) literal body: octal escapes below 0x20 (a ``\\u000a`` escape
    would end the line before the lexer runs), ``\\uXXXX`` (surrogate pairs) above 0x7e."""

    def other(code: int) -> str:
        if code < 0x80:
            return _octal(code)
        if code <= 0xFFFF:
            return f"\\u{code:04x}"
        high, low = 0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)
        return f"\\u{high:04x}\\u{low:04x}"

    return quote + _escape(text, {**_NAMED, "\b": "\\b", "\f": "\\f"}, other, quote) + quote


def java_literal(value: Any, t: Type) -> str:
    """``value`` as a Java expression of type ``t`` (lists are mutable ``ArrayList``s, as
    HumanEval-X passes them: canonical solutions sort their arguments in place)."""
    if t.kind == "int":
        number = _fit_int(value, t, "Java")
        return f"{number}L" if t.bits == 64 else str(number)
    if t.kind == "float":
        text = float_text(_fit_float(value, t, "Java"))
        return text + "f" if t.bits == 32 else text
    if t.kind == "bool":
        return _bool(value, t, "Java")
    if t.kind == "str":
        return java_string(_check_str(value, t, "Java"))
    if t.kind == "char":
        ch = _check_char(value, t, "Java", ascii_only=False)
        if ord(ch) > 0xFFFF:
            raise Untranslatable(f"{ch!r} does not fit a Java char (UTF-16 unit)")
        return java_string(ch, "'")
    if t.kind == "list":
        items = [java_literal(v, t.args[0]) for v in _sequence(value, t, "Java")]
        if not items:
            return "new ArrayList<>()"
        return f"new ArrayList<>(Arrays.asList({', '.join(items)}))"
    if t.kind == "map":
        entries = []
        for k, v in _mapping(value, t, "Java").items():
            if k is None or v is None:
                raise Untranslatable("Java Map.entry does not take null keys or values")
            entries.append(f"Map.entry({java_literal(k, t.args[0])}, {java_literal(v, t.args[1])})")
        return (
            f"new HashMap<>(Map.ofEntries({', '.join(entries)}))" if entries else "new HashMap<>()"
        )
    if t.kind == "optional":
        if value is None:
            return "Optional.empty()"
        return f"Optional.of({java_literal(value, t.args[0])})"
    if t.kind == "tuple":
        items = _tuple_items(value, t, "Java")
        inner = ", ".join(java_literal(v, a) for v, a in zip(items, t.args, strict=True))
        return f"{t.tuple_name}.with({inner})"
    if t.kind == "object":
        return "null" if value is None else java_literal(value, _dynamic(value, "Java"))
    raise Untranslatable(f"Java {_spell(t)} has no literal form")


def _dynamic(value: Any, language: str) -> Type:
    """The type a value takes where the declaration leaves it open (Java ``Object``, Go
    ``interface{}``): the boxed type of the value itself, collections of ``Object``."""
    obj = Type("object", spelling="Object" if language == "Java" else "interface{}")
    if isinstance(value, bool):
        return Type("bool", spelling="bool")
    if _is_int(value):
        return Type("int", bits=32 if language == "Java" and -(2**31) <= value < 2**31 else 64)
    if isinstance(value, float):
        return Type("float", bits=64, spelling="double")
    if isinstance(value, str):
        return Type("str", spelling="String")
    if isinstance(value, list | tuple):
        return Type("list", (obj,), spelling=f"list of {obj.spelling}")
    if isinstance(value, dict):
        return Type("map", (obj, obj), spelling=f"map of {obj.spelling}")
    raise Untranslatable(f"{_kind(value)} has no {language} literal")


# ---------------------------------------------------------------- JavaScript
def js_string(text: str) -> str:
    """A JavaScript string literal (``\\xHH`` below 0x80, ``\\uXXXX``/``\\u{...}`` above)."""

    def other(code: int) -> str:
        if code < 0x80:
            return f"\\x{code:02x}"
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\u{{{code:x}}}"

    return '"' + _escape(text, _NAMED, other, '"') + '"'


def js_literal(value: Any, t: Type = ANY) -> str:
    """``value`` as a JavaScript expression: arrays for lists and tuples, object literals for
    dicts with string or int keys, ``null`` for None; ints beyond 2**53 are not exact numbers."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if _is_int(value):
        if abs(value) > 2**53:
            raise Untranslatable(f"int {_int_text(value)} is not exact as a JavaScript number")
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return float_text(value)
    if isinstance(value, str):
        _check_str(value, t, "JavaScript")
        return js_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(js_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            if isinstance(k, bool) or not isinstance(k, str | int):
                raise Untranslatable(f"{_kind(k)} dict key has no JavaScript object-key form")
            key = js_string(k) if isinstance(k, str) else str(k)
            parts.append(f"{key}: {js_literal(v)}")
        return "{" + ", ".join(parts) + "}"
    raise Untranslatable(f"{_kind(value)} has no JavaScript literal")


# ---------------------------------------------------------------- Go
def go_string(text: str, quote: str = '"') -> str:
    """A Go interpreted string (or rune) literal; ``\\u``/``\\U`` escapes are UTF-8 at run time."""
    return (
        quote
        + _escape(text, _NAMED, lambda c: f"\\x{c:02x}" if c < 0x80 else _u4_or_u8(c), quote)
        + quote
    )


def go_type(t: Type) -> str:
    """The Go spelling of a type."""
    if t.kind in ("int", "float") and t.spelling:
        return t.spelling
    if t.kind == "list":
        return "[]" + go_type(t.args[0])
    if t.kind == "array":
        return f"[{t.size}]" + go_type(t.args[0])
    if t.kind == "map":
        return f"map[{go_type(t.args[0])}]{go_type(t.args[1])}"
    if t.kind == "int":
        return "int" if t.bits == 64 else "int32"
    if t.kind == "float":
        return "float64" if t.bits == 64 else "float32"
    return {"bool": "bool", "str": "string", "char": "rune", "object": "interface{}"}.get(
        t.kind, t.spelling
    )


def go_literal(value: Any, t: Type) -> str:
    """``value`` as a Go expression of type ``t`` (composite literals spell their type)."""
    if t.kind == "int":
        return str(_fit_int(value, t, "Go"))
    if t.kind == "float":
        return float_text(_fit_float(value, t, "Go"))
    if t.kind == "bool":
        return _bool(value, t, "Go")
    if t.kind == "str":
        return go_string(_check_str(value, t, "Go"))
    if t.kind == "char":
        return go_string(_check_char(value, t, "Go", ascii_only=False), "'")
    if t.kind == "list":
        items = ", ".join(go_literal(v, t.args[0]) for v in _sequence(value, t, "Go"))
        return f"{go_type(t)}{{{items}}}"
    if t.kind == "array":
        items = _sequence(value, t, "Go")
        if len(items) != t.size:
            raise Untranslatable(f"{len(items)} items where Go {_spell(t)} has {t.size}")
        return f"{go_type(t)}{{{', '.join(go_literal(v, t.args[0]) for v in items)}}}"
    if t.kind == "map":
        pairs = ", ".join(
            f"{go_literal(k, t.args[0])}: {go_literal(v, t.args[1])}"
            for k, v in _mapping(value, t, "Go").items()
        )
        return f"{go_type(t)}{{{pairs}}}"
    if t.kind == "object":
        if value is None:
            return "nil"
        dynamic = _dynamic(value, "Go")
        return go_literal(value, dynamic)
    raise Untranslatable(f"Go {_spell(t)} has no literal form")


# ---------------------------------------------------------------- Rust
def rust_string(text: str, quote: str = '"') -> str:
    """A Rust string (or char) literal: ``\\xHH`` below 0x80, ``\\u{...}`` above."""
    named = {**_NAMED, "\0": "\\0"}
    return (
        quote
        + _escape(text, named, lambda c: f"\\x{c:02x}" if c < 0x80 else f"\\u{{{c:x}}}", quote)
        + quote
    )


def rust_type(t: Type) -> str:
    """The Rust spelling of a type (for turbofish on empty collections)."""
    if t.kind in ("int", "float") and t.spelling:
        return t.spelling
    if t.kind == "int":
        return ("i" if t.signed else "u") + str(t.bits or 32)
    if t.kind == "float":
        return f"f{t.bits or 64}"
    if t.kind == "str":
        return "String" if t.owned else "&str"
    if t.kind == "list":
        return f"Vec<{rust_type(t.args[0])}>"
    if t.kind == "map":
        return f"HashMap<{rust_type(t.args[0])}, {rust_type(t.args[1])}>"
    if t.kind == "optional":
        return f"Option<{rust_type(t.args[0])}>"
    if t.kind == "tuple":
        return "(" + ", ".join(rust_type(a) for a in t.args) + ")"
    return {"bool": "bool", "char": "char"}.get(t.kind, t.spelling)


def rust_literal(value: Any, t: Type) -> str:
    """``value`` as a Rust expression of type ``t`` (``&`` for reference parameters)."""
    text = _rust_value(value, t)
    return "&" + text if t.ref else text


def _rust_value(value: Any, t: Type) -> str:
    if t.kind == "int":
        return str(_fit_int(value, t, "Rust"))
    if t.kind == "float":
        return float_text(_fit_float(value, t, "Rust"))
    if t.kind == "bool":
        return _bool(value, t, "Rust")
    if t.kind == "str":
        text = rust_string(_check_str(value, t, "Rust"))
        return f"{text}.to_string()" if t.owned else text
    if t.kind == "char":
        return rust_string(_check_char(value, t, "Rust", ascii_only=False), "'")
    if t.kind == "list":
        items = [rust_literal(v, t.args[0]) for v in _sequence(value, t, "Rust")]
        return f"vec![{', '.join(items)}]" if items else f"Vec::<{rust_type(t.args[0])}>::new()"
    if t.kind == "map":
        pairs = [
            f"({rust_literal(k, t.args[0])}, {rust_literal(v, t.args[1])})"
            for k, v in _mapping(value, t, "Rust").items()
        ]
        if not pairs:
            return f"{rust_type(Type('map', t.args)).replace('HashMap<', 'HashMap::<', 1)}::new()"
        return f"HashMap::from([{', '.join(pairs)}])"
    if t.kind == "optional":
        return "None" if value is None else f"Some({rust_literal(value, t.args[0])})"
    if t.kind == "tuple":
        items = _tuple_items(value, t, "Rust")
        inner = ", ".join(rust_literal(v, a) for v, a in zip(items, t.args, strict=True))
        return f"({inner},)" if len(items) == 1 else f"({inner})"
    raise Untranslatable(f"Rust {_spell(t)} has no literal form")


LITERALS: dict[str, Callable[[Any, Type], str]] = {
    "cpp": cpp_literal,
    "java": java_literal,
    "js": js_literal,
    "go": go_literal,
    "rust": rust_literal,
}


def literal(language: str, value: Any, t: Type) -> str:
    """``value`` in ``language`` (``cpp``, ``java``, ``js``, ``go``, ``rust``) as type ``t``.

    Raises:
        Untranslatable: the value does not fit ``t`` (the reason names value and type).
    """
    if language not in LITERALS:
        raise ValueError(f"unknown language {language!r}; expected one of {sorted(LITERALS)}")
    return LITERALS[language](value, t)
