"""``label --problems humaneval-x`` end to end on a small HumanEval-X-shaped file."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.execution.languages.base import Language
from tests.languages.conftest import need

JS_TASK = {
    "task_id": "JavaScript/0",
    "prompt": "/* Add one. */\nconst addOne = (x) => {\n",
    "declaration": "\nconst addOne = (x) => {\n",
    "canonical_solution": "  return x + 1\n}\n",
    "test": "const testAddOne = () => {\n  console.assert(addOne(1) === 2)\n"
    "  console.assert(addOne(2) === 3)\n  console.assert(addOne(-1) === 0)\n}\n\ntestAddOne()\n",
    "example_test": "",
}


def _write(path: Path, rows: list[dict]) -> Path:
    text = "".join(json.dumps(r) + "\n" for r in rows)
    path.write_bytes(gzip.compress(text.encode()) if path.suffix == ".gz" else text.encode())
    return path


def test_humaneval_x_js_end_to_end(tmp_path: Path) -> None:
    need("js")
    problems = _write(tmp_path / "humaneval_js.jsonl.gz", [JS_TASK])
    samples = _write(
        tmp_path / "samples.jsonl",
        [
            {"task_id": "JavaScript/0", "completion": JS_TASK["canonical_solution"], "k": 1},
            {"task_id": "JavaScript/0", "completion": "  return x > 0 ? x + 1 : 5\n}\n", "k": 2},
            {"task_id": "JavaScript/0", "completion": "  return x +\n}}\n", "k": 3},
        ],
    )
    out = tmp_path / "out.jsonl"
    argv = ["label", "--problems", "humaneval-x", "--problems-file", str(problems)]
    assert main([*argv, "--samples", str(samples), "--out", str(out), "--workers", "1"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["k"] for r in rows] == [1, 2, 3]
    assert rows[0]["passed"] and rows[0]["pass_ratio"] == 1.0 and rows[0]["n_tests"] == 3
    assert rows[1]["pass_ratio"] == pytest.approx(2 / 3) and rows[1]["executable"]
    assert rows[1]["status_counts"]["wrong_answer"] == 1
    assert rows[2]["status_counts"]["compile_error"] == 3 and not rows[2]["executable"]
    assert {"isolation", "status_counts"} <= set(rows[0])


def test_missing_toolchain_is_one_line(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(
        Language,
        "missing_toolchain",
        lambda self: f"{self.name}: node not found (apt install nodejs)",
    )
    problems = _write(tmp_path / "p.jsonl", [JS_TASK])
    samples = _write(tmp_path / "s.jsonl", [{"task_id": "JavaScript/0", "completion": "}"}])
    argv = ["label", "--problems", "humaneval-x", "--problems-file", str(problems)]
    assert main([*argv, "--samples", str(samples), "--out", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: cannot label: js: node not found (apt install nodejs)"
    assert not (tmp_path / "o.jsonl").exists()


def test_offline_hub_names_problems_file(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    samples = _write(tmp_path / "s.jsonl", [{"task_id": "CPP/0", "completion": "}"}])
    argv = [
        "label",
        "--problems",
        "humaneval-x",
        "--samples",
        str(samples),
        "--out",
        str(tmp_path / "o"),
    ]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--problems-file" in err and "humaneval_cpp" in err


def test_unknown_task_and_bad_prefix(tmp_path: Path, capsys) -> None:
    problems = _write(tmp_path / "p.jsonl", [JS_TASK])
    samples = _write(tmp_path / "s.jsonl", [{"task_id": "JavaScript/9", "completion": "}"}])
    argv = ["label", "--problems", "humaneval-x", "--problems-file", str(problems)]
    assert main([*argv, "--samples", str(samples), "--out", str(tmp_path / "o")]) == 2
    assert "unknown task_id 'JavaScript/9'" in capsys.readouterr().err
    bad = _write(tmp_path / "bad.jsonl", [{**JS_TASK, "task_id": "Cobol/0"}])
    argv = ["label", "--problems", "humaneval-x", "--problems-file", str(bad)]
    assert main([*argv, "--samples", str(samples), "--out", str(tmp_path / "o")]) == 2
    assert "no HumanEval-X language prefix" in capsys.readouterr().err


def test_a_task_without_assertions_is_named_and_gets_no_tests(tmp_path: Path, capsys) -> None:
    need("js")
    task = {**JS_TASK, "test": "/* console.assert(addOne(1) === 2) */\n"}
    problems = _write(tmp_path / "p.jsonl", [task])
    samples = _write(
        tmp_path / "s.jsonl", [{"task_id": "JavaScript/0", "completion": "  return x + 1\n}\n"}]
    )
    out = tmp_path / "o.jsonl"
    argv = ["label", "--problems", "humaneval-x", "--problems-file", str(problems)]
    assert main([*argv, "--samples", str(samples), "--out", str(out), "--workers", "1"]) == 0
    row = json.loads(out.read_text())
    assert row["n_tests"] == 0 and row["pass_ratio"] == 0.0 and not row["passed"]
    assert "no assertion found in the test of 1 task(s) (JavaScript/0)" in capsys.readouterr().err
