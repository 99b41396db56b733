"""Seeded, type-aware generation of new inputs from the inputs of the original tests.

Why this shape: like EvalPlus and the CodeScore paper, new tests come from inputs *of the
same types* as the original ones, obtained by mutating them (boundaries, signs, sizes,
empty/singleton collections, string edits, nested structures) and by enumerating boundary
values per argument. Expected outputs are not produced here: the reference solution is run
on every input later, and inputs on which it errors or times out are dropped, which filters
most inputs that break the problem's preconditions.

Everything is driven by one ``random.Random`` and never iterates a ``set`` in hash order,
so the same seed gives the same inputs in every process (``PYTHONHASHSEED`` is irrelevant).
"""

from __future__ import annotations

import math
import random
import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from data_builders.extension.invariants import Invariants

Args = tuple[Any, ...]


@dataclass(frozen=True)
class Bounds:
    """Size limits that keep generated inputs cheap to run (learned from the seeds)."""

    max_len: int
    max_abs_int: int
    max_str_len: int


def canonical(value: Any) -> str:
    """A hash-order-free key: equal inputs (including sets) give the same string."""
    if isinstance(value, (set, frozenset)):
        inner = ",".join(sorted(canonical(item) for item in value))
        return f"{type(value).__name__}{{{inner}}}"
    if isinstance(value, dict):
        inner = ",".join(f"{canonical(k)}:{canonical(v)}" for k, v in value.items())
        return f"dict{{{inner}}}"
    if isinstance(value, (list, tuple)):
        inner = ",".join(canonical(item) for item in value)
        return f"{type(value).__name__}[{inner}]"
    if isinstance(value, float) and math.isnan(value):
        return "float(nan)"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"int:{value:x}"  # hex: no digit limit for huge ints
    return f"{type(value).__name__}:{value!r}"


def _ordered(values: Any) -> list[Any]:
    return sorted(values, key=canonical)


def learn_bounds(seeds: Sequence[Args], size_factor: float = 2.0) -> Bounds:
    """Bounds from the largest collection, integer and string seen in the seeds."""
    lens, ints, strs = [3], [10], [5]

    def visit(value: Any) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, int):
            ints.append(abs(value))
        elif isinstance(value, str):
            strs.append(len(value))
        elif isinstance(value, (list, tuple, set, frozenset, dict)):
            lens.append(len(value))
            for item in _ordered(value) if isinstance(value, (set, frozenset)) else value:
                visit(item)
            if isinstance(value, dict):
                for item in value.values():
                    visit(item)

    for args in seeds:
        for value in args:
            visit(value)
    return Bounds(
        max_len=min(int(max(lens) * size_factor) + 2, 200),
        max_abs_int=max(min(int(max(ints) * size_factor) + 10, 10**9), 50),
        max_str_len=min(int(max(strs) * size_factor) + 3, 400),
    )


