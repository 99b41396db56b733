"""The switch ablation's verdicts follow the pre-registered rule (scripts/switch_ablation.py):
stage-one arms against the baseline, the combined arm against the best single adopted arm,
and a stage-two arm against the arm it trains on top of."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from unice.testing import load_script


@pytest.fixture(scope="module")
def ablation():
    return load_script("switch_ablation")


def _arm(out: Path, arm: str, rho: float, switches: list[str] | None = None) -> None:
    metrics = {"best/example_spearman": rho, "best/example_kendall": rho - 0.05,
               "best/spearman": 0.3, "best/exec_auroc": 0.75, "train_seconds": 1.0}  # fmt: skip
    if switches is not None:
        metrics["switches"] = switches
    (out / arm).mkdir(parents=True)
    (out / arm / "metrics.json").write_text(json.dumps(metrics), "utf-8")


def _verdicts(table: str) -> dict[str, str]:
    rows = [line.split("|") for line in table.splitlines() if line.startswith("| ")][1:]
    return {cells[1].strip(): cells[-2].strip() for cells in rows}


def test_the_rule_reads_each_arm_against_what_it_must_beat(ablation, tmp_path):
    _arm(tmp_path, "baseline", 0.30, [])
    _arm(tmp_path, "exact_features", 0.34, ["exact_features"])  # +.04: adopted
    _arm(tmp_path, "clean_generated", 0.321, ["clean_generated"])  # +.021: adopted
    _arm(tmp_path, "layout", 0.319, ["layout"])  # +.019: not by the margin
    _arm(tmp_path, "combined", 0.325, ["exact_features", "clean_generated"])  # >= .34 - .02
    _arm(tmp_path, "exact_prior", 0.34, ["exact_features", "clean_generated", "exact_prior"])
    verdicts = _verdicts(ablation.table(tmp_path))
    assert verdicts["exact_features"] == "**yes**"
    assert verdicts["clean_generated"] == "**yes**"
    assert verdicts["layout"] == "no"
    assert verdicts["combined: exact_features+clean_generated"] == "kept"
    # stage two: +.015 over the combined arm it trains on top of is not enough
    assert verdicts["exact_features+clean_generated+exact_prior"] == "no (vs combined)"


def test_a_combined_arm_far_below_the_best_single_one_is_not_kept(ablation, tmp_path):
    _arm(tmp_path, "baseline", 0.30, [])
    _arm(tmp_path, "exact_features", 0.36, ["exact_features"])
    _arm(tmp_path, "clean_generated", 0.33, ["clean_generated"])
    _arm(tmp_path, "combined", 0.33, ["exact_features", "clean_generated"])  # .36 - .03
    _arm(tmp_path, "exact_prior", 0.40, ["exact_features", "exact_prior"])  # +.04 over .36
    verdicts = _verdicts(ablation.table(tmp_path))
    assert verdicts["combined: exact_features+clean_generated"] == "not kept (best single only)"
    assert verdicts["exact_features+exact_prior"] == "**yes** (vs exact_features)"
