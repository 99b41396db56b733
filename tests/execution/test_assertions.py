"""Splitting check(candidate) into tests, and which shapes become host-compared CallTests."""

from __future__ import annotations

import pytest

from data_builders.execution import AssertionTest, CallTest
from data_builders.execution.assertions import split_check

CHECK = """
METADATA = {"author": "x"}


def check(candidate):
    assert candidate(1, [2, 3]) == (4, "a")
    assert "b" == candidate(2, {"k": {1, 2}})
    assert candidate(3) is True
    assert not candidate(4)
    assert candidate(5)
    assert abs(candidate(6) - 2.0 / 3.0) < 1e-6
    assert True, "never fails"
    assert candidate(len("abc")) == 3
    import math
    assert math.isclose(candidate(7), 1.0)
    for x in range(3):
        assert candidate(x) == x
"""


def test_split_check_shapes() -> None:
    setup, tests = split_check(CHECK, "f")
    assert "METADATA" in setup and "def check" not in setup
    calls = [t for t in tests if isinstance(t, CallTest)]
    asserts = [t for t in tests if isinstance(t, AssertionTest)]
    assert [(c.args, c.expected, c.compare) for c in calls[:5]] == [
        ([1, [2, 3]], (4, "a"), "eq"),
        ([2, {"k": {1, 2}}], "b", "eq"),
        ([3], True, "is"),
        ([4], calls[3].expected, "falsy"),
        ([5], calls[4].expected, "truthy"),
    ]
    assert calls[5].compare == "abs_lt" and calls[5].expected == pytest.approx(2 / 3)
    assert len(tests) == 9  # `assert True` dropped
    # non-literal argument, and statements that later asserts need, stay in the sandbox
    assert asserts[0].source == 'assert candidate(len("abc")) == 3'.replace('"', "'")
    assert asserts[1].source.startswith("import math\n")
    assert asserts[2].source.startswith("import math\nfor x in range(3)")


def test_entry_point_called_by_name_counts_as_candidate() -> None:
    _, tests = split_check("def check(candidate):\n    assert add(1, 2) == 3\n", "add")
    assert tests == [CallTest([1, 2], 3)]


def test_missing_check_is_an_error() -> None:
    with pytest.raises(ValueError, match="check"):
        split_check("assert 1 == 1\n")
