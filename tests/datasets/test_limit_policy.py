"""One time-limit policy: ``build`` labels under ``label``'s per-test limits
(``clamp(factor x the reference's time on that test, floor, cap)``, configs/build/limits.yaml),
and a dataset config still carrying the retired ``timeouts`` section is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.dataset.config import load_config
from data_builders.dataset.labels import per_test_limits
from data_builders.dataset.tasks import TaskSpec
from data_builders.errors import UserError
from data_builders.execution import CallTest
from data_builders.execution.calibrate import DEFAULT_CONFIG, LimitPolicy, load_policy
from data_builders.extension.suite import ExtendedSuite
from data_builders.problems.base import Problem

BIG = 400_000  # the reference needs ~40 ms here (limit ~0.8 s); the other tests ~0 (0.1 s)


def _summing(repeats: int, spin_on_small: int = 0) -> str:
    """``f(n) = 0 + 1 + ... + n-1``, computed ``repeats`` times; with ``spin_on_small``, a
    busy loop of that many steps first when ``n`` is small (slow only on the cheap tests)."""
    spin = f"    if n < 10:\n        for _ in range({spin_on_small}):\n            pass\n"
    return (
        "def f(n):\n"
        + (spin if spin_on_small else "")
        + f"    for _ in range({repeats}):\n"
        + "        s = 0\n        for i in range(n):\n            s += i\n    return s\n"
    )


CANDIDATES = {
    "reference": _summing(1),
    "5x slower": _summing(5),
    "100x slower": _summing(100),
    "slow on cheap tests": _summing(1, spin_on_small=20_000_000),  # ~0.5 s where n < 10
}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    """A one-problem APPS build (the big test first), no generated tests, four candidates."""
    root = tmp_path_factory.mktemp("policy")
    inputs = [[BIG], [1], [3]]
    problem = {
        "problem_id": 0,
        "question": "Return the sum 0 + 1 + ... + n-1.",
        "solutions": json.dumps([CANDIDATES["reference"]]),
        "input_output": json.dumps(
            {"fn_name": "f", "inputs": inputs, "outputs": [[n * (n - 1) // 2] for [n] in inputs]}
        ),
        "starter_code": "",
        "difficulty": "introductory",
    }
    (root / "train.jsonl").write_text(json.dumps(problem) + "\n")
    config = root / "apps.yaml"
    config.write_text("split_ratios: [0, 0, 1]\nextension:\n  target_tests: 3\n")
    task_id = "APPS/train/0000"
    samples = root / "samples.jsonl"
    samples.write_text(
        "".join(json.dumps({"task_id": task_id, "solution": s}) + "\n" for s in CANDIDATES.values())
    )
    out = root / "out"
    argv = ["build", "apps", "--source", str(root / "train.jsonl"), "--samples", str(samples)]
    argv += ["--config", str(config), "--cache-dir", str(root / "cache"), "--out", str(out)]
    assert main([*argv, "--workers", "2"]) == 0
    rows = [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]
    assert [row["task_id"] for row in rows] == [task_id] * len(CANDIDATES)
    recorded = json.loads((out / "stats.json").read_text())["config"]["limits"]
    assert recorded == json.loads(json.dumps(load_policy().__dict__))  # provenance
    return dict(zip(CANDIDATES, rows, strict=True))


def test_a_candidate_5x_slower_than_the_reference_passes(built) -> None:
    for name in ("reference", "5x slower"):
        assert built[name]["passed"] and built[name]["n_tests"] == 3, built[name]


def test_a_candidate_100x_slower_times_out_on_the_slow_test_only(built) -> None:
    row = built["100x slower"]
    # the big test runs past 20 x the reference's time; the cheap ones then run under
    # after_timeout (0.01 s), which they need far less than
    assert row["status_counts"]["timeout"] == 1 and row["status_counts"]["pass"] == 2, row
    assert row["executable"] is False and row["pass_ratio"] == pytest.approx(2 / 3)


def test_each_test_has_its_own_limit_not_the_slowest_tests(built) -> None:
    # ~0.3-0.5 s on the cheap tests: within the big test's ~0.8 s (the old per-problem limit),
    # over the 0.1 s floor those tests get from their own (~0 s) reference time
    row = built["slow on cheap tests"]
    assert row["status_counts"]["pass"] == 1 and row["status_counts"]["timeout"] == 2, row


def test_limits_follow_each_tests_reference_time() -> None:
    problem = Problem("T/0", "", "", "def f(x):\n    return x\n", "f")
    spec = TaskSpec(0, problem, "call", [CallTest([1], 1), CallTest([2], 2)], [])
    spec.test_times = [0.0001, None]  # None: no accepted reference passed that test
    suite = ExtendedSuite("T/0", "call", [((3,), 3), ((4,), 4)], n_original=2)
    suite.reference_times = [0.02, 1.0]
    policy = LimitPolicy(factor=20.0, floor=0.1, cap=3.0)
    assert per_test_limits(spec, suite, policy) == [0.1, 3.0, 0.4, 3.0]


def test_the_retired_timeouts_section_is_an_error_naming_limits_yaml(tmp_path: Path) -> None:
    old = tmp_path / "apps.yaml"
    old.write_text("seed: 1\ntimeouts:\n  factor: 10.0\n  min: 0.5\n")
    with pytest.raises(UserError, match=r"'timeouts' is no longer .*configs/build/limits\.yaml"):
        load_config("apps", old)


def test_build_reads_limits_yaml_or_the_given_file(tmp_path: Path) -> None:
    assert load_config("apps").limits == load_policy(DEFAULT_CONFIG)
    other = tmp_path / "limits.yaml"
    other.write_text("python:\n  factor: 10.0\n  floor: 0.5\n  cap: 4.0\ncompiled: {}\n")
    config = load_config("apps", limits=other)
    assert (config.limits.factor, config.limits.floor, config.limits.cap) == (10.0, 0.5, 4.0)
    assert config.fingerprint() != load_config("apps").fingerprint()
    other.write_text("python:\n  factor: -1\ncompiled: {}\n")
    with pytest.raises(UserError, match="--limits"):
        load_config("apps", limits=other)


def test_build_humaneval_x_reads_every_section_of_the_given_limits_file(tmp_path: Path) -> None:
    """``build humaneval-x --limits FILE``: python's factor and the compiled sections of FILE
    (in the manifest and the provenance), not the shipped file's."""
    from data_builders.dataset.datasets import dataset_named
    from data_builders.dataset.pipeline import BuildRequest

    other = tmp_path / "limits.yaml"
    other.write_text(
        "python:\n  factor: 10.0\ncompiled:\n  timeout: 2.0\njs:\n  calibrated_floor: 0.3\n"
    )
    config = load_config("humaneval-x", limits=other)
    request = BuildRequest("humaneval-x", tmp_path, config, language="js", limits_file=other)
    limits = request.manifest()["language_limits"]
    assert (limits["timeout"], limits["calibrated_floors"]) == (2.0, {"js": 0.3})
    policy = dataset_named("humaneval-x").meta(request)["assertion_limits"]
    assert (policy["factor"], policy["floor"], policy["cap"]) == (10.0, 0.3, 2.0)
