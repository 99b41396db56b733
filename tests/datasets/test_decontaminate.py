"""Decontamination: train/dev tasks duplicating a benchmark task are dropped, with the reason.

Fixtures are written here: a two-task "benchmark" and three MBPP-shaped tasks (a copy of a
benchmark task, a renamed re-implementation of the other, an unrelated task). The last test
reads the real sanitized MBPP from ../shared and skips where it is absent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_builders.dataset import decontaminate
from data_builders.dataset.decontaminate import (
    REASON_TESTS,
    REASON_TEXT,
    DecontaminationConfig,
    drop_duplicates,
    find_duplicates,
    load_benchmarks,
)
from data_builders.errors import UserError
from data_builders.problems.humaneval import problem_from_record

FLIP = {
    "task_id": "Bench/0",
    "prompt": 'def flip_case(string: str) -> str:\n    """ For a given string, flip lowercase '
    "characters to uppercase and uppercase to lowercase.\n    >>> flip_case('Hello')\n"
    '    \'hELLO\'\n    """\n',
    "canonical_solution": "    return string.swapcase()\n",
    "entry_point": "flip_case",
    "test": "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    assert candidate('') == ''\n"
    "    assert candidate('Hello!') == 'hELLO!'\n"
    "    assert candidate('These violent delights') == 'tHESE VIOLENT DELIGHTS'\n",
}
MONOTONIC = {
    "task_id": "Bench/1",
    "prompt": 'def monotonic(l: list):\n    """Return True if list elements are monotonically '
    'increasing or decreasing.\n    """\n',
    "canonical_solution": "    return l == sorted(l) or l == sorted(l, reverse=True)\n",
    "entry_point": "monotonic",
    "test": "\n\ndef check(candidate):\n    assert candidate([1, 2, 4, 10]) == True\n"
    "    assert candidate([1, 20, 4, 10]) == False\n    assert candidate([4, 1, 0, -10]) == True\n"
    "    assert candidate([9, 9, 9, 9]) == True\n",
}
# MBPP-shaped tasks (sanitized MBPP in HumanEval's shape: a prompt, a 2-space body is fine)
COPY = {  # the benchmark's flip_case, copied: same description and signature, new reference
    "task_id": "MbppEval/901",
    "prompt": FLIP["prompt"],
    "canonical_solution": "    return ''.join(c.lower() if c.isupper() else c.upper() "
    "for c in string)\n",
    "entry_point": "flip_case",
    "test": "def check(candidate):\n    assert flip_case('aB') == 'Ab'\n",
}
RENAMED = {  # monotonic under another name and wording, written differently
    "task_id": "MbppEval/902",
    "prompt": "def is_Ordered(arr):\n    '''\n    Write a python function to check whether the "
    "given array never changes direction.\n    '''\n",
    "canonical_solution": "    up = all(a <= b for a, b in zip(arr, arr[1:]))\n"
    "    down = all(a >= b for a, b in zip(arr, arr[1:]))\n    return up or down\n",
    "entry_point": "is_Ordered",
    "test": "def check(candidate):\n    assert is_Ordered([6, 5, 4, 4]) == True\n"
    "    assert is_Ordered([1, 3, 2]) == False\n",
}
UNRELATED = {
    "task_id": "MbppEval/903",
    "prompt": "def sum_digits(n):\n    '''\n    Write a function to get the sum of the digits of a "
    "non-negative integer.\n    '''\n",
    "canonical_solution": "    return sum(int(d) for d in str(n))\n",
    "entry_point": "sum_digits",
    "test": "def check(candidate):\n    assert sum_digits(345) == 12\n"
    "    assert sum_digits(12) == 3\n",
}
TASKS = [COPY, RENAMED, UNRELATED]


