"""The `python -m data_builders` dispatcher: every subcommand is registered; user errors are one line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from data_builders.__main__ import build_parser

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_all_subcommands_are_registered() -> None:
    parser = build_parser()
    choices = next(a for a in parser._actions if a.dest == "command").choices
    assert set(choices) == {"label", "build", "merge", "sample", "coverage", "fetch"}


def test_user_error_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "data_builders", "label", "--problems", "humaneval",
         "--samples", str(missing), "--out", str(tmp_path / "out.jsonl")],
        capture_output=True, text=True, cwd=REPO_ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and str(missing) in lines[0]
    assert not (tmp_path / "out.jsonl").exists()
