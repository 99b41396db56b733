"""Integers past CPython's 4,300-digit str limit, handled without lifting the limit globally."""

from __future__ import annotations

import json
import sys

import pytest

from data_builders.execution import CallTest, Executor, Program, StdioTest
from data_builders.execution.compare import stdout_matches
from data_builders.execution.values import (
    decimal_digits,
    decode_value,
    encode_value,
    int_from_decimal,
    int_to_decimal,
    short_repr,
)

HUGE = 7 * 10**5000 + 123456789


@pytest.fixture(autouse=True)
def _default_limit() -> None:
    """Every test here runs under the interpreter's default limit, and must leave it alone."""
    assert sys.get_int_max_str_digits() == 4300
    yield
    assert sys.get_int_max_str_digits() == 4300


def _reference_decimal(value: int) -> str:
    """The true decimal text, computed digit by digit (slow, obviously correct)."""
    magnitude, digits = abs(value), []
    while magnitude:
        magnitude, digit = divmod(magnitude, 10)
        digits.append(str(digit))
    return ("-" if value < 0 else "") + ("".join(reversed(digits)) or "0")


@pytest.mark.parametrize(
    "value",
    [0, -5, 10**3999, 10**4000, -(10**4000) - 1, HUGE, -HUGE],
    ids=["0", "-5", "1e3999", "1e4000", "-1e4000-1", "huge", "-huge"],
)
def test_decimal_conversions_round_trip_at_any_size(value: int) -> None:
    text = int_to_decimal(value)
    assert text == _reference_decimal(value)
    assert int_from_decimal(text) == value
    assert int_from_decimal(f"  +{text.lstrip('-')}\n") == abs(value)
    assert decimal_digits(value) == len(text.lstrip("-"))


@pytest.mark.parametrize(
    "text",
    ["", "12a", "1" * 5000 + "x", "--" + "1" * 5000, "1 " * 3000],
    ids=["empty", "letter", "long-letter", "two-signs", "spaces"],
)
def test_int_from_decimal_refuses_what_int_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        int_from_decimal(text)


def test_short_repr_shows_huge_ints_by_size_and_stays_bounded() -> None:
    text = short_repr([HUGE, "x" * 1000, list(range(10**5))])
    assert text.startswith("[<int with 5001 digits>, 'xxx")
    assert len(text) <= 200
    assert short_repr(-HUGE) == "<negative int with 5001 digits>"
    assert short_repr((1, "a")) == "(1, 'a')"


def test_codec_carries_huge_ints_as_hex() -> None:
    blob = json.dumps(encode_value({HUGE: [-HUGE]}))
    assert decode_value(json.loads(blob)) == {HUGE: [-HUGE]}


def test_stdout_comparison_of_huge_integer_tokens() -> None:
    text = int_to_decimal(HUGE)
    assert stdout_matches(f"{text} 1.0\n", f"{text} 1\n")  # numeric path with a huge token
    assert stdout_matches(f"+{text} 1.0\n", f"{text} 1\n")  # equal as integers
    assert not stdout_matches(f"{text[:-1]}8 1.0\n", f"{text} 1\n")


def test_wrong_huge_return_value_is_reported_not_raised(executor: Executor) -> None:
    """Regression: the wrong-answer message used ``{value!r:.200}``, which raises ValueError
    for an int over 4,300 digits and took the whole run down."""
    program = Program(
        "def f():\n    return 7 * 10**5000\n",
        [CallTest([], expected=1), CallTest([], expected=7 * 10**5000)],
        entry_point="f",
    )
    first, second = executor.run(program).outcomes
    assert (first.status, first.detail) == ("wrong_answer", "returned <int with 5001 digits>")
    assert second.status == "pass"


def test_huge_printed_integers_are_compared_in_the_host(executor: Executor) -> None:
    source = "import sys\nsys.set_int_max_str_digits(0)\nprint(7 * 10**5000 + int(input()))\n"
    right = int_to_decimal(7 * 10**5000 + 1)
    wrong = int_to_decimal(7 * 10**5000 + 2)
    result = executor.run(Program(source, [StdioTest("1\n", right), StdioTest("1\n", wrong)]))
    assert [o.status for o in result.outcomes] == ["pass", "wrong_answer"]
