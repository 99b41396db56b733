"""Test-case parsing, seeded type-aware input generation, signature seeds (no execution)."""

from __future__ import annotations

import random
import subprocess
import sys

from data_builders.extension.cases import Case, parse_cases
from data_builders.extension.inputs import canonical, generate_inputs
from data_builders.extension.signature import seeds_from_signature
from data_builders.extension.stdio_inputs import generate_stdin

CHECK = """
def check(candidate):
    assert candidate([1, 2], 3) == 6
    assert 7 == candidate([2, 2], 3)
    assert not candidate([], 0)
    assert candidate([5], 1)
    assert abs(candidate([1.5], 2) - 3.0) < 1e-6
    assert set(candidate((1, 2), 0)) == set((1, 2))
    assert candidate([x for x in range(3)], 1) == 4
    for i in range(3):
        assert candidate([i], i) == 2 * i
"""


def test_parse_cases_reads_common_assert_shapes() -> None:
    cases = parse_cases(CHECK, "f")
    assert cases[:5] == [
        Case(([1, 2], 3), 6),
        Case(([2, 2], 3), 7),
        Case(([], 0), False),
        Case(([5], 1), True),
        Case(([1.5], 2), 3.0),
    ]
    assert cases[5] == Case(((1, 2), 0), None, has_expected=False)  # inputs still learned
    assert len(cases) == 6  # comprehension args and loop bodies are not guessed at


def test_parse_cases_accepts_mbpp_calls_by_name_and_rejects_code() -> None:
    tests = "assert add(2, 3) == 5\nassert add(*[1, 2]) == 3\nassert add(len('ab'), 1) == 3\n"
    assert parse_cases(tests, "add ") == [Case((2, 3), 5)]
    assert parse_cases("def check(:\n", "f") == []


def test_generation_is_seeded_typed_and_excludes_originals() -> None:
    seeds = [([1, 2, 3], "ab", 2.5), ([4], "xyz", -1.0)]
    first = generate_inputs(seeds, random.Random(7), 150)
    again = generate_inputs(seeds, random.Random(7), 150)
    other = generate_inputs(seeds, random.Random(8), 150)
    assert first == again and first != other
    assert len(first) == 150
    keys = [canonical(args) for args in first]
    assert len(set(keys)) == len(keys)
    assert not {canonical(s) for s in seeds} & set(keys)
    for lst, text, num in first:
        assert isinstance(lst, list) and all(isinstance(x, int) for x in lst)
        assert isinstance(text, str) and isinstance(num, float)
    assert any(lst == [] for lst, _, _ in first)  # empty collections are enumerated
    assert generate_inputs(seeds, random.Random(7), 20, exclude=set(keys[:10]))[:1] != first[:1]


def test_generation_does_not_depend_on_hash_seed() -> None:
    code = (
        "import random\n"
        "from data_builders.extension.inputs import canonical, generate_inputs\n"
        "out = generate_inputs([({'a', 'bb', 'c'}, {'k': 1})], random.Random(3), 40)\n"
        "print([canonical(args) for args in out])\n"  # sets print in hash order; keys do not
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={"PYTHONHASHSEED": seed, "PATH": ""},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outputs) == 1


def test_signature_seeds_and_stdin_generation() -> None:
    source = "from typing import List\ndef f(xs: List[int], s: str) -> int:\n    pass\n"
    seeds = seeds_from_signature(source, "f")
    assert len(seeds) == 5 and all(isinstance(a, list) and isinstance(b, str) for a, b in seeds)
    assert seeds_from_signature("def f(x):\n    pass\n", "f") == []
    texts = generate_stdin(["3\n1 5 2\n"], random.Random(0), 30)
    assert len(texts) == 30 and len(set(texts)) == 30
    assert all(t.count("\n") == 2 for t in texts)  # line layout is kept


def test_invariants_keep_generated_inputs_within_the_seeds_preconditions() -> None:
    from data_builders.extension.invariants import Invariants

    seeds = [("0101", "1100", 3, ["ab"]), ("11", "01", 1, ["b"]), ("0", "1", 7, ["a", "ba"])]
    inv = Invariants.infer(seeds)
    assert inv.positive == {2: True} and inv.equal_length == [(0, 1)]
    assert inv.alphabet[0] == {"0", "1"} and 3 in inv.non_empty
    assert inv.holds(("10", "00", 2, ["a"]))
    assert not inv.holds(("12", "00", 2, ["a"]))  # '2' is not in the binary alphabet
    assert not inv.holds(("10", "0", 2, ["a"]))  # lengths differ
    assert not inv.holds(("10", "00", 0, ["a"]))  # was always > 0
    assert not inv.holds(("10", "00", 2, []))  # was never empty
    generated = generate_inputs(seeds, random.Random(1), 60)
    assert generated and all(inv.holds(args) for args in generated)
    assert Invariants.infer(seeds[:1]).holds(("x", "yy", -5, []))  # one example infers nothing
