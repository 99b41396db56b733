"""Standard-output comparison rules (documented in compare.py and docs/execution.md)."""

from __future__ import annotations

import pytest

from data_builders.execution.compare import call_matches, stdout_matches
from data_builders.execution.types import CallTest


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        ("1 2\n3\n", "1 2\n3"),  # trailing newline
        ("1 2   \n3\t\n\n\n", "1 2\n3\n"),  # trailing whitespace per line and at the end
        ("a\r\nb\r\n", "a\nb\n"),  # CRLF
        ("0.3333333\n", "0.33333333\n"),  # within 1e-6
        ("2.0\n", "2\n"),  # a float token vs an integer token
        ("1e-9 5\n", "0 5\n"),
        ("1000000.0000001\n", "1000000\n"),  # relative tolerance for large values
    ],
)
def test_matching_outputs(actual: str, expected: str) -> None:
    assert stdout_matches(actual, expected)


@pytest.mark.parametrize(
    ("actual", "expected"),
    [
        ("1 2\n", "1  2\n"),  # inner whitespace is significant
        ("  1\n", "1\n"),  # leading whitespace is significant
        ("1000000000\n", "1000000001\n"),  # integers compare exactly
        ("0.1\n", "0.1001\n"),
        ("YES\n", "yes\n"),  # no case folding
        ("nan\n", "nan0\n"),
        ("1\n2\n", "2\n1\n"),  # order matters
        ("1\n", "1\n2\n"),
        ("", "0\n"),
    ],
)
def test_non_matching_outputs(actual: str, expected: str) -> None:
    assert not stdout_matches(actual, expected)


def test_call_comparisons_follow_python_semantics() -> None:
    assert call_matches(CallTest([], 1), True)  # True == 1, as the assert would say
    assert not call_matches(CallTest([], [1, 2]), (1, 2))
    assert call_matches(CallTest([], True, compare="is"), True)
    assert not call_matches(CallTest([], True, compare="is"), 1)
    assert call_matches(CallTest([], compare="falsy"), [])
    assert call_matches(CallTest([], 0.5, compare="abs_lt", tol=1e-6), 0.5000001)
    assert not call_matches(CallTest([], 0.5, compare="abs_lt", tol=1e-6), "0.5")
