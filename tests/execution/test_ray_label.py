"""Labelling on Ray (``--executor ray``) gives exactly the local executor's labels.

One local Ray cluster (2 CPUs) serves the whole module; every test compares a Ray run with
a local run of the same programs: plain, wrong, crashing, timing-out and standard-input
programs, the ``label`` command's output file, a chunk whose actor dies mid-run, and a
``build`` killed mid-run on Ray and resumed.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[cluster]')")

from data_builders.__main__ import main  # noqa: E402
from data_builders.execution import (  # noqa: E402
    AssertionTest,
    CallTest,
    ExecutionLimits,
    Executor,
    Program,
    ProgramResult,
    StdioTest,
)
from data_builders.problems.humaneval import load_humaneval  # noqa: E402
from tests.conftest import label_locally_and_on_ray  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
LIMITS = ExecutionLimits(timeout=1.0, memory_mb=1024)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local 2-CPU Ray for this module; its GCS address (for other drivers to join)."""
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    if started:
        ray.shutdown()


def _programs() -> list[Program]:
    """Every kind of outcome, in 2-3 copies so that chunks of 2 split them differently."""
    add = "def add(a, b):\n    return a + b\n"
    kinds = [
        Program(
            add, [CallTest([1, 2], 3), CallTest([2, 2], 5), CallTest([7, 1])], entry_point="add"
        ),
        Program(
            "def add(a, b):\n    while True:\n        pass\n",
            [CallTest([1, 2], 3), CallTest([0, 0], 0)],
            entry_point="add",
            test_timeouts=[0.2, 0.2],
        ),  # fmt: skip
        Program(
            "import ctypes\ndef add(a, b):\n    return ctypes.string_at(0)\n",
            [CallTest([1, 2], 3)],
            entry_point="add",
        ),  # fmt: skip
        Program("def add(a, b) return a\n", [CallTest([1, 2], 3)], entry_point="add"),
        Program("def add(a, b):\n    return a / 0\n", [CallTest([1, 2], 3)], entry_point="add"),
        Program(
            add,
            [
                AssertionTest("assert candidate(1, 1) == 2"),
                AssertionTest("assert candidate(1, 1) == 3"),
            ],
            entry_point="add",
        ),  # fmt: skip
        Program(
            "a, b = map(int, input().split())\nprint(a + b)\n",
            [StdioTest("1 2\n", "3\n"), StdioTest("2 2\n", "5\n"), StdioTest("4 4\n")],
        ),  # fmt: skip
        Program("while True:\n    pass\n", [StdioTest("1\n", "1\n")], timeout=0.2),
        Program("import sys\nsys.exit(3)\n", [StdioTest("", "")]),
    ]
    numbered = [  # capture mode returns the index: a misplaced result cannot go unnoticed
        Program(f"def n():\n    return {i}\n", [CallTest([])], entry_point="n") for i in range(5)
    ]
    return [*kinds, *numbered, *kinds[::-1], *kinds]


def _comparable(result: ProgramResult) -> tuple:
    """A result without the measured times (they differ between any two runs)."""
    return (
        result.to_dict(),
        [(o.status, o.output, o.detail) for o in result.outcomes],
    )


@pytest.fixture(scope="module")
def local_results() -> list[tuple]:
    with Executor(workers=2, limits=LIMITS) as executor:
        return [_comparable(r) for r in executor.map(_programs())]


def test_ray_results_equal_the_local_executor(cluster: str, local_results: list[tuple]) -> None:
    programs = _programs()
    with Executor(limits=LIMITS, backend="ray", cpus_per_actor=1, chunk_size=2) as executor:
        assert executor.n_workers == 2  # two actors of one worker each
        results = [_comparable(r) for r in executor.map(iter(programs))]  # no len: size 2
        assert _comparable(executor.run(programs[0])) == local_results[0]
    statuses = {o[0] for _, outcomes in local_results for o in outcomes}
    assert {"pass", "wrong_answer", "timeout", "signal", "compile_error"} <= statuses
    assert {"runtime_error"} <= statuses
    assert results == local_results


def test_a_lost_actor_s_chunks_are_retried_once_each(
    cluster: str, local_results: list[tuple]
) -> None:
    """The first actor exits when handed its second chunk (as on a lost node): that chunk
    and any other it held are labelled again elsewhere; nothing is lost or repeated."""
    with Executor(
        limits=LIMITS, backend="ray", cpus_per_actor=1, chunk_size=2, die_on_chunk=2
    ) as executor:
        results = [_comparable(r) for r in executor.map(_programs())]
        assert executor.pool.replaced == 1
    assert len(results) == len(local_results)
    assert results == local_results


