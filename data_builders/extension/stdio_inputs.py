"""New standard-input texts from the original ones (APPS standard-input problems).

The structure of a stdin input (how many lines, how many tokens, which are counts) is
problem-specific and unknown, so mutations keep the layout and edit tokens in place:
numbers get type-preserving numeric edits (sign kept for non-negative originals, since
most APPS inputs are sizes and counts), words get string edits. Inputs that break the
problem's format make the reference crash and are dropped afterwards; with two reference
solutions, outputs must also agree.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence

from data_builders.execution import int_from_decimal, int_to_decimal
from data_builders.extension.inputs import Bounds, Mutator

_TOKEN = re.compile(r"\S+")
_INT = re.compile(r"[+-]?\d+")


def _edit_token(token: str, rng: random.Random, mutator: Mutator) -> str:
    if _INT.fullmatch(token):
        value = int_from_decimal(token)  # tokens may have 100,000 digits
        new = mutator.mutate(value)
        if value >= 0:
            new = abs(new)
        return int_to_decimal(new)
    try:
        value = float(token)
    except ValueError:
        return mutator.mutate(token) or token
    return repr(abs(mutator.mutate(value)) if value >= 0 else mutator.mutate(value))


def _mutate_text(text: str, rng: random.Random, mutator: Mutator) -> str:
    spans = [m.span() for m in _TOKEN.finditer(text)]
    if not spans:
        return text
    chosen = sorted(rng.sample(spans, min(len(spans), rng.randint(1, 3))), reverse=True)
    for start, end in chosen:
        text = text[:start] + _edit_token(text[start:end], rng, mutator) + text[end:]
    return text


def generate_stdin(
    seeds: Sequence[str], rng: random.Random, count: int, exclude: set[str] | None = None
) -> list[str]:
    """Up to ``count`` new distinct stdin texts derived from ``seeds`` by token edits."""
    seeds = [s for s in seeds if isinstance(s, str)]
    if not seeds or count <= 0:
        return []
    largest = max((abs(int_from_decimal(t)) for s in seeds for t in _INT.findall(s)), default=10)
    bounds = Bounds(max_len=50, max_abs_int=max(2 * largest + 10, 50), max_str_len=200)
    mutator = Mutator(rng, bounds, list(seeds))
    seen = set(seeds) | set(exclude or ())
    out: list[str] = []
    parents = list(seeds)
    for _ in range(20 * count):
        if len(out) >= count:
            break
        text = _mutate_text(rng.choice(parents), rng, mutator)
        if text not in seen:
            seen.add(text)
            out.append(text)
            parents.append(text)
    return out
