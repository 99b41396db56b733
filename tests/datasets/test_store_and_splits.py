"""Append-only progress store (torn lines, manifest guard) and splits by problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from data_builders.dataset.splits import assign_splits
from data_builders.dataset.store import ProgressStore
from data_builders.errors import UserError


def test_store_survives_a_torn_last_line_and_dedupes(tmp_path: Path) -> None:
    manifest = {"dataset": "humaneval", "mutants": 2}
    with ProgressStore(tmp_path, manifest) as store:
        store.add_row({"id": "a", "x": 1})
        store.add_row({"id": "b", "x": 2})
        store.add_row({"id": "a", "x": 3})  # already done: ignored
    rows_file = tmp_path / ".progress" / "rows.jsonl"
    with open(rows_file, "a") as handle:
        handle.write('{"id": "c", "x"')  # killed mid-write
    with ProgressStore(tmp_path, manifest) as store:
        assert store.rows == {"a": {"id": "a", "x": 1}, "b": {"id": "b", "x": 2}}
        store.add_row({"id": "c", "x": 4})
    assert rows_file.read_text().splitlines()[-1] == '{"id": "c", "x": 4}'
    with pytest.raises(UserError, match="differs in: mutants"):
        ProgressStore(tmp_path, {"dataset": "humaneval", "mutants": 3})


def test_splits_are_by_problem_seeded_and_follow_ratios() -> None:
    tasks = [f"T/{i}" for i in range(100)]
    split = assign_splits(tasks, (0.8, 0.1, 0.1), seed=3)
    assert split == assign_splits(tasks, (0.8, 0.1, 0.1), seed=3)
    assert split != assign_splits(tasks, (0.8, 0.1, 0.1), seed=4)
    counts = {name: list(split.values()).count(name) for name in ("train", "dev", "test")}
    assert counts == {"train": 80, "dev": 10, "test": 10}
    assert set(assign_splits(tasks, (0, 0, 1), seed=3).values()) == {"test"}
    small = assign_splits(["a", "b", "c"], (0.8, 0.1, 0.1), seed=0)
    assert sorted(small.values()) == ["dev", "test", "train"]


def test_a_fixed_test_split_holds_out_the_same_task_numbers_in_every_language():
    from data_builders.problems.base import task_number

    for prefix in ("HumanEval", "CPP", "Rust"):
        tasks = [f"{prefix}/{i}" for i in range(164)]
        split = assign_splits(tasks, (0.8, 0.2, 0.0), seed=5, held_out_from=82)
        assert {t for t, s in split.items() if s == "test"} == set(tasks[82:])
        assert sum(s == "dev" for s in split.values()) == 16
        assert sum(s == "train" for s in split.values()) == 66
    cpp = assign_splits([f"CPP/{i}" for i in range(164)], (0.8, 0.2, 0), 5, 82)
    rust = assign_splits([f"Rust/{i}" for i in range(164)], (0.8, 0.2, 0), 5, 82)
    assert {task_number(t) for t, s in cpp.items() if s == "dev"} == {
        task_number(t) for t, s in rust.items() if s == "dev"
    }  # the dev problems too are the same numbers in every language
    with pytest.raises(UserError, match="no task number"):
        assign_splits(["Mbpp/x"], (1, 0, 0), 0, held_out_from=1)


def test_a_build_config_without_held_out_tasks_keeps_its_fingerprint():
    from data_builders.dataset.config import BuildConfig

    assert "held_out_from" not in BuildConfig().to_dict()
    assert BuildConfig(held_out_from=82).fingerprint() != BuildConfig().fingerprint()