@pytest.fixture
def fixture_benchmark(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``humaneval`` benchmark replaced by the two fixture tasks."""
    problems = [problem_from_record(r, "fixture") for r in (FLIP, MONOTONIC)]
    monkeypatch.setitem(decontaminate.BENCHMARKS, "humaneval", lambda: problems)


def _tasks() -> list:
    problems = [problem_from_record(r, "fixture") for r in TASKS]
    return [(p, p.reference) for p in problems]


def test_copy_dropped_for_text_reimplementation_for_tests_unrelated_kept(
    fixture_benchmark: None, executor
) -> None:
    config = DecontaminationConfig()
    found = find_duplicates(_tasks(), load_benchmarks(["humaneval"], 2), config, executor)
    assert set(found) == {"MbppEval/901", "MbppEval/902"}
    (copy,) = found["MbppEval/901"]
    assert copy["benchmark_task"] == "Bench/0" and copy["reason"] == REASON_TEXT
    assert copy["similarity"] == 1.0
    (renamed,) = found["MbppEval/902"]
    assert renamed["benchmark_task"] == "Bench/1" and renamed["reason"] == REASON_TESTS
    assert renamed["similarity"] < config.text_threshold  # found by running, not by wording
    assert renamed["converse"] is True  # monotonic's reference passes is_Ordered's tests


def test_text_only_without_executor(fixture_benchmark: None) -> None:
    found = find_duplicates(
        _tasks(), load_benchmarks(["humaneval"], 2), DecontaminationConfig(), None
    )
    assert set(found) == {"MbppEval/901"}


def test_only_train_and_dev_lose_tasks_and_a_benchmark_skips_itself(
    fixture_benchmark: None, executor
) -> None:
    split_of = {"MbppEval/901": "test", "MbppEval/902": "dev", "MbppEval/903": "train"}
    config = DecontaminationConfig()
    dropped = drop_duplicates("mbpp", _tasks(), split_of, config, executor)
    assert set(dropped) == {"MbppEval/902"}  # the copy sits in test: evaluation data stays
    assert drop_duplicates("humaneval", _tasks(), split_of, config, executor) == {}
    off = DecontaminationConfig(enabled=False)
    assert drop_duplicates("mbpp", _tasks(), split_of, off, executor) == {}
    decided = {"MbppEval/902": {"task_id": "MbppEval/902"}}  # a resumed build's verdict stays
    assert drop_duplicates("mbpp", _tasks(), split_of, config, executor, decided) == {}


def test_bad_settings_are_one_line_errors() -> None:
    with pytest.raises(UserError, match="unknown"):
        DecontaminationConfig(benchmarks=("humaneval-y",))
    with pytest.raises(UserError, match="only train"):
        DecontaminationConfig(splits=("train", "test"))
    with pytest.raises(UserError, match="text_threshold"):
        DecontaminationConfig(text_threshold=0)


def test_build_drops_them_and_lists_them_in_card_and_stats(
    fixture_benchmark: None, tmp_path: Path
) -> None:
    from data_builders.__main__ import main

    source = tmp_path / "mbpp.jsonl"
    source.write_text("".join(json.dumps(r) + "\n" for r in TASKS))
    out = tmp_path / "built"
    argv = ["build", "mbpp", "--source", str(source), "--out", str(out), "--mutants", "2"]
    argv += ["--split-ratios", "1,0,0", "--workers", "2", "--cache-dir", str(tmp_path / "cache")]
    assert main(argv) == 0
    rows = [json.loads(line) for line in (out / "train.jsonl").read_text().splitlines()]
    assert {r["task_id"] for r in rows} == {"MbppEval/903"}
    stats = json.loads((out / "stats.json").read_text())
    info = stats["decontamination"]
    assert info["n_dropped"] == 2 and stats["overall"]["tasks"] == 1
    reasons = {d["task_id"]: [m["reason"] for m in d["matches"]] for d in info["dropped"]}
    assert reasons == {"MbppEval/901": [REASON_TEXT], "MbppEval/902": [REASON_TESTS]}
    card = (out / "README.md").read_text()
    assert "## Decontamination" in card
    assert "| MbppEval/901 | train | Bench/0 (near-duplicate text" in card
    assert "| MbppEval/902 | train | Bench/1 (passes its tests" in card


def test_real_mbpp_copies_of_humaneval_are_dropped(shared_data: Path, executor) -> None:
    """MbppEval/557 (toggle_string) is HumanEval/27, MbppEval/68 (is_Monotonic) HumanEval/57.

    Also pins the issue's close relatives: 771 (balanced brackets) passes HumanEval/61's tests
    and is dropped; 3 (is_not_prime, the negation of HumanEval/31) and 397 (median of three
    numbers; HumanEval/47 takes a list) are kept.
    """
    from data_builders.dataset.config import load_config
    from data_builders.dataset.splits import assign_splits
    from data_builders.problems.mbpp import load_mbpp

    problems = load_mbpp(str(shared_data / "mbpp_sanitized_humaneval_format.jsonl"))
    config = load_config("mbpp")
    split_of = assign_splits([p.task_id for p in problems], config.split_ratios, config.seed)
    wanted = {f"MbppEval/{n}" for n in (557, 68, 771, 3, 397)}
    tasks = [(p, p.reference) for p in problems if p.task_id in wanted]
    dropped = drop_duplicates("mbpp", tasks, split_of, config.decontamination, executor)
    matched = {task: {m["benchmark_task"] for m in ms} for task, ms in dropped.items()}
    assert matched == {
        "MbppEval/557": {"HumanEval/27"},
        "MbppEval/68": {"HumanEval/57"},
        "MbppEval/771": {"HumanEval/61"},
    }
