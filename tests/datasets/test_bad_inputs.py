"""Bad inputs end in one line `error: ...` and exit status 2, never a traceback."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from data_builders.__main__ import main


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and err[-1].startswith("error: ")
    assert not any("Traceback" in line for line in err)
    return err[-1]


def test_unknown_dataset_and_missing_candidates(tmp_path: Path, capsys) -> None:
    assert "unknown dataset 'cobol'" in _run(
        ["build", "cobol", "--out", str(tmp_path), "--mutants", "1"], capsys
    )
    assert "no candidates" in _run(["build", "humaneval", "--out", str(tmp_path)], capsys)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--split-ratios", "1,2"], "split ratios '1,2' must be three"),
        (["--num-shards", "2", "--shard-index", "2"], "--shard-index must be in 0..1"),
        (["--max-problems", "0"], "--max-problems must be >= 1"),
        (["--samples", "nope.jsonl"], "--samples nope.jsonl: no such file"),
    ],
)
def test_bad_options(tmp_path: Path, capsys, extra: list[str], message: str) -> None:
    argv = ["build", "humaneval", "--out", str(tmp_path / "o"), "--mutants", "1", *extra]
    assert message in _run(argv, capsys)


def test_malformed_samples_file(tmp_path: Path, capsys) -> None:
    samples = tmp_path / "s.jsonl"
    samples.write_text('{"task_id": "HumanEval/0", "completion": "    return 1\\n"}\n{oops\n')
    argv = ["build", "humaneval", "--out", str(tmp_path / "o"), "--samples", str(samples)]
    argv += ["--max-problems", "1", "--cache-dir", str(tmp_path / "c")]
    assert f"{samples}:2: malformed JSON" in _run(argv, capsys)


def test_task_without_reference(tmp_path: Path, capsys, mbpp_file: Path) -> None:
    records = [json.loads(line) for line in mbpp_file.read_text().splitlines()]
    records[1]["code"] = ""
    mbpp_file.write_text("".join(json.dumps(r) + "\n" for r in records))
    argv = [
        "build",
        "mbpp",
        "--source",
        str(mbpp_file),
        "--out",
        str(tmp_path / "o"),
        "--mutants",
        "1",
    ]
    assert f"{mbpp_file}:2: task has no reference solution" in _run(argv, capsys)
    shaped = tmp_path / "he.jsonl"
    shaped.write_text(
        json.dumps(
            {
                "task_id": "X/0",
                "prompt": "def f():\n",
                "entry_point": "f",
                "test": "def check(candidate):\n    assert candidate() == 1\n",
            }
        )
        + "\n"
    )
    argv = [
        "build",
        "humaneval",
        "--source",
        str(shaped),
        "--out",
        str(tmp_path / "p"),
        "--mutants",
        "1",
    ]
    assert "X/0: task has no reference solution" in _run(argv, capsys)


@pytest.mark.parametrize("dataset", ["mbpp", "apps"])
def test_offline_hub_fails_at_once_naming_source(
    tmp_path: Path, capsys, monkeypatch, dataset: str
) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    started = time.monotonic()
    message = _run(["build", dataset, "--out", str(tmp_path / "o"), "--mutants", "1"], capsys)
    assert "--source" in message and "HF_HUB_OFFLINE" in message
    # not a speed target: a hub client retrying an unreachable host waits minutes, which this
    # bound catches with room for a loaded machine
    assert time.monotonic() - started < 60


def test_unknown_config_key(tmp_path: Path, capsys) -> None:
    config = tmp_path / "c.yaml"
    config.write_text("seed: 1\nextension:\n  target: 5\n")
    argv = [
        "build",
        "humaneval",
        "--out",
        str(tmp_path / "o"),
        "--mutants",
        "1",
        "--config",
        str(config),
    ]
    assert "unknown key(s) ['target'] in 'extension'" in _run(argv, capsys)


def test_merge_of_something_that_is_not_a_shard(tmp_path: Path, capsys) -> None:
    assert "not a shard build" in _run(
        ["merge", str(tmp_path), "--out", str(tmp_path / "m")], capsys
    )
