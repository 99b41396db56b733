"""The build command end to end: schema, splits, stats/card, resume after a kill, shards."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from data_builders.__main__ import main

REPO = Path(__file__).resolve().parents[2]
TASKS = ["HumanEval/0", "HumanEval/4", "HumanEval/7"]
MAX_PROBLEMS = 8
FIELDS = {
    "id",
    "task_id",
    "nl",
    "reference",
    "generated",
    "program",
    "pass_ratio",
    "executable",
    "passed",
    "base_passed",
    "n_tests",
    "source",
    "n_base_tests",
    "status_counts",
    "exec_seconds",
}
OUTPUTS = ("train.jsonl", "dev.jsonl", "test.jsonl", "stats.json", "README.md")
TIMING = ("exec_seconds", "execution_seconds")  # measured CPU time: differs run to run


def _untimed(path: Path) -> object:
    """A dataset file's content minus the measured timings (everything else must be
    byte-for-byte the same between runs); README.md and pass_ratio.png carry no timings."""
    if path.suffix == ".md":
        return path.read_bytes()
    if path.suffix == ".jsonl":
        rows = [json.loads(line) for line in path.read_text().splitlines()]
        assert all(isinstance(r["exec_seconds"], float) for r in rows)
        return [{k: v for k, v in r.items() if k not in TIMING} for r in rows]
    stats = json.loads(path.read_text())
    for scope in [stats["overall"], *stats["splits"].values()]:
        assert isinstance(scope.pop("execution_seconds"), float)
    return stats


def _argv(out: Path, samples: Path, cache: Path, *extra: str) -> list[str]:
    return [
        "build",
        "humaneval",
        "--out",
        str(out),
        "--samples",
        str(samples),
        "--mutants",
        "3",
        "--max-problems",
        str(MAX_PROBLEMS),
        "--cache-dir",
        str(cache),
        "--workers",
        "2",
        "--split-ratios",
        "0.5,0.25,0.25",
        *extra,
    ]


@pytest.fixture(scope="module")
def samples(
    tmp_path_factory: pytest.TempPathFactory, humaneval_problems: dict, samples_writer
) -> Path:
    path = tmp_path_factory.mktemp("samples") / "samples.jsonl"
    return samples_writer(path, humaneval_problems, TASKS, 6)


@pytest.fixture(scope="module")
def clean_build(tmp_path_factory: pytest.TempPathFactory, samples: Path) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("clean") / "he"
    cache = tmp_path_factory.mktemp("cache")
    assert main(_argv(out, samples, cache)) == 0
    return out, cache


def _rows(out: Path) -> dict[str, list[dict]]:
    return {
        split: [json.loads(line) for line in (out / f"{split}.jsonl").read_text().splitlines()]
        for split in ("train", "dev", "test")
    }


def test_rows_schema_splits_and_stats(clean_build: tuple[Path, Path], samples: Path) -> None:
    out, _ = clean_build
    rows = _rows(out)
    every = [r for split in rows.values() for r in split]
    assert {len(r) for r in every} == {len(FIELDS)} and set(every[0]) == FIELDS
    assert len({r["id"] for r in every}) == len(every)
    per_split_tasks = [{r["task_id"] for r in split} for split in rows.values()]
    for i, a in enumerate(per_split_tasks):  # splits are disjoint by problem
        for b in per_split_tasks[i + 1 :]:
            assert not a & b
    samples_rows = [r for r in every if r["source"] == "samples:samples.jsonl"]
    assert len(samples_rows) == len(TASKS) * 6
    canonical = [r for r in samples_rows if r["id"].endswith("::samples::0")]
    assert all(r["passed"] and r["pass_ratio"] == 1.0 and r["base_passed"] for r in canonical)
    empty = [r for r in samples_rows if r["id"].endswith("::samples::1")]  # body `pass`
    assert all(not r["passed"] and r["executable"] for r in empty)
    assert any(r["source"].startswith("mutant:") for r in every)
    for r in every:
        assert 0.0 <= r["pass_ratio"] <= 1.0 and r["n_tests"] >= 50 + r["n_base_tests"]
        assert r["generated"] and r["reference"] and r["nl"]
        # the input convention: the prompt once, as nl; code without it; program as executed
        assert r["nl"].lstrip().startswith("from typing") or r["nl"].lstrip().startswith("def")
        assert r["program"] == r["nl"] + r["generated"]
        assert r["nl"] not in r["generated"] and r["nl"] not in r["reference"]
        assert isinstance(r["exec_seconds"], float) and 0.0 <= r["exec_seconds"] < 60
    assert sum(r["exec_seconds"] for r in every) > 0
    stats = json.loads((out / "stats.json").read_text())
    for split, split_rows in rows.items():
        total = sum(r["exec_seconds"] for r in split_rows)
        assert stats["splits"][split]["execution_seconds"] == pytest.approx(total, abs=1e-3)
    assert stats["overall"]["execution_seconds"] == pytest.approx(
        sum(r["exec_seconds"] for r in every), abs=1e-3
    )
    assert stats["overall"]["samples"] == len(every)
    assert sum(s["tasks"] for s in stats["splits"].values()) == MAX_PROBLEMS
    assert stats["split_ratios"] == [0.5, 0.25, 0.25]
    assert len(stats["tests_per_task"]) == MAX_PROBLEMS
    card = (out / "README.md").read_text()
    assert "| split | tasks | samples |" in card and "AvgPassRatio" in card
    assert (out / "pass_ratio.png").stat().st_size > 1000


def test_rerun_is_a_no_op_and_other_settings_are_refused(
    clean_build, samples: Path, capsys
) -> None:
    out, cache = clean_build
    before = {name: (out / name).read_bytes() for name in OUTPUTS}
    assert main(_argv(out, samples, cache)) == 0
    assert {name: (out / name).read_bytes() for name in OUTPUTS} == before
    assert main(_argv(out, samples, cache, "--seed", "5")) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and "config_fingerprint" in err[-1]


def test_kill_and_resume_equals_uninterrupted(clean_build, samples: Path, tmp_path: Path) -> None:
    clean, cache = clean_build
    out = tmp_path / "he"
    cmd = [sys.executable, "-m", "data_builders", *_argv(out, samples, cache, "--chunk-size", "4")]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        cmd,
        cwd=REPO,
        env=env,
        stderr=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        start_new_session=True,
    )
    rows_file = out / ".progress" / "rows.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if rows_file.is_file() and rows_file.read_bytes().count(b"\n") >= 12:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "build finished before it could be killed; make it longer"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    written = rows_file.read_bytes().count(b"\n")
    assert 12 <= written < MAX_PROBLEMS * 3 + len(TASKS) * 6
    assert not (out / "train.jsonl").exists()
    with open(rows_file, "ab") as handle:  # a kill mid-write leaves a torn line
        handle.write(b'{"id": "HumanEval/0::samp')
    resumed = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    for name in ("train.jsonl", "dev.jsonl", "test.jsonl", "stats.json"):
        assert _untimed(out / name) == _untimed(clean / name), name


def test_shards_merge_into_the_single_machine_build(
    clean_build, samples: Path, tmp_path: Path
) -> None:
    clean, cache = clean_build
    shards = []
    for index in range(2):
        shard = tmp_path / f"shard{index}"
        extra = ("--num-shards", "2", "--shard-index", str(index))
        assert main(_argv(shard, samples, cache, *extra)) == 0
        assert not (shard / "train.jsonl").exists()
        shards.append(str(shard))
    merged = tmp_path / "merged"
    assert main(["merge", *shards[:1], "--out", str(merged)]) == 2  # a shard is missing
    assert main(["merge", *shards, "--out", str(merged)]) == 0
    for name in OUTPUTS:
        assert _untimed(merged / name) == _untimed(clean / name), name


def test_generate_candidates_in_a_build_and_resume_without_the_model(
    tiny_model: Path, tmp_path: Path
) -> None:
    import shutil

    model = tmp_path / "tiny-gpt"
    shutil.copytree(tiny_model, model)
    out = tmp_path / "gen"
    argv = ["build", "humaneval", "--out", str(out), "--generate", str(model), "--n", "2"]
    argv += ["--max-problems", "2", "--cache-dir", str(tmp_path / "c"), "--split-ratios", "1,0,1"]
    assert main(argv) == 0
    rows = [r for split in _rows(out).values() for r in split]
    assert sorted(r["id"] for r in rows) == [
        f"HumanEval/{t}::generate::{i}" for t in (0, 1) for i in (0, 1)
    ]
    assert {r["source"] for r in rows} == {"generate:tiny-gpt"}
    shutil.rmtree(model)  # everything is labelled: a rerun must not need the model again
    assert main(argv) == 0


def test_splits_load_with_datasets(clean_build: tuple[Path, Path], tmp_path: Path) -> None:
    import datasets

    out, _ = clean_build
    files = {split: str(out / f"{split}.jsonl") for split in ("train", "dev", "test")}
    loaded = datasets.load_dataset("json", data_files=files, cache_dir=str(tmp_path))
    assert loaded["train"].num_rows + loaded["dev"].num_rows + loaded["test"].num_rows == sum(
        len(rows) for rows in _rows(out).values()
    )
    assert set(loaded["test"].column_names) == FIELDS


def test_old_store_rows_without_exec_seconds_resume(
    clean_build, samples: Path, tmp_path: Path
) -> None:
    """A store written before ``exec_seconds`` existed: its rows are kept as they are, new
    rows get the field, and a split's ``execution_seconds`` is null rather than a partial sum."""
    import shutil

    clean, cache = clean_build
    out = tmp_path / "he"
    shutil.copytree(clean, out)
    store = out / ".progress" / "rows.jsonl"
    rows = [json.loads(line) for line in store.read_text().splitlines()]
    old = [{k: v for k, v in r.items() if k != "exec_seconds"} for r in rows[: len(rows) // 2]]
    store.write_text("".join(json.dumps(r) + "\n" for r in old))  # the rest must be relabelled
    assert main(_argv(out, samples, cache)) == 0
    assert _untimed_rows(out) == _untimed_rows(clean)
    every = [r for split in _rows(out).values() for r in split]
    old_ids = {r["id"] for r in old}
    assert all(("exec_seconds" in r) == (r["id"] not in old_ids) for r in every)
    stats = json.loads((out / "stats.json").read_text())
    assert stats["overall"]["execution_seconds"] is None
    for split, split_rows in _rows(out).items():
        complete = all("exec_seconds" in r for r in split_rows)
        assert (stats["splits"][split]["execution_seconds"] is not None) == complete


def _untimed_rows(out: Path) -> dict[str, list[dict]]:
    return {
        split: [{k: v for k, v in r.items() if k not in TIMING} for r in rows]
        for split, rows in _rows(out).items()
    }


def test_evaluation_reads_the_recorded_execution_cost(clean_build) -> None:
    """The key names match what ``evaluate.py`` looks for (unice.evaluation.provenance)."""
    from unice.evaluation.provenance import execution_cost

    out, _ = clean_build
    rows = _rows(out)["test"]
    cost = execution_cost(out / "test.jsonl", "test", rows)
    assert cost["seconds"] == pytest.approx(sum(r["exec_seconds"] for r in rows))
    assert "exec_seconds" in cost["note"]
    stats = json.loads((out / "stats.json").read_text())
    cost = execution_cost(out / "test.jsonl", "test", None)
    assert cost["seconds"] == stats["splits"]["test"]["execution_seconds"]
    assert "execution_seconds from stats.json (this split)" in cost["note"]


def test_mutants_of_samples_only_in_the_train_split(
    clean_build: tuple[Path, Path], samples: Path, tmp_path: Path
) -> None:
    """``--mutants-of samples --mutant-splits train``: one-edit neighbours of each real
    program, labelled like any candidate, only for training tasks; dev and test keep exactly
    the real candidates of the build without them."""
    clean, cache = clean_build
    out = tmp_path / "he-mut"
    argv = _argv(out, samples, cache, "--mutants-of", "samples", "--mutant-splits", "train")
    assert main(argv) == 0
    rows, plain = _rows(out), _rows(clean)
    kinds = {split: {r["id"].split("::")[1] for r in rows[split]} for split in rows}
    assert kinds["dev"] <= {"samples"} and kinds["test"] <= {"samples"}
    assert "sample_mutant" in kinds["train"] and "mutant" not in kinds["train"]
    for split in ("dev", "test"):
        real = [r for r in plain[split] if "::samples::" in r["id"]]
        assert [r["id"] for r in rows[split]] == [r["id"] for r in real]
        assert [r["pass_ratio"] for r in rows[split]] == [r["pass_ratio"] for r in real]
    by_id = {r["id"]: r for r in rows["train"]}
    mutants = [r for r in rows["train"] if "::sample_mutant::" in r["id"]]
    for row in mutants:
        parent_index = int(row["source"].rsplit(":", 1)[1])
        parent = by_id[f"{row['task_id']}::samples::{parent_index}"]
        assert row["program"] != parent["program"] and row["n_tests"] == parent["n_tests"]
    assert any(  # a one-edit neighbour whose verdict differs from its parent's
        r["pass_ratio"]
        != by_id[f"{r['task_id']}::samples::{int(r['source'].rsplit(':', 1)[1])}"]["pass_ratio"]
        for r in mutants
    )
    assert main([*argv[:-1], "dev"]) == 2  # other mutant splits: another build


def test_mutants_of_samples_needs_samples(capsys) -> None:
    assert main(["build", "mbpp", "--mutants", "2", "--mutants-of", "samples", "--out", "x"]) == 2
    assert "--mutants-of samples" in capsys.readouterr().err
