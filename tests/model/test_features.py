"""Exact features of a candidate (``unice.data.features``): values checked by hand."""

from __future__ import annotations

import random

import pytest

from unice.data.features import (
    FEATURE_NAMES,
    STRUCTURE_FEATURES,
    chrf,
    clean_generated,
    code_tokens,
    entry_point,
    exact_features,
    lcs_length,
    ngram_f1,
    reference_features,
    rouge_l,
    static_features,
    structure_features,
    undefined_names,
)

NL = 'def double(x: int) -> int:\n    """Twice x."""\n'


def _lcs_table(a: list[str], b: list[str]) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = (
                table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
            )
    return table[-1][-1]


def test_bit_parallel_lcs_equals_the_table():
    rng = random.Random(0)
    for _ in range(300):
        a = [rng.choice("abc") for _ in range(rng.randint(0, 40))]
        b = [rng.choice("abc") for _ in range(rng.randint(0, 40))]
        assert lcs_length(a, b) == _lcs_table(a, b)


def test_overlaps_by_hand():
    g, r = code_tokens("return a - c"), code_tokens("return a + b")
    assert g == ["return", "a", "-", "c"]
    assert ngram_f1(g, r, 1) == pytest.approx(0.5)  # 2 of 4 unigrams each way
    assert ngram_f1(g, r, 2) == pytest.approx(1 / 3)  # "return a" of 3 bigrams each way
    assert rouge_l(g, r) == pytest.approx(0.5)  # LCS "return a"
    assert chrf("abc", "abc") == pytest.approx(1.0)
    assert chrf("ab", "xy") == 0.0
    # chrF of "ab" vs "abc": n=1 P 1, R 2/3; n=2 P 1, R 1/2; higher orders absent in "ab"
    p, r = 1.0, (2 / 3 + 1 / 2) / 2
    assert chrf("ab", "abc") == pytest.approx(5 * p * r / (4 * p + r))


def test_reference_features_are_zero_without_a_reference():
    assert reference_features("return 1", None) == [0.0] * 6
    same = reference_features("    return x * 2\n", "    return x * 2\n")
    assert same == [1.0, 1.0, 1.0, 1.0, 1.0, 0.0]  # has_reference, overlaps 1, log ratio 0


def test_static_facts_of_a_body_under_its_prompt():
    # parses, defines the entry point, undefined names, log1p(count), returns a value
    assert static_features("    return x * 2\n", NL, None) == [1.0, 1.0, 0.0, 0.0, 1.0]
    assert static_features("    return y * 2\n", NL, None)[2:4] == [1.0, pytest.approx(0.6931472)]
    assert static_features("    print(x)\n", NL, None)[4] == 0.0
    assert static_features("    return x *\n", NL, None) == [0.0] * 5


def test_static_facts_of_a_whole_program_and_its_entry_point():
    reference = "def g(x):\n    return x\n"
    assert entry_point("Write g.", reference) == "g"
    assert entry_point(NL, reference) == "double"
    assert static_features("def g(x):\n    return x\n", "Write g.", reference)[1] == 1.0
    assert static_features("def h(x):\n    return x\n", "Write g.", reference)[1] == 0.0
    # imports before the body (a redefined function under the input convention)
    body = "import math\n    return math.floor(x) * 2\n"
    assert static_features(body, NL, None) == [1.0, 1.0, 0.0, 0.0, 1.0]


def test_a_helper_before_the_body_is_not_read_as_the_body():
    # the convention keeps a helper defined before the redefined function, then the body:
    # nothing marks where the prompt stood, and the helper's body must not absorb the body
    helper_first = "def twice(v):\n    return v * 2\n    return twice(x)\n"
    assert static_features(helper_first, NL, None) == [1.0, 1.0, 0.0, 0.0, 1.0]
    wrong = "def twice(v):\n    return v * 2\n    return twice(y)\n"  # y is never bound
    assert static_features(wrong, NL, None)[2] == 1.0


def test_undefined_names_follow_scopes():
    assert undefined_names("def f(a):\n    return a + b\n") == 1  # b
    assert undefined_names("import os\ndef f(a):\n    return os.sep + len(a)\n") == 0
    assert undefined_names("def f():\n    return g()\ndef g():\n    return 1\n") == 0
    assert undefined_names("from typing import *\nx = List\n") == 0  # a star import may bind it


def test_cleaning_removes_telltales_only():
    program = (
        "from typing import *\n"
        "import heapq\n"
        "    return heapq.nlargest(1, x)\n"
        "\n"
        "print(double(3))\n"
        "assert double(1) == 2\n"
        "if __name__ == '__main__':\n"
        "    print(double(2))\n"
    )
    cleaned = clean_generated(program, NL)
    assert cleaned == "import heapq\n    return heapq.nlargest(1, x)\n\n"
    body = "    print(x)\n    return x\nprint(1)\n"  # a bare body: the inner print stays
    assert clean_generated(body) == "    print(x)\n    return x\n"
    assert clean_generated("print(1)\n") == "print(1)\n"  # would be empty: kept
    assert clean_generated("    return x +\nprint(1)\n") == "    return x +\nprint(1)\n"


def test_exact_features_have_the_named_order():
    values = exact_features("    return x * 2\n", "    return x + x\n", NL)
    assert len(values) == len(FEATURE_NAMES)
    assert values[0] == 1.0 and values[FEATURE_NAMES.index("parses")] == 1.0


def test_structure_facts_compare_node_kinds_with_the_reference():
    reference = "    n = len(xs)\n    return xs[n - 1]\n"
    unwrapped = "    n = xs\n    return xs[n - 1]\n"  # the call dropped: fewer calls only
    values = dict(zip(STRUCTURE_FEATURES, structure_features(unwrapped, reference), strict=True))
    assert {name for name, v in values.items() if v} == {"fewer_Call"}
    deleted = "    return xs[n - 1]\n"  # the assignment deleted: fewer assignments and calls
    values = dict(zip(STRUCTURE_FEATURES, structure_features(deleted, reference), strict=True))
    assert {name for name, v in values.items() if v} == {"fewer_Assign", "fewer_Call"}
    extra = "    n = len(xs)\n    return xs[n - 1] + xs[n]\n"
    values = dict(zip(STRUCTURE_FEATURES, structure_features(extra, reference), strict=True))
    assert {name for name, v in values.items() if v} == {"more_Subscript", "more_BinOp"}
    # the same program written whole (def + body) against a bare-body reference: no difference
    whole = "def last(xs):\n    n = len(xs)\n    return xs[n - 1]\n"
    assert structure_features(whole, reference) == [0.0] * len(STRUCTURE_FEATURES)


def test_structure_facts_are_zero_without_a_comparable_reference():
    zeros = [0.0] * len(STRUCTURE_FEATURES)
    assert structure_features("    return x\n", None) == zeros
    assert structure_features("    return x +\n", "    return len(x)\n") == zeros
    values = exact_features("    return x\n", "    return len(x)\n", NL, structure=True)
    assert len(values) == len(FEATURE_NAMES) + len(STRUCTURE_FEATURES)
    assert values[len(FEATURE_NAMES) + STRUCTURE_FEATURES.index("fewer_Call")] == 1.0
