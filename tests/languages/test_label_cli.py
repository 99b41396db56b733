"""``label --problems humaneval-x`` end to end on a small HumanEval-X-shaped file."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.execution.compiled.languages.base import Language
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


class _TimedExecutor:
    """Stands in for the foreign executor while timing canonical solutions: fixed per-assertion
    outcomes, and a count of the programs it was asked to run."""

    def __init__(self, outcomes):
        self.outcomes, self.runs = outcomes, 0

    def map(self, programs, progress=None):
        from data_builders.execution.types import ProgramResult

        for _ in programs:
            self.runs += 1
            yield ProgramResult(list(self.outcomes))


def test_calibrated_limits_follow_the_canonical_solution(tmp_path: Path, capsys) -> None:
    from data_builders.execution.calibrate import calibrated_limits, load_policy
    from data_builders.execution.limits import ForeignLimits, assertion_policy
    from data_builders.execution.types import Program, TestCode, TestOutcome

    foreign = ForeignLimits(timeout=3.0, calibrated_floor=0.5)
    policy = assertion_policy(load_policy(), foreign, "js")
    # limits.yaml's factor is 20: 0.001 s -> the 0.5 s floor, 0.1 s -> 2.0 s, a failed
    # assertion -> the 3 s cap (the canonical says nothing about how long it should take)
    ran = _TimedExecutor([TestOutcome("pass", 0.001), TestOutcome("pass", 0.1),
                          TestOutcome("wrong_answer", 0.0)])  # fmt: skip
    reference = {"JavaScript/0": Program("canonical", TestCode(JS_TASK["test"]), language="js")}

    def calibrate(executor: _TimedExecutor) -> dict:
        return calibrated_limits(reference, executor, policy, tmp_path / "times.json", "js")

    assert calibrate(ran) == {"JavaScript/0": [0.5, 2.0, 3.0]}
    assert ran.runs == 1
    assert "1 timed now, 0 cached): 1 of 3 assertions at the 0.5 s floor, 1 at the 3.0 s cap" in (
        capsys.readouterr().out
    )
    # a second run reads the cached times and runs nothing
    again = _TimedExecutor([])
    assert calibrate(again) == {"JavaScript/0": [0.5, 2.0, 3.0]}
    assert again.runs == 0


def test_a_looping_assertion_stops_at_its_calibrated_limit(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    need("js")
    from data_builders.execution.compiled.pool import ForeignPool

    limits_seen = []
    original_run = ForeignPool.run

    def recording_run(self, program):
        limits_seen.append(program.test_timeouts)
        return original_run(self, program)

    monkeypatch.setattr(ForeignPool, "run", recording_run)
    problems = _write(tmp_path / "humaneval_js.jsonl", [JS_TASK])
    looping = "  if (x === 2) { while (true) {} }\n  return x + 1\n}\n"
    samples = _write(
        tmp_path / "samples.jsonl", [{"task_id": "JavaScript/0", "completion": looping}]
    )
    out = tmp_path / "out.jsonl"
    argv = ["label", "--problems", "humaneval-x", "--problems-file", str(problems),
            "--samples", str(samples), "--out", str(out), "--workers", "1",
            "--reference-cache", "none"]  # fmt: skip
    assert main(argv) == 0
    assert "per-assertion CPU limits from 1 canonical solutions" in capsys.readouterr().out
    row = json.loads(out.read_text())
    assert row["status_counts"]["timeout"] == 1 and row["pass_ratio"] == pytest.approx(2 / 3)
    # the canonical ran first with no limits of its own, then the sample under the calibrated
    # ones: addOne takes microseconds, so every assertion is far below the flat 3 s, at
    # JavaScript's floor (its own section of limits.yaml)
    from data_builders.execution.limits import ForeignLimits

    floor = ForeignLimits.from_yaml().floor_for("js")
    canonical, sample = limits_seen
    assert canonical is None and len(sample) == 3 and all(floor <= t < 3.0 for t in sample)
    limits_seen.clear()
    assert main([*argv, "--timeout", "3"]) == 0
    assert "per-assertion CPU limits" not in capsys.readouterr().out
    assert limits_seen == [None]  # --timeout: one flat limit, nothing timed


def test_an_interrupted_run_resumes_where_it_stopped(tmp_path: Path, monkeypatch, capsys) -> None:
    """Rows go to OUT.partial as they come (as for Python samples): a rerun labels only the
    rest, and the file equals an uninterrupted run's."""
    need("js")
    from data_builders.execution.compiled.pool import ForeignPool

    problems = _write(tmp_path / "humaneval_js.jsonl", [JS_TASK])
    completions = [JS_TASK["canonical_solution"], "  return x\n}\n", "  return x + 1\n}\n"]
    samples = _write(
        tmp_path / "samples.jsonl",
        [{"task_id": "JavaScript/0", "completion": c, "k": k} for k, c in enumerate(completions)],
    )
    argv = ["label", "--problems", "humaneval-x", "--problems-file", str(problems),
            "--samples", str(samples), "--workers", "1", "--timeout", "3"]  # fmt: skip
    straight, out = tmp_path / "straight.jsonl", tmp_path / "out.jsonl"
    assert main([*argv, "--out", str(straight)]) == 0
    original_run, runs = ForeignPool.run, []

    def interrupted(self, program):
        runs.append(program.source)
        if len(runs) == 2:
            raise KeyboardInterrupt
        return original_run(self, program)

    monkeypatch.setattr(ForeignPool, "run", interrupted)
    assert main([*argv, "--out", str(out)]) == 130
    assert not out.exists()
    assert len(out.with_name("out.jsonl.partial").read_text().splitlines()) == 1
    monkeypatch.undo()
    capsys.readouterr()
    assert main([*argv, "--out", str(out)]) == 0
    assert "resuming: 1 of 3 samples labelled" in capsys.readouterr().out
    assert out.read_bytes() == straight.read_bytes()


def test_one_job_takes_its_limits_from_the_limits_file_and_timeout(tmp_path: Path) -> None:
    """``label``'s job: the executor's limits, the calibration policy and the settings that
    decide a row all come from one limits file (``--limits``), ``--timeout`` on top."""
    need("js")
    from data_builders.__main__ import build_parser
    from data_builders.label import make_job

    problems = _write(tmp_path / "p.jsonl", [JS_TASK])
    samples = _write(tmp_path / "s.jsonl", [{"task_id": "JavaScript/0", "completion": "}"}])
    other = tmp_path / "limits.yaml"
    other.write_text(
        "python:\n  factor: 10.0\ncompiled:\n  timeout: 2.5\njs:\n  calibrated_floor: 0.3\n"
    )
    argv = ["label", "--problems", "humaneval-x", "--problems-file", str(problems),
            "--samples", str(samples), "--out", str(tmp_path / "o.jsonl")]  # fmt: skip
    parser = build_parser()
    job = make_job(parser.parse_args([*argv, "--limits", str(other)]))
    assert job.language == "js" and job.limits.timeout == 2.5 and job.references
    assert (job.policy.factor, job.policy.floor, job.policy.cap) == (10.0, 0.3, 2.5)
    assert job.settings["assertion_limits"]["factor"] == 10.0
    flat = make_job(parser.parse_args([*argv, "--timeout", "2"]))
    assert flat.policy is None and flat.references is None
    assert flat.limits.timeout == flat.settings["language_limits"]["timeout"] == 2.0
