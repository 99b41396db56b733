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
