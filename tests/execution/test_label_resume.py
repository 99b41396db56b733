"""A killed ``label`` run continues where it stopped (``OUT.partial``), whatever the executor."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.errors import UserError
from data_builders.partial import PartialOutput

REPO = Path(__file__).resolve().parents[2]


def _samples(path: Path, n: int) -> Path:
    """HumanEval/0 samples that sleep 0.1 s as they load (slow to label, cheap in CPU)."""
    rows = [
        {"task_id": "HumanEval/0", "completion": f"    return {bool(i % 2)}\n"
         "import time\ntime.sleep(0.1)\n", "k": i}
        for i in range(n)
    ]  # fmt: skip
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_killed_label_resumes_to_the_uninterrupted_output(tmp_path: Path) -> None:
    samples = _samples(tmp_path / "samples.jsonl", 24)
    whole, out = tmp_path / "whole.jsonl", tmp_path / "resumed.jsonl.gz"
    flags = ["--problems", "humaneval", "--samples", str(samples), "--workers", "1"]
    assert main(["label", *flags, "--out", str(whole), "--timeout", "1"]) == 0
    cmd = [sys.executable, "-m", "data_builders", "label", *flags, "--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(
        [*cmd, "--timeout", "1"], cwd=REPO, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    partial = tmp_path / "resumed.jsonl.gz.partial"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:
        if partial.is_file() and partial.read_bytes().count(b"\n") >= 4:
            break
        time.sleep(0.01)
    assert proc.poll() is None, "label finished before it could be killed; make it longer"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    written = partial.read_bytes().count(b"\n")
    assert 4 <= written < 24 and not out.exists()
    with open(partial, "ab") as handle:  # a kill mid-write leaves a torn line
        handle.write(b'{"task_id": "HumanEval/0", "compl')

    other = subprocess.run([*cmd, "--timeout", "2"], cwd=REPO, env=env, capture_output=True,
                           text=True, check=False)  # fmt: skip
    assert other.returncode == 2
    assert "other settings (differs in: timeout)" in other.stderr.strip().splitlines()[-1]

    resumed = subprocess.run([*cmd, "--timeout", "1"], cwd=REPO, env=env, capture_output=True,
                             text=True, check=False)  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    assert f"resuming: {written} of 24 samples" in resumed.stdout
    assert gzip.decompress(out.read_bytes()) == whole.read_bytes()
    assert not partial.exists() and not (tmp_path / "resumed.jsonl.gz.partial.json").exists()


def test_a_partial_file_of_other_samples_is_refused(tmp_path: Path) -> None:
    samples = [{"task_id": "T/0", "completion": "a"}, {"task_id": "T/1", "completion": "b"}]
    out = tmp_path / "out.jsonl"
    (tmp_path / "out.jsonl.partial.json").write_text(json.dumps({"x": 1}))
    (tmp_path / "out.jsonl.partial").write_text(json.dumps({**samples[1], "passed": True}) + "\n")
    with pytest.raises(UserError, match="out.jsonl.partial:1: row does not match sample 1"):
        PartialOutput(out, {"x": 1}, samples).__enter__()
    with PartialOutput(out, {"x": 1}, samples[1:]) as output:  # the right samples: resumes
        assert (output.done, output.passed) == (1, 1)
        output.finish()
    assert out.read_text() == json.dumps({**samples[1], "passed": True}) + "\n"