class Mutator:
    """Type-preserving random edits of Python values."""

    def __init__(self, rng: random.Random, bounds: Bounds, pool: Sequence[Any]) -> None:
        self.rng = rng
        self.bounds = bounds
        self.chars = self._alphabet(pool)
        self.items = _collection_items(pool)  # prototypes for filling empty collections
        self.words = sorted({w for v in pool if isinstance(v, str) for w in v.split(" ") if w})

    @staticmethod
    def _alphabet(pool: Sequence[Any]) -> str:
        seen: dict[str, None] = {}
        stack = list(pool)
        while stack and len(seen) < 200:
            value = stack.pop()
            if isinstance(value, str):
                seen.update(dict.fromkeys(value))
            elif isinstance(value, (list, tuple)):
                stack.extend(value)
            elif isinstance(value, dict):
                stack.extend(value)
                stack.extend(value.values())
            elif isinstance(value, (set, frozenset)):
                stack.extend(_ordered(value))
        chars = "".join(sorted(seen)) or string.ascii_lowercase
        return chars + string.ascii_lowercase[:3] + " 0"

    def mutate(self, value: Any, depth: int = 0) -> Any:
        """One random type-preserving edit of ``value``."""
        if isinstance(value, bool):
            return not value
        if isinstance(value, int):
            return self._int(value)
        if isinstance(value, float):
            return self._float(value)
        if isinstance(value, str):
            return self._str(value)
        if isinstance(value, list):
            return self._seq(value, depth)
        if isinstance(value, tuple):
            return self._tuple(value, depth)
        if isinstance(value, (set, frozenset)):
            return type(value)(x for x in self._seq(_ordered(value), depth) if _hashable(x))
        if isinstance(value, dict):
            return self._dict(value, depth)
        return value

    def _clip(self, value: int) -> int:
        limit = self.bounds.max_abs_int
        return max(-limit, min(limit, value))

    def _int(self, value: int) -> int:
        rng = self.rng
        choice = rng.randrange(9)
        options = (
            value + 1,
            value - 1,
            -value,
            0,
            1,
            value * 2,
            value // 2,
            value + rng.randint(-10, 10),
            rng.randint(-self.bounds.max_abs_int, self.bounds.max_abs_int),
        )
        return self._clip(options[choice])

    def _float(self, value: float) -> float:
        rng = self.rng
        choice = rng.randrange(7)
        options = (
            value + rng.uniform(-1, 1),
            value * rng.uniform(0.5, 1.5),
            -value,
            0.0,
            round(value, 1),
            float(round(value)),
            rng.uniform(-self.bounds.max_abs_int, self.bounds.max_abs_int),
        )
        return round(options[choice], 6)

    def _str(self, value: str) -> str:
        rng = self.rng
        if " " in value.strip() and rng.random() < 0.4:
            return self._words(value)[: self.bounds.max_str_len]
        choice = rng.randrange(10)
        pos = rng.randrange(len(value) + 1)
        char = rng.choice(self.chars)
        if choice == 0 or not value:
            out = value[:pos] + char + value[pos:]
        elif choice == 1:
            out = value[:pos] + value[pos + 1 :]
        elif choice == 2:
            out = value[:pos] + char + value[pos + 1 :]
        elif choice == 3 and len(value) > 1:
            i = rng.randrange(len(value) - 1)
            out = value[:i] + value[i + 1] + value[i] + value[i + 2 :]
        elif choice == 4:
            out = value[::-1]
        elif choice == 5:
            out = value.swapcase()
        elif choice == 6:
            out = value + value[pos:]
        elif choice == 7:
            out = value[rng.randrange(len(value)) :]
        elif choice == 8:
            out = rng.choice(["", value[:1]])
        else:
            out = "".join(rng.choice(self.chars) for _ in range(rng.randint(1, len(value) + 2)))
        return out[: self.bounds.max_str_len]

    def _words(self, value: str) -> str:
        """Word-level edits, for inputs such as ``"three one five"`` or ``"o o| .|"`` whose
        valid values are sequences of tokens from a small vocabulary."""
        rng = self.rng
        words = value.split(" ")
        choice = rng.randrange(5)
        if choice == 0:
            rng.shuffle(words)
        elif choice == 1 and len(words) > 1:
            words.pop(rng.randrange(len(words)))
        elif choice == 2:
            words.insert(rng.randrange(len(words) + 1), rng.choice(self.words or words))
        elif choice == 3:
            words[rng.randrange(len(words))] = rng.choice(self.words or words)
        else:
            words = words + words[: rng.randint(1, len(words))]
        return " ".join(words)

    def _seq(self, value: list[Any], depth: int) -> list[Any]:
        rng = self.rng
        out = list(value)
        choice = rng.randrange(10)
        if choice == 0 or (choice < 4 and not out):
            proto = rng.choice(out or self.items or [0])
            out.insert(rng.randrange(len(out) + 1), self.mutate(proto, depth + 1))
        elif choice == 1:
            out.pop(rng.randrange(len(out)))
        elif choice in (2, 3) and depth < 3:
            i = rng.randrange(len(out))
            out[i] = self.mutate(out[i], depth + 1)
        elif choice == 4:
            rng.shuffle(out)
        elif choice == 5:
            out = sorted(out, key=canonical) if out and not _numeric(out) else sorted(out)
        elif choice == 6:
            out.reverse()
        elif choice == 7:
            out = out + out[: rng.randint(0, len(out))]
        elif choice == 8:
            out = [] if rng.random() < 0.5 else out[:1]
        else:
            out = [self.mutate(item, depth + 1) if rng.random() < 0.3 else item for item in out]
        return out[: self.bounds.max_len]

    def _tuple(self, value: tuple[Any, ...], depth: int) -> tuple[Any, ...]:
        if value and len({type(item) for item in value}) == 1 and len(value) > 3:
            return tuple(self._seq(list(value), depth))
        if not value:
            return value
        i = self.rng.randrange(len(value))
        return value[:i] + (self.mutate(value[i], depth + 1),) + value[i + 1 :]

    def _dict(self, value: dict[Any, Any], depth: int) -> dict[Any, Any]:
        rng = self.rng
        out = dict(value)
        keys = list(out)
        choice = rng.randrange(4)
        if choice == 0 and keys:
            del out[rng.choice(keys)]
        elif choice == 1 and keys:
            key = rng.choice(keys)
            out[key] = self.mutate(out[key], depth + 1)
        elif choice == 2 and keys:
            key = self.mutate(rng.choice(keys), depth + 1)
            if _hashable(key):
                out[key] = out[rng.choice(keys)]
        else:
            out = {} if rng.random() < 0.5 else out
        return out


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _collection_items(pool: Sequence[Any]) -> list[Any]:
    items: list[Any] = []
    for value in pool:
        if isinstance(value, (list, tuple)):
            items.extend(value)
        elif isinstance(value, (set, frozenset)):
            items.extend(_ordered(value))
    return items[:50]


