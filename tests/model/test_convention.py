"""The input convention: the prompt appears once per input, the generated code survives truncation."""

from __future__ import annotations

import json

import pytest

from data_builders.dataset.convention import (
    INPUT_CONVENTION,
    row_texts,
    stale_folder_message,
    strip_prompt,
    task_text,
)
from data_builders.problems.base import Problem
from unice.data.dataset import read_split
from unice.data.encoding import InputEncoder, priority_budgets
from unice.errors import DatasetFormatError

PROMPT = 'def add(a, b):\n    """Return the sum of a and b, as an integer."""\n'
BODY = "    return a + b\n"


def _function_problem() -> Problem:
    return Problem("T/0", PROMPT, "Return the sum of a and b.", PROMPT + BODY, "add", "check")


def test_function_rows_hold_the_prompt_once():
    texts = row_texts(PROMPT + "    return a - b\n", _function_problem(), PROMPT + BODY)
    assert texts["nl"] == PROMPT
    assert texts["generated"] == "    return a - b\n" and texts["reference"] == BODY
    assert texts["program"] == PROMPT + "    return a - b\n"
    assert all(PROMPT not in texts[key] for key in ("generated", "reference"))


def test_whole_program_samples_lose_the_prompt_only_when_they_start_with_it():
    redefined = "import math\n\ndef add(a, b):\n    return math.fsum([a, b])\n"
    problem = _function_problem()
    assert row_texts(PROMPT + redefined, problem, PROMPT + BODY)["generated"] == redefined
    assert row_texts(redefined, problem, PROMPT + BODY)["generated"] == redefined
    # a program that dropped the prompt's leading blank lines still loses it
    assert strip_prompt(PROMPT.lstrip() + BODY, "\n\n" + PROMPT) == BODY


def test_stdin_problems_take_the_question_and_starter_code_as_nl():
    problem = Problem(
        "APPS/1", "\nQUESTION:\nRead n.\n", "Read n.", "print(int(input()))", None,
        metadata={"starter_code": "def solve(n):"},
    )  # fmt: skip
    assert task_text(problem) == "Read n.\n\ndef solve(n):"
    program = "n = int(input())\nprint(n)\n"
    assert row_texts(program, problem, problem.reference)["generated"] == program


def test_no_prompt_text_twice_in_an_encoded_row(tiny_tokenizer):
    texts = row_texts(PROMPT + "    return a * b\n", _function_problem(), PROMPT + BODY)
    encoder = InputEncoder(tiny_tokenizer, max_length=512, use_token_types=False, layout=False)
    (ids, _), *_ = encoder.join_formats(
        [texts["generated"]], [texts["reference"]], [texts["nl"]], ["ref_nl"]
    )["ref_nl"][1]
    text = tiny_tokenizer.decode(ids)
    assert text.count("integer") == 1 and text.count("def add") == 1
    assert "return a * b" in text and "return a + b" in text


def test_priority_budget_cuts_nl_first_then_reference_and_keeps_floors():
    assert priority_budgets([100, 400, 400], 300, 0.1) == [100, 170, 30]
    assert priority_budgets([400, 400, 400], 300, 0.1) == [240, 30, 30]
    assert priority_budgets([20, 30, 40], 300, 0.1) == [20, 30, 40]


def test_generated_code_survives_when_reference_and_nl_are_long(tiny_tokenizer):
    encoder = InputEncoder(tiny_tokenizer, max_length=96, use_token_types=False, layout=False)
    generated = "    return a + b + c\n"
    long_text = " ".join(f"word{i}" for i in range(300))
    (ids, _), *_ = encoder.join_formats([generated], [long_text], [long_text], ["ref_nl"])[
        "ref_nl"
    ][1]
    body = encoder.tokenize([generated])[0]
    assert len(ids) == 96 and ids[1 : 1 + len(body)] == body


def test_fair_truncation_stays_available(tiny_tokenizer):
    encoder = InputEncoder(
        tiny_tokenizer, max_length=96, use_token_types=False, layout=False, truncation="fair"
    )
    long_text = " ".join(f"word{i}" for i in range(300))
    (ids, _), *_ = encoder.join_formats([long_text], [long_text], [long_text], ["ref_nl"])[
        "ref_nl"
    ][1]
    assert len(ids) == 96


def test_folders_built_before_the_convention_are_refused(tmp_path):
    (tmp_path / "train.jsonl").write_text(
        json.dumps({"generated": "x", "nl": "n", "pass_ratio": 1.0, "executable": True}) + "\n"
    )
    (tmp_path / "stats.json").write_text(json.dumps({"dataset": "humaneval"}))
    with pytest.raises(DatasetFormatError, match="input convention 1") as info:
        read_split(tmp_path, "train", "python -m data_builders build humaneval --out X")
    assert "build humaneval --out X" in str(info.value) and "\n" not in str(info.value)
    (tmp_path / "stats.json").write_text(json.dumps({"input_convention": INPUT_CONVENTION}))
    assert stale_folder_message(tmp_path) is None
    assert read_split(tmp_path, "train")[0].generated == "x"
