"""Per-test limits calibrated from the reference solution (``label``'s default)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.execution.calibrate import (
    DEFAULT_CONFIG,
    LimitConfigError,
    LimitPolicy,
    load_policy,
)


def test_limit_is_the_clamped_multiple_of_the_reference_time() -> None:
    policy = LimitPolicy(factor=20, floor=0.1, cap=3.0)
    assert policy.limit(0.00002) == 0.1  # floor
    assert policy.limit(0.02) == 0.4
    assert policy.limit(1.0) == 3.0  # cap
    assert policy.limit(None) == 3.0  # the reference failed the test: nothing to go by


def test_the_shipped_config_is_the_documented_default() -> None:
    assert load_policy(DEFAULT_CONFIG) == LimitPolicy()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("python:\n  factr: 2\n", "unknown key(s) ['factr']"),
        ("python:\n  floor: -1\n", "floor must be a positive number"),
        ("python:\n  floor: 5\n  cap: 3\n", "floor (5) is above cap (3)"),
        ("python:\n  reference_runs: 0\n", "reference_runs must be a whole number"),
        ("[1, 2]\n", "expected a mapping"),
    ],
)
def test_bad_configs_name_the_file_and_the_problem(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "limits.yaml"
    path.write_text(text + "compiled: {}\n" if text.startswith("python") else text)
    with pytest.raises(LimitConfigError, match="limits.yaml") as caught:
        load_policy(path)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("python: {}\ncompiled:\n  timout: 2\n", "compiled: unknown key(s) ['timout']"),
        ("python: {}\ncompiled:\n  timeout: [1\n", "not valid YAML"),
        ("- 1\n", "expected a mapping of limit settings"),
    ],
)
def test_bad_language_limits_are_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    from data_builders.execution.limits import ForeignLimits

    path = tmp_path / "limits.yaml"
    path.write_text(text)
    with pytest.raises(LimitConfigError, match="limits.yaml") as caught:
        ForeignLimits.from_yaml(path)
    assert message in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(LimitConfigError, match="no such limits config"):
        ForeignLimits.from_yaml(tmp_path / "absent.yaml")


SPIN_TASK = {
    "task_id": "MbppEval/7",
    "prompt": "def spin(n):\n    '''Use n CPU seconds, return n.'''\n",
    "entry_point": "spin",
    "canonical_solution": (
        "    import time\n    t = time.process_time()\n"
        "    while time.process_time() - t < n:\n        pass\n    return n\n"
    ),
    "test": "def check(candidate):\n    assert spin(0) == 0\n    assert spin(0.02) == 0.02\n",
}
SLOWER = "    import time\n    t = time.process_time()\n    while time.process_time() - t < {k} * n:\n        pass\n    return n\n"


def _label(tmp_path: Path, *extra: str) -> list[dict]:
    problems = tmp_path / "p.jsonl"
    problems.write_text(json.dumps(SPIN_TASK) + "\n")
    samples = tmp_path / "s.jsonl"
    rows = [{"task_id": "MbppEval/7", "completion": SLOWER.format(k=k)} for k in (5, 50)]
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "r.jsonl"
    argv = ["label", "--problems", "mbpp", "--problems-file", str(problems), "--samples"]
    assert main([*argv, str(samples), "--out", str(out), "--workers", "1", *extra]) == 0
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_label_calibrates_from_the_reference_and_timeout_overrides(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reference spends ~0.02 s on the second test: its limit is ~0.4 s (20x). A program
    5x slower passes, one 50x slower (1 s) times out; ``--timeout 3`` lets both pass."""
    cache = tmp_path / "times.json"
    calibrated = _label(tmp_path, "--reference-cache", str(cache))
    assert [r["passed"] for r in calibrated] == [True, False]
    assert calibrated[1]["status_counts"]["timeout"] == 1
    assert "1 timed now, 0 cached" in capsys.readouterr().out
    assert cache.is_file()
    _label(tmp_path, "--reference-cache", str(cache))  # timed once, then from the cache
    assert "0 timed now, 1 cached" in capsys.readouterr().out
    assert [r["passed"] for r in _label(tmp_path, "--timeout", "3")] == [True, True]


def test_a_bad_limits_file_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "limits.yaml"
    bad.write_text("python:\n  floor: 0\ncompiled: {}\n")
    problems = tmp_path / "p.jsonl"
    problems.write_text(json.dumps(SPIN_TASK) + "\n")
    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"task_id": "MbppEval/7", "completion": "    return n\n"}) + "\n")
    argv = ["label", "--problems", "mbpp", "--problems-file", str(problems), "--samples"]
    code = main([*argv, str(samples), "--out", str(tmp_path / "r.jsonl"), "--limits", str(bad)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "floor must be a positive number" in err and "--timeout" in err
    assert "\n" not in err
