"""Builders handle integers past CPython's 4,300-digit str limit without lifting it globally."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from data_builders.execution.values import int_from_decimal, int_to_decimal
from data_builders.extension.cases import parse_cases
from data_builders.extension.stdio_inputs import generate_stdin
from data_builders.problems.apps import load_apps

HUGE = 3 * 10**6000 + 17


def test_stdin_with_a_huge_number_token_is_mutated() -> None:
    seed = f"1\n{int_to_decimal(HUGE)}\n"
    texts = generate_stdin([seed], random.Random(0), 10)
    assert len(texts) == 10
    for text in texts:
        count, number = text.split("\n")[:2]
        assert int_from_decimal(count) >= 0 and int_from_decimal(number) >= 0  # signs kept
    assert sys.get_int_max_str_digits() == 4300


def test_parse_cases_keys_cases_without_repr() -> None:
    big = "10**60 * " * 80 + "1"  # > 4,300 digits once folded
    cases = parse_cases(f"def check(candidate):\n    assert candidate({big}) == 1\n", "f")
    assert len(cases) == 1 and cases[0].args == (10 ** (60 * 80),)


def test_apps_tests_with_huge_int_literals_load(tmp_path: Path) -> None:
    io = '{"inputs": [[' + int_to_decimal(HUGE) + ']], "outputs": [1], "fn_name": "f"}'
    record = {
        "problem_id": 0,
        "question": "q",
        "solutions": json.dumps(["def f(n):\n    return 1\n"]),
        "input_output": io,
        "starter_code": "",
        "difficulty": "interview",
    }
    path = tmp_path / "train.jsonl"
    path.write_text(json.dumps(record) + "\n")
    (problem,) = load_apps(str(path))
    assert problem.metadata["inputs"] == [[HUGE]]
