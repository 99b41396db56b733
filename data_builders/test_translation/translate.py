"""The extended cases of one HumanEval-X task as assertions in its language: the ones that
translate, and why the others do not (reasons with their values masked, so they group)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from data_builders.test_translation.assertions import assertion
from data_builders.test_translation.literals import Untranslatable
from data_builders.test_translation.types import TypeParseError, parse_signature

Case = tuple[Sequence[Any], Any]


def reason_key(reason: str) -> str:
    """Group reasons: mask the concrete values (``int 3000000000`` -> ``int N``)."""
    reason = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "<value>", reason)
    reason = re.sub(r"-?\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b", "N", reason)
    return reason


def translate_task(
    row: dict, cases: Sequence[Case], entry_point: str | None = None
) -> tuple[list[str], Counter[str]]:
    """Assertions for the cases of one HumanEval-X row, and the masked reasons of the others."""
    reasons: Counter[str] = Counter()
    try:
        sig = parse_signature(row, entry_point)
    except TypeParseError as exc:
        reasons[f"signature: {reason_key(str(exc).split(': ', 1)[-1])}"] += len(cases)
        return [], reasons
    out = []
    for args, expected in cases:
        try:
            out.append(assertion(sig, args, expected))
        except Untranslatable as exc:
            reasons[reason_key(exc.reason)] += 1
    return out, reasons
