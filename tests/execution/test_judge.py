"""The worker-side judge of assertion tests, against a fake child (no sandbox, no processes)."""

from __future__ import annotations

from typing import Any

import pytest

from data_builders.execution.python.judge import ChildGone, free_names, judge, setup_namespace
from data_builders.execution.values import decode_value, encode_value


def fake_child(functions: dict[str | None, Any]) -> Any:
    """An ``ask`` that answers as the child would, calling ``functions`` (None: candidate)."""

    def ask(request: dict[str, Any]) -> dict[str, Any]:
        if "names" in request:
            return {"n": {n: ["call"] if n in functions else ["missing"] for n in request["names"]}}
        args = decode_value(request["a"])
        try:
            value = functions[request["call"]](*args, **decode_value(request["kw"]))
        except Exception as exc:  # noqa: BLE001
            return {"e": type(exc).__name__, "d": str(exc)}
        reply = {"r": encode_value(value)}
        if encode_value(args) != request["a"]:
            reply["m"] = encode_value(args)
        return reply

    return ask


def test_free_names_are_the_programs_names_only() -> None:
    source = (
        "import math\nfor i in range(3):\n    x = poly(i)\n    assert math.fabs(x) < candidate(i)"
    )
    assert free_names(source) == {"poly"}
    assert free_names("assert candidate(1) == 2") == set()


def test_verdicts_come_from_the_values() -> None:
    ask = fake_child({None: lambda x: x + 1})
    assert judge("assert candidate(1) == 2", {}, ask) == ("pass", "")
    assert judge("assert candidate(1) == 3", {}, ask)[0] == "wrong_answer"
    assert judge("candidate(1).nope", {}, ask)[0] == "runtime_error"


def test_exceptions_in_place_changes_and_program_names() -> None:
    def f(xs: Any = None) -> Any:
        if xs is None:
            raise ValueError("no list")
        xs.sort()

    ask = fake_child({None: f, "helper": lambda x: 2 * x})
    body = "a = [2, 1]\ncandidate(a)\nassert a == [1, 2]\ntry:\n    candidate()\nexcept ValueError:\n    pass\nelse:\n    assert False"
    assert judge(body, {}, ask) == ("pass", "")
    assert judge("assert helper(3) == 6", {}, ask) == ("pass", "")
    assert judge("assert unknown(3) == 6", {}, ask)[0] == "runtime_error"  # NameError


def test_non_plain_arguments_and_bad_replies() -> None:
    ask = fake_child({None: lambda f: f(1)})
    status, detail = judge("assert candidate(lambda x: x) == 1", {}, ask)
    assert status == "runtime_error" and "non-plain argument" in detail
    with pytest.raises(ChildGone):
        judge("candidate(1)", {}, lambda request: {"e": "NotABuiltin"})
    with pytest.raises(ChildGone):
        judge("candidate(1)", {}, lambda request: {"r": {"$evil": 1}})
    assert judge("candidate(1)", {}, lambda request: {"x": "timeout", "d": ""})[0] == "timeout"
    # a test's own `except Exception` cannot swallow the end of the test
    body = "try:\n    candidate(1)\nexcept Exception:\n    pass"
    assert judge(body, {}, lambda request: {"x": "wrong_answer", "d": ""})[0] == "wrong_answer"


def test_setup_runs_with_the_workers_builtins() -> None:
    scope = setup_namespace("import math\nMETA = {'a': 1}\nbroken = undefined_name\n")
    assert scope["META"] == {"a": 1} and scope["math"].pi > 3 and "broken" not in scope
    assert judge("assert META['a'] == candidate(0)", scope, fake_child({None: abs}))[0] == (
        "wrong_answer"
    )
