"""Reading an assertion's shape for host-side verdicts, shared by the C-like languages.

An assertion ``actual OP expected`` whose ``expected`` is a constant becomes a value case: the
driver computes ``actual`` and the host applies a :class:`~data_builders.execution.compiled.checks.Check`.
These helpers find the two sides of the shapes every language shares; each language module
adds its own (``issame``, ``JSON.stringify``) and says which shapes it recognises.
"""

from __future__ import annotations

import re

from data_builders.execution.compiled.checks import Check
from data_builders.execution.compiled.languages.source import code_mask, matching, top_level
from data_builders.execution.compiled.literals import NotLiteral, is_literal, parse_literal


def binary_operators(text: str, ops: tuple[str, ...], quotes: str = "\"'") -> list[int]:
    """Positions of the top-level binary ``ops`` (``-``, ``+``) in ``text``: not a sign,
    not part of an exponent (``1e-4``), ``->``, ``--`` or ``+=``."""
    out = []
    for i, op in top_level(text, ("->", "--", "-=", "++", "+=", *ops), quotes):
        if op not in ops:
            continue
        before = text[:i].rstrip()
        if not before or not (before[-1].isalnum() or before[-1] in "_$)]}\"'`"):
            continue
        if re.search(r"(?<![\w.])\d+\.?\d*[eE]$", before):
            continue
        out.append(i)
    return out


def literal_side(left: str, right: str, language: str) -> tuple[str, str] | None:
    """``(actual, literal)`` when exactly one side is a constant."""
    if is_literal(right, language) and not is_literal(left, language):
        return left, right
    if is_literal(left, language) and not is_literal(right, language):
        return right, left
    return None


def abs_check(
    text: str, language: str, abs_call: str, negate: bool, assertion: str, quotes: str = "\"'"
) -> tuple[str, Check] | None:
    """``abs(X - L) < T`` (``<=``; ``X + L``, ``L - X``; ``abs_call`` the language's
    ``abs(``): ``(X, close check)``, else None."""
    match = re.match(abs_call, text)
    if match is None:
        return None
    try:
        close = matching(text, match.end() - 1, code_mask(text, quotes))
        bound = re.fullmatch(r"(<=|<)\s*(.+)", text[close + 1 :].strip(), re.S)
        inner = text[match.end() : close]
        ops = binary_operators(inner, ("-", "+"), quotes)
        if bound is None or not ops:
            return None
        tol = parse_literal(bound.group(2), language)
        plus = inner[ops[-1]] == "+"
        left, right = inner[: ops[-1]].strip(), inner[ops[-1] + 1 :].strip()
        if is_literal(right, language) and not is_literal(left, language):
            actual, literal = left, right
        elif is_literal(left, language) and not binary_operators(right, ("-", "+"), quotes):
            actual, literal = right, left
        else:
            return None
        expected = parse_literal(literal, language)
    except (NotLiteral, ValueError, IndexError):
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in (tol, expected)):
        return None
    if plus:  # abs(X + L) = abs(X - (-L))
        expected = -expected
    check = Check(
        language, "close", float(expected), tol=float(tol), inclusive=bound.group(1) == "<=",
        negate=negate, text=assertion,
    )  # fmt: skip
    return actual, check
