"""The tagged-JSON values codec: exact round trips, and refusal of non-builtin values."""

from __future__ import annotations

import json
import math

import pytest

from data_builders.execution.values import ValueCodecError, decode_value, encode_value

ROUND_TRIP = [
    None, True, False, 0, -7, 2**53, -(2**200), 10**5000, 1.5, -0.0, 1e308, "", "héllo\n\x00",
    [], [1, [2, [3]]], (), (1, "a", (2.5,)), {"a": 1}, {1: "x", (1, 2): [3], None: True},
    {1, 2, 3}, frozenset({"a", (1, 2)}), b"\x00\xffbytes", complex(1, -2), [{"k": {1}}],
]  # fmt: skip


@pytest.mark.parametrize("value", ROUND_TRIP, ids=lambda v: type(v).__name__)
def test_round_trip_is_exact_through_json_text(value: object) -> None:
    text = json.dumps(encode_value(value), allow_nan=False)
    back = decode_value(json.loads(text))
    assert back == value
    assert type(back) is type(value)


def test_non_finite_floats_and_complex_survive() -> None:
    nan, inf = decode_value(json.loads(json.dumps(encode_value([math.nan, -math.inf]))))
    assert math.isnan(nan) and inf == -math.inf
    z = decode_value(encode_value(complex(math.inf, math.nan)))
    assert z.real == math.inf and math.isnan(z.imag)


def test_tuple_and_list_stay_distinct() -> None:
    assert decode_value(encode_value((1, 2))) != [1, 2]
    assert decode_value(encode_value([1, 2])) == [1, 2]


class Sneaky(int):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


@pytest.mark.parametrize("value", [Sneaky(3), [1, Sneaky(2)], object(), {"k": range(3)}])
def test_subclasses_and_foreign_objects_are_refused(value: object) -> None:
    with pytest.raises(ValueCodecError):
        encode_value(value)


def test_cycles_and_extreme_nesting_are_refused() -> None:
    loop: list = []
    loop.append(loop)
    with pytest.raises(ValueCodecError):
        encode_value(loop)


@pytest.mark.parametrize(
    "data",
    [{"a": 1}, {"$tuple": 1}, {"$set": [[1]]}, {"$bytes": "***"}, {"$int": "zz"}, {"$x": []}],
)
def test_malformed_encodings_are_rejected(data: object) -> None:
    with pytest.raises(ValueCodecError):
        decode_value(data)
