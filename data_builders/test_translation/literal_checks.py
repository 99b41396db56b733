"""Whether a Python value fits the type a literal is declared with, before it is spelled.

The first job of :mod:`data_builders.test_translation.literals`: each check takes the value, its
declared :class:`~data_builders.test_translation.types.Type` and the language's name (for the
message), and returns the value as the spelling needs it (a list, a dict, a float) or raises
:class:`Untranslatable` with the reason. The helpers keep their leading underscore: they are
``literals.py``'s, moved here as they were (issue 28: the module was over ~450 lines).
"""

from __future__ import annotations

import math
from typing import Any

from data_builders.test_translation.types import Type


class Untranslatable(ValueError):
    """A Python value that has no literal of the declared type; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


# ---------------------------------------------------------------- shared checks
def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int_text(value: int) -> str:
    """An int for a message: huge ones by size (``str`` refuses over 4300 digits)."""
    return str(value) if value.bit_length() <= 128 else f"of {value.bit_length()} bits"


def _fit_int(value: Any, t: Type, language: str) -> int:
    if not _is_int(value):
        raise Untranslatable(f"{_kind(value)} where {language} {_spell(t)} is declared")
    bits = t.bits or 64
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if t.signed else (0, 2**bits - 1)
    if not low <= value <= high:
        raise Untranslatable(
            f"int {_int_text(value)} does not fit {language} {_spell(t)} ({bits}-bit)"
        )
    return value


def _fit_float(value: Any, t: Type, language: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Untranslatable(f"{_kind(value)} where {language} {_spell(t)} is declared")
    if _is_int(value) and abs(value) > 2**53:
        raise Untranslatable(f"int {_int_text(value)} is not exact as a {language} {_spell(t)}")
    number = float(value)
    if not math.isfinite(number):
        raise Untranslatable(f"non-finite float {number} has no {language} literal")
    return number


def _kind(value: Any) -> str:
    return "None" if value is None else type(value).__name__


def _spell(t: Type) -> str:
    return t.spelling or t.kind


def _check_str(value: Any, t: Type, language: str) -> str:
    if not isinstance(value, str):
        raise Untranslatable(f"{_kind(value)} where {language} {_spell(t)} is declared")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        raise Untranslatable("string with a lone surrogate has no literal")
    return value


def _check_char(value: Any, t: Type, language: str, ascii_only: bool) -> str:
    if not isinstance(value, str) or len(value) != 1:
        raise Untranslatable(f"{value!r} is not one character ({language} {_spell(t)})")
    if ascii_only and ord(value) > 0x7F:
        raise Untranslatable(f"{value!r} does not fit a {language} {_spell(t)} (one byte)")
    return value


def _sequence(value: Any, t: Type, language: str) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise Untranslatable(f"{_kind(value)} where {language} {_spell(t)} is declared")
    return list(value)


def _mapping(value: Any, t: Type, language: str) -> dict[Any, Any]:
    if not isinstance(value, dict):
        raise Untranslatable(f"{_kind(value)} where {language} {_spell(t)} is declared")
    return value


def _tuple_items(value: Any, t: Type, language: str) -> list[Any]:
    items = _sequence(value, t, language)
    if len(items) != len(t.args):
        raise Untranslatable(f"{len(items)} items where {language} {_spell(t)} has {len(t.args)}")
    return items
