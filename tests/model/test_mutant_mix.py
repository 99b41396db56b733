"""``mutants_per_program``: the mutant-to-real mix is chosen at read time, per parent program."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_builders.dataset.convention import INPUT_CONVENTION
from unice.data.dataset import read_split, read_splits
from unice.errors import DatasetFormatError


def _row(row_id: str, task: str, source: str, ratio: float) -> dict:
    return {
        "id": row_id,
        "task_id": task,
        "generated": row_id,
        "pass_ratio": ratio,
        "executable": True,
        "source": source,
    }


def _folder(tmp_path: Path) -> Path:
    rows = [
        _row("T/0::samples::0", "T/0", "samples:gen.jsonl", 1.0),
        _row("T/0::sample_mutant::0", "T/0", "mutant:binop_swap of samples:0", 0.0),
        _row("T/0::sample_mutant::1", "T/0", "mutant:off_by_one of samples:0", 0.5),
        _row("T/0::samples::1", "T/0", "samples:gen.jsonl", 0.0),
        _row("T/0::sample_mutant::3", "T/0", "mutant:constant_change of samples:1", 1.0),
        _row("T/1::mutant::0", "T/1", "mutant:compare_swap", 0.0),
        _row("T/1::mutant::1", "T/1", "mutant:statement_deletion", 0.0),
        _row("T/1::samples::0", "T/1", "samples:gen.jsonl", 1.0),
    ]
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (tmp_path / "stats.json").write_text(json.dumps({"input_convention": INPUT_CONVENTION}))
    return tmp_path


def test_all_rows_are_read_by_default(tmp_path: Path) -> None:
    assert len(read_split(_folder(tmp_path), "train")) == 8


def test_the_first_mutants_of_each_parent_are_kept(tmp_path: Path) -> None:
    kept = [s.id for s in read_split(_folder(tmp_path), "train", mutants_per_program=1)]
    assert kept == [
        "T/0::samples::0",
        "T/0::sample_mutant::0",
        "T/0::samples::1",
        "T/0::sample_mutant::3",
        "T/1::mutant::0",  # reference mutants share one parent: the reference
        "T/1::samples::0",
    ]


def test_zero_mutants_leaves_the_real_programs(tmp_path: Path) -> None:
    kept = read_splits([_folder(tmp_path)], "train", mutants_per_program=0)
    assert [s.id for s in kept] == ["T/0::samples::0", "T/0::samples::1", "T/1::samples::0"]


def test_a_negative_count_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetFormatError, match="mutants_per_program"):
        read_split(_folder(tmp_path), "train", mutants_per_program=-1)