def _label_samples(path: Path) -> Path:
    problems = load_humaneval()
    rows = []
    for task_id in ("HumanEval/0", "HumanEval/2"):
        problem = problems[task_id]
        body = problem.reference[len(problem.prompt) :]
        for k, completion in enumerate(
            [
                body,
                "    return 0\n",
                "    while True:\n        pass\n",
                "    import ctypes\n    return ctypes.string_at(0)\n",
                "",
                body,
            ]
        ):
            rows.append({"task_id": task_id, "completion": completion, "k": k})
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_label_command_on_ray_writes_the_local_file(cluster: str, tmp_path: Path) -> None:
    """Calibrated limits (the references timed once, cached), rows byte for byte."""
    samples = _label_samples(tmp_path / "samples.jsonl")
    argv = ["label", "--problems", "humaneval", "--samples", str(samples)]
    statuses = label_locally_and_on_ray(argv, tmp_path, chunk_size=3)
    assert {"pass", "wrong_answer", "timeout", "signal", "runtime_error"} <= statuses


def test_label_with_no_cluster_at_the_address_says_how_to_start_one(tmp_path: Path) -> None:
    samples = _label_samples(tmp_path / "samples.jsonl")
    proc = subprocess.run(
        [sys.executable, "-m", "data_builders", "label", "--problems", "humaneval",
         "--samples", str(samples), "--out", str(tmp_path / "o.jsonl"),
         "--executor", "ray", "--ray-address", "127.0.0.1:9"],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    assert proc.returncode == 2
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: no Ray cluster at --ray-address 127.0.0.1:9")
    assert "ray start --head" in last
    assert not (tmp_path / "o.jsonl").exists()


def _build_argv(out: Path, samples: Path, cache: Path, *extra: str) -> list[str]:
    return [
        "build", "humaneval", "--out", str(out), "--samples", str(samples), "--mutants", "2",
        "--max-problems", "3", "--cache-dir", str(cache), "--split-ratios", "0.34,0.33,0.33",
        "--chunk-size", "3", *extra,
    ]  # fmt: skip


def _untimed(out: Path) -> list[dict]:
    """Every row of the built splits, minus the measured CPU seconds."""
    rows = []
    for split in ("train", "dev", "test"):
        for line in (out / f"{split}.jsonl").read_text().splitlines():
            row = json.loads(line)
            row.pop("exec_seconds")
            rows.append(row)
    return rows


@pytest.mark.slow  # two builds, two Ray drivers: 10-41 s here, with the shared machine's load
def test_build_killed_on_ray_resumes_to_the_local_build(cluster: str, tmp_path: Path) -> None:
    """A driver joined to the cluster is killed mid-labelling; the rerun continues from the
    progress store, and the finished dataset equals an uninterrupted local build's. (No
    looping programs here: ~120 timeouts each, seconds; the tests above have them.)"""
    problems = load_humaneval()
    lines = []
    for task_id in ("HumanEval/0", "HumanEval/1", "HumanEval/2"):
        body = problems[task_id].reference[len(problems[task_id].prompt) :]
        for completion in [body, "    return None\n", "    return 1 / 0\n", "", body]:
            lines.append(json.dumps({"task_id": task_id, "completion": completion}))
    samples = tmp_path / "samples.jsonl"
    samples.write_text("\n".join(lines) + "\n")
    cache, local = tmp_path / "cache", tmp_path / "local"
    assert main(_build_argv(local, samples, cache, "--workers", "2")) == 0

    out = tmp_path / "ray"
    config = tmp_path / "executor.yaml"
    config.write_text("ray_cpus_per_actor: 1\nray_chunk_size: 1\n")
    argv = _build_argv(out, samples, cache, "--executor", "ray", "--ray-address", cluster)
    cmd = [sys.executable, "-m", "data_builders", *argv, "--executor-config", str(config)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    rows_file = out / ".progress" / "rows.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if rows_file.is_file() and rows_file.read_bytes().count(b"\n") >= 3:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "the build finished before it could be killed; make it longer"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 3 <= rows_file.read_bytes().count(b"\n") < 21
    assert not (out / "train.jsonl").exists()
    resumed = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert _untimed(out) == _untimed(local)
    ids = [json.loads(line)["id"] for line in rows_file.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 21  # 3 tasks x (5 samples + 2 mutants), none twice


def test_an_actor_that_cannot_start_is_a_one_line_error(cluster: str) -> None:
    from data_builders.errors import UserError

    with pytest.raises(UserError, match="could not start its executor: .*isolation must be"):
        Executor(limits=LIMITS, backend="ray", cpus_per_actor=2, isolation="none")
