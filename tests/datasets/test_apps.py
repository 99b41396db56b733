"""APPS in both layouts (original folders, hub-style JSONL), call-based and standard input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.errors import UserError
from data_builders.problems.apps import load_apps


def _shape(problems: list) -> list:
    return [
        (p.entry_point, p.metadata["kind"], p.metadata["inputs"], p.reference) for p in problems
    ]


def test_both_layouts_load_the_same_problems(apps_folder: Path, apps_jsonl: Path) -> None:
    folder = load_apps(str(apps_folder))
    jsonl = load_apps(str(apps_jsonl))
    assert [p.task_id for p in folder] == ["APPS/train/0000", "APPS/train/0001"]
    assert [p.task_id for p in jsonl] == ["APPS/train/0000", "APPS/train/0001"]
    assert _shape(folder) == _shape(jsonl)
    call, stdin = folder
    assert call.entry_point == "Solution.addAll" and call.metadata["kind"] == "call"
    assert stdin.entry_point is None and stdin.metadata["kind"] == "stdio"
    assert stdin.metadata["inputs"][0] == "3\n1 5 2\n"


def test_problem_without_solutions_is_a_one_line_error(apps_folder: Path) -> None:
    root = apps_folder
    (root / "train" / "0001" / "solutions.json").write_text("[]")
    with pytest.raises(UserError, match="0001: problem has no reference solution"):
        load_apps(str(root))


@pytest.mark.parametrize("layout", ["folder", "jsonl"])
def test_build_apps(tmp_path: Path, layout: str, apps_folder: Path, apps_jsonl: Path) -> None:
    source = apps_folder if layout == "folder" else apps_jsonl
    out = tmp_path / "out"
    argv = ["build", "apps", "--source", str(source), "--out", str(out), "--mutants", "3"]
    argv += ["--cache-dir", str(tmp_path / "cache"), "--split-ratios", "1,0,1", "--workers", "2"]
    assert main(argv) == 0
    stats = json.loads((out / "stats.json").read_text())
    counts = stats["tests_per_task"]
    assert counts["APPS/train/0000"]["original"] == 4 and counts["APPS/train/0001"]["original"] == 3
    for task in counts.values():
        assert task["reference_passes_original"]
        assert task["extended"] >= 40  # well beyond the 3-4 originals
    rows = [
        json.loads(line)
        for split in ("train", "dev", "test")
        for line in (out / f"{split}.jsonl").read_text().splitlines()
    ]
    assert len(rows) == 6 and all(r["source"].startswith("mutant:") for r in rows)
    assert {r["n_tests"] for r in rows} == {t["extended"] for t in counts.values()}
    assert any(r["pass_ratio"] < 1 for r in rows)
