"""Candidate sources: samples files and generation with a tiny local causal LM."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_builders.candidates.generate import (
    SamplingSettings,
    generate_candidates,
    truncate_completion,
)
from data_builders.candidates.samples import read_samples
from data_builders.errors import UserError
from data_builders.problems.base import Problem

PROMPTS = {"T/0": "def f(x):\n", "T/1": "def g():\n"}
PROBLEMS = {task_id: Problem(task_id, prompt, "", "", None) for task_id, prompt in PROMPTS.items()}


def test_samples_completion_and_solution(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    lines = [
        {"task_id": "T/0", "completion": "    return x\n"},
        {"task_id": "T/1", "solution": "def g():\n    return 1\n"},
        {"task_id": "T/0", "completion": "    return -x\n", "extra": 1},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    grouped = read_samples(path, PROBLEMS)
    assert [c.program for c in grouped["T/0"]] == [
        "def f(x):\n    return x\n",
        "def f(x):\n    return -x\n",
    ]
    assert [c.id for c in grouped["T/0"]] == ["T/0::samples::0", "T/0::samples::1"]
    assert grouped["T/1"][0].program == "def g():\n    return 1\n"
    assert grouped["T/1"][0].source == "samples:s.jsonl"
    assert set(read_samples(path, PROBLEMS, selected={"T/1"})) == {"T/1"}
    assert [c.generator for c in grouped["T/0"]] == [None, None]  # no line names one


def test_a_samples_lines_generator_reaches_its_candidate(tmp_path: Path) -> None:
    """Rows say which system wrote them (arm H reads stub rows apart by it)."""
    path = tmp_path / "s.jsonl"
    lines = [
        {"task_id": "T/0", "completion": "    return x\n", "generator": "gpt-4"},
        {"task_id": "T/0", "completion": "    pass\n", "generator": "stub/pass"},
        {"task_id": "T/0", "completion": "    return 0\n", "generator": ""},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    assert [c.generator for c in read_samples(path, PROBLEMS)["T/0"]] == [
        "gpt-4",
        "stub/pass",
        None,
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"task_id": "X/9", "completion": ""}', "s.jsonl:1: unknown task_id 'X/9'"),
        ('{"task_id": "T/0"}', "s.jsonl:1: sample needs a string 'completion'"),
        ("{not json", "s.jsonl:1: malformed JSON"),
        ('{"completion": "x"}', "s.jsonl:1: sample lacks field(s) 'task_id'"),
    ],
)
def test_bad_samples_name_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(line + "\n")
    with pytest.raises(UserError) as excinfo:
        read_samples(path, PROBLEMS)
    assert message in str(excinfo.value) and "\n" not in str(excinfo.value)


def test_generate_with_tiny_local_model(tiny_model: Path) -> None:
    model = tiny_model
    settings = SamplingSettings(
        n=3, temperature=1.0, top_p=0.95, max_new_tokens=12, batch_size=2, seed=5
    )
    tasks = list(PROBLEMS.values())
    first = list(generate_candidates(tasks, str(model), settings, progress=False))
    assert [c.id for c in first] == [f"{t}::generate::{i}" for t in PROMPTS for i in range(3)]
    assert all(c.source == "generate:tiny-gpt" for c in first)
    assert all(c.program.startswith(PROMPTS[c.task_id]) for c in first)
    again = list(generate_candidates(tasks[1:], str(model), settings, progress=False))
    assert [c.program for c in again] == [c.program for c in first[3:]]


def test_generate_offline_hub_name_fails_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UserError, match="--generate 'org/missing-model'.*HF_HUB_OFFLINE"):
        list(generate_candidates(list(PROBLEMS.values()), "org/missing-model", SamplingSettings()))


def test_truncate_completion_stops_at_top_level_code() -> None:
    assert truncate_completion("    return 1\n\ndef h():\n    pass\n") == "    return 1\n\n"
    assert truncate_completion("    return 1\n") == "    return 1\n"
    script = "n = int(input())\nprint(n)\nQUESTION:\nnext"
    assert truncate_completion(script, whole_program=True) == "n = int(input())\nprint(n)\n"
