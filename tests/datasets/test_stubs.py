"""Stub candidates (issue 27, arm G): one samples line per problem and configured body."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from data_builders.candidates.stubs import DEFAULT_CONFIG, StubConfig, stub_lines
from data_builders.errors import UserError

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_config_reads_and_every_body_is_an_indented_statement():
    config = StubConfig.from_yaml(DEFAULT_CONFIG)
    lines = list(stub_lines(["T/1", "T/2"], config))
    assert len(lines) == 2 * len(config.bodies)
    assert {line["task_id"] for line in lines} == {"T/1", "T/2"}
    for line in lines:
        assert line["completion"].startswith("    ") and line["completion"].endswith("\n")
        assert line["generator"].startswith(config.generator_prefix)
        compile("def f(x):\n" + line["completion"], "<stub>", "exec")  # a valid body


def test_a_config_without_bodies_is_refused_naming_the_file(tmp_path):
    bad = tmp_path / "stubs.yaml"
    bad.write_text("bodies: []\n")
    with pytest.raises(UserError, match="stubs.yaml.*'bodies'"):
        StubConfig.from_yaml(bad)


def test_the_script_keeps_the_real_samples_and_adds_the_stubs(tmp_path):
    problems = tmp_path / "problems.jsonl"
    problems.write_text("".join(json.dumps({"task_id": f"T/{i}"}) + "\n" for i in range(3)))
    samples = tmp_path / "samples.jsonl"
    samples.write_text(json.dumps({"task_id": "T/0", "completion": "    return 1\n"}) + "\n")
    out = tmp_path / "out.jsonl"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "stub_samples.py"), "--problems", str(problems),
         "--samples", str(samples), "--out", str(out)],
        check=True, capture_output=True,
    )  # fmt: skip
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    n_bodies = len(StubConfig.from_yaml().bodies)
    assert rows[0] == {"task_id": "T/0", "completion": "    return 1\n"}
    assert len(rows) == 1 + 3 * n_bodies
