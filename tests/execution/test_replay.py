"""The worker-side replay that confirms AssertionTest passes (pure functions, no sandbox)."""

from __future__ import annotations

from data_builders.execution.replay import free_names, verify_pass
from data_builders.execution.values import encode_value


def call(args, result=None, error=None, after=None):
    """One call-log entry, encoded as the child encodes it."""
    changed = None if after is None else encode_value(after)
    return [encode_value(args), encode_value({}), encode_value(result), error, changed]


TEST = "assert candidate(1) == 2\nassert candidate([3, 1]) == [1, 3]"


def test_free_names_are_the_programs_names_only() -> None:
    source = (
        "import math\nfor i in range(3):\n    x = poly(i)\n    assert math.fabs(x) < candidate(i)"
    )
    assert free_names(source) == {"poly"}
    assert free_names(TEST) == set()


def test_a_log_answering_the_calls_confirms_the_pass() -> None:
    calls = [call([1], 2), call([[3, 1]], [1, 3])]
    assert verify_pass(TEST, calls, 1.0) is None


def test_a_forged_or_wrong_log_is_refused() -> None:
    wrong_value = [call([1], 3), call([[3, 1]], [1, 3])]
    other_args = [call([7], 2), call([[3, 1]], [1, 3])]
    extra = [call([1], 2), call([[3, 1]], [1, 3]), call([1], 2)]  # a call never made
    for calls in ([], None, "x", wrong_value, other_args, extra, [[1, 2]]):
        verdict = verify_pass(TEST, calls, 1.0)
        assert verdict is not None and verdict[0] == "wrong_answer", calls


def test_exceptions_and_in_place_changes_replay() -> None:
    source = "a = [2, 1]\ncandidate(a)\nassert a == [1, 2]\ntry:\n    candidate(None)\nexcept TypeError:\n    pass\nelse:\n    assert False"
    calls = [call([[2, 1]], after=[[1, 2]]), call([None], error="TypeError")]
    assert verify_pass(source, calls, 1.0) is None
    no_change = [call([[2, 1]]), calls[1]]
    assert verify_pass(source, no_change, 1.0) is not None


def test_tests_using_program_names_are_left_to_the_child() -> None:
    assert verify_pass("assert helper(candidate(1)) == 2", [], 1.0) is None
