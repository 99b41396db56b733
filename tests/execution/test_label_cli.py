"""``python -m data_builders label`` end to end, including bad inputs."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.problems.humaneval import load_humaneval

REPO = Path(__file__).resolve().parents[2]


def _write(path: Path, rows: list, raw_lines: tuple[str, ...] = ()) -> Path:
    text = "".join(json.dumps(r) + "\n" for r in rows) + "".join(raw_lines)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


def test_humaneval_end_to_end_in_a_subprocess(tmp_path: Path) -> None:
    canonical = load_humaneval()["HumanEval/0"]
    samples = _write(
        tmp_path / "samples.jsonl.gz",
        [
            {
                "task_id": "HumanEval/0",
                "completion": canonical.reference[len(canonical.prompt) :],
                "k": 1,
            },
            {"task_id": "HumanEval/0", "completion": "    return False\n", "k": 2},
            {"task_id": "HumanEval/0", "completion": "", "k": 3},
        ],
    )
    out = tmp_path / "results.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "data_builders", "label", "--problems", "humaneval",
         "--samples", str(samples), "--out", str(out), "--workers", "1", "--timeout", "2"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "label" in proc.stderr  # progress bar on stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["k"] for r in rows] == [1, 2, 3]  # order and extra fields kept
    assert rows[0]["pass_ratio"] == 1.0 and rows[0]["passed"] and rows[0]["executable"]
    assert 0 < rows[1]["pass_ratio"] < 1 and rows[1]["executable"] and not rows[1]["passed"]
    assert rows[2]["executable"] is False and rows[2]["pass_ratio"] == 0.0
    assert rows[0]["n_tests"] == sum(rows[0]["status_counts"].values()) == 7
    assert rows[0]["isolation"]


MBPP_TASK = {
    "task_id": "MbppEval/1",
    "prompt": "def add(a, b):\n    '''Add two numbers.'''\n",
    "entry_point": "add",
    "canonical_solution": "    return a + b\n",
    "test": "def check(candidate):\n    assert add(1, 2) == 3\n    assert add(2, 2) == 4\n",
}


def test_mbpp_with_problems_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    problems = _write(tmp_path / "mbpp.jsonl", [MBPP_TASK])
    samples = _write(
        tmp_path / "s.jsonl",
        [{"task_id": "MbppEval/1", "completion": "    return a + b if a != 2 else 0\n"}],
    )
    out = tmp_path / "r.jsonl"
    argv = ["label", "--problems", "mbpp", "--problems-file", str(problems)]
    assert main([*argv, "--samples", str(samples), "--out", str(out), "--workers", "1"]) == 0
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["pass_ratio"] == 0.5 and row["status_counts"]["wrong_answer"] == 1


@pytest.mark.parametrize(
    ("rows", "raw", "message"),
    [
        ([], ('{"task_id": "MbppEval/1", "completion": \n',), "s.jsonl:1: malformed JSON"),
        ([{"task_id": "MbppEval/1", "completion": "x"}, {"task_id": "MbppEval/1"}], (), "s.jsonl:2: sample lacks field(s) 'completion'"),
        ([{"task_id": "Nope/7", "completion": ""}], (), "s.jsonl:1: unknown task_id 'Nope/7'"),
    ],
)  # fmt: skip
def test_bad_samples_give_one_line_errors_and_no_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rows: list, raw: tuple, message: str
) -> None:
    problems = _write(tmp_path / "mbpp.jsonl", [MBPP_TASK])
    samples = _write(tmp_path / "s.jsonl", rows, raw)
    out = tmp_path / "r.jsonl"
    out.write_text("previous results\n")
    argv = ["label", "--problems", "mbpp", "--problems-file", str(problems)]
    assert main([*argv, "--samples", str(samples), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and message in err and "\n" not in err
    assert out.read_text() == "previous results\n"  # untouched
    assert not (tmp_path / "r.jsonl.tmp").exists()


def test_missing_files_and_missing_problems_file(tmp_path: Path, capsys) -> None:
    assert main(["label", "--problems", "humaneval", "--samples", str(tmp_path / "no.jsonl"),
                 "--out", str(tmp_path / "r.jsonl")]) == 2  # fmt: skip
    assert "no.jsonl: no such file" in capsys.readouterr().err
    samples = _write(tmp_path / "s.jsonl", [{"task_id": "MbppEval/1", "completion": ""}])
    assert main(["label", "--problems", "mbpp", "--samples", str(samples),
                 "--out", str(tmp_path / "r.jsonl")]) == 2  # fmt: skip
    assert "--problems-file" in capsys.readouterr().err
    problems = _write(tmp_path / "mbpp.jsonl", [MBPP_TASK])
    argv = ["label", "--problems", "mbpp", "--problems-file", str(problems), "--samples"]
    assert (
        main([*argv, str(samples), "--out", str(tmp_path / "r.jsonl"), "--max-timeouts", "0"]) == 2
    )
    assert "--max-timeouts must be at least 1" in capsys.readouterr().err
    assert not (tmp_path / "r.jsonl").exists()


TWO_SPACE_TASK = {
    "task_id": "MbppEval/2",
    "prompt": "def inc(x):\n    '''\n    Add one.\n    '''\n",
    "entry_point": "inc",
    "canonical_solution": "  y = x + 1\n  if y > 0:\n    return y\n  return y\n",
    "test": "def check(candidate):\n    assert inc(1) == 2\n    assert inc(-5) == -4\n",
}


def test_label_and_build_share_the_humaneval_shaped_loader(tmp_path: Path) -> None:
    """A 2-space canonical solution under a 4-space docstring (the HumanEval-shaped MBPP
    file): ``prompt + solution`` does not compile, so the loader re-indents it, and ``label``
    joins completions through the same problem, as ``build --samples`` does."""
    from data_builders.candidates.samples import read_samples
    from data_builders.problems.humaneval import load_humaneval_file
    from data_builders.problems.mbpp import load_mbpp_file

    problems = _write(tmp_path / "mbpp.jsonl", [TWO_SPACE_TASK, MBPP_TASK])
    lines = [
        ("MbppEval/2", TWO_SPACE_TASK["canonical_solution"]),
        ("MbppEval/2", "  return x +\n"),
        ("MbppEval/1", "    return a + b\n"),
    ]
    samples = _write(tmp_path / "s.jsonl", [{"task_id": t, "completion": c} for t, c in lines])
    out = tmp_path / "r.jsonl"
    argv = ["label", "--problems", "mbpp", "--problems-file", str(problems)]
    assert main([*argv, "--samples", str(samples), "--out", str(out), "--workers", "1"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["pass_ratio"] for r in rows] == [1.0, 0.0, 1.0]
    assert rows[1]["status_counts"]["compile_error"] == 2  # broken code is not "fixed"
    labelled = load_humaneval_file(problems)
    built = {p.task_id: p for p in load_mbpp_file(problems)}
    assert labelled == built  # one loader: same references, same joining rule
    assert labelled["MbppEval/2"].reindent_completions
    assert not labelled["MbppEval/1"].reindent_completions  # as-written tasks stay as written
    grouped = read_samples(samples, built)
    programs = [c.program for c in [*grouped["MbppEval/2"], *grouped["MbppEval/1"]]]
    assert programs == [labelled[t].program(c) for t, c in lines]