def _numeric(values: list[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def boundary_values(value: Any) -> list[Any]:
    """Deterministic edge cases of the same type: zero/one/negatives, empty and singleton
    collections, empty and one-character strings."""
    if isinstance(value, bool):
        return [True, False]
    if isinstance(value, int):
        return [0, 1, -1, 2, abs(value) + 1, -abs(value)]
    if isinstance(value, float):
        return [0.0, 1.0, -1.0, 0.5, -value]
    if isinstance(value, str):
        return ["", value[:1], value[:1] * 3, value.upper(), value.lower()]
    if isinstance(value, (list, tuple, set, frozenset)):
        items = _ordered(value) if isinstance(value, (set, frozenset)) else list(value)
        kind = type(value)
        out = [kind([]), kind(items[:1]), kind(items[-1:])]
        if len(items) > 1:
            out.append(kind(items[:2]))
        return out
    if isinstance(value, dict):
        return [{}, dict(list(value.items())[:1])]
    return []


def generate_inputs(
    seeds: Sequence[Args],
    rng: random.Random,
    count: int,
    exclude: set[str] | None = None,
    max_attempts: int | None = None,
) -> list[Args]:
    """Up to ``count`` distinct new argument tuples, not equal to any seed.

    Half by enumeration (each seed with one argument replaced by a boundary value of its
    type), the rest by chains of 1-3 mutations of seeds and of already generated inputs.

    Args:
        seeds: the original tests' argument tuples (all of the same arity).
        rng: the seeded generator; the only source of randomness.
        count: how many new inputs to return at most.
        exclude: :func:`canonical` keys of inputs already tried (e.g. in an earlier round).
        max_attempts: cap on mutation attempts (default ``20 * count``).
    """
    seeds = [tuple(args) for args in seeds if args]
    if not seeds or count <= 0:
        return []
    bounds = learn_bounds(seeds)
    invariants = Invariants.infer(seeds)
    mutators = [
        Mutator(rng, bounds, [args[i] for args in seeds if i < len(args)])
        for i in range(max(len(args) for args in seeds))
    ]
    excluded = set(exclude or ())
    seen = {canonical(args) for args in seeds} | excluded
    out: list[Args] = []

    def add(args: Args) -> None:
        key = canonical(args)
        if key not in seen and len(out) < count and invariants.holds(args):
            seen.add(key)
            out.append(args)

    for args in seeds:
        for position, value in enumerate(args):
            for edge in boundary_values(value):
                add(args[:position] + (edge,) + args[position + 1 :])
    enumerated = out[: count // 2]
    del out[count // 2 :]
    seen = {canonical(args) for args in [*seeds, *enumerated]} | excluded
    parents = list(seeds)
    for _ in range(max_attempts or 20 * count):
        if len(out) >= count:
            break
        args = list(rng.choice(parents))
        for _ in range(rng.randint(1, 3)):
            position = rng.randrange(len(args))
            args[position] = mutators[position].mutate(args[position])
        candidate = tuple(args)
        before = len(out)
        add(candidate)
        if len(out) > before:
            parents.append(candidate)
    return out
