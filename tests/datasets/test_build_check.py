"""``build --check``: does a folder hold this build? (quality.sh rebuilds the ones that differ)."""

from __future__ import annotations

import json
from pathlib import Path

from data_builders.__main__ import main

TASK = {
    "task_id": "MbppEval/903",
    "prompt": "def sum_digits(n):\n    '''\n    Write a function to get the sum of the digits of a "
    "non-negative integer.\n    '''\n",
    "canonical_solution": "    return sum(int(d) for d in str(n))\n",
    "entry_point": "sum_digits",
    "test": "def check(candidate):\n    assert sum_digits(345) == 12\n"
    "    assert sum_digits(12) == 3\n",
}


def test_check_tells_complete_absent_and_other_settings(tmp_path: Path, capsys) -> None:
    source = tmp_path / "mbpp.jsonl"
    source.write_text(json.dumps(TASK) + "\n")
    out = tmp_path / "built"
    argv = ["build", "mbpp", "--source", str(source), "--out", str(out), "--mutants", "2"]
    argv += ["--workers", "1", "--cache-dir", str(tmp_path / "cache")]
    assert main([*argv, "--check"]) == 1  # nothing there yet: a build makes it
    assert not out.exists()  # --check builds nothing
    assert main(argv) == 0
    assert main([*argv, "--check"]) == 0
    assert main([*argv, "--split-ratios", "0,0,1", "--check"]) == 2
    assert "differs in: config_fingerprint" in capsys.readouterr().out
    info = json.loads((out / "build_info.json").read_text())
    info["complete"] = False  # as a killed build leaves it: same settings, resumable
    (out / "build_info.json").write_text(json.dumps(info))
    assert main([*argv, "--check"]) == 1
