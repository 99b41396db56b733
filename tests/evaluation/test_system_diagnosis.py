"""System-level diagnosis and per-problem centring (issue 43 item 4), on a synthetic set where
generators cover different problems and raw means mislead.

Six problems of equal difficulty; a metric whose level differs by problem (0 on P0-P2, 0.9 on
P3-P5, as a long reference lifts n-gram scores) plus 0.3 for a passing program. The best
generator covers only low-level problems, the worst only high-level ones, so the raw means
order them backwards (tau -1); centring each problem's scores takes the level out (tau 1).
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pytest

from unice.evaluation.errors import EvaluationError
from unice.evaluation.system_diagnosis import (
    SystemRows,
    diagnose,
    mark_over_window,
    read_rows,
)
from unice.evaluation.system_diagnosis_report import to_markdown
from unice.metrics import system_level_correlations
from unice.metrics.system_level import center_within, problem_bootstrap

from .conftest import write_rows

ROOT = Path(__file__).resolve().parents[2]
LEVEL = {f"P{p}": 0.0 if p < 3 else 0.9 for p in range(6)}
# generator -> (problems covered, passing programs of 4 per problem)
COVERAGE = {
    "good": (["P0", "P1", "P2"], 3),
    "mid": ([f"P{p}" for p in range(6)], 2),
    "bad": (["P3", "P4", "P5"], 1),
}


def _synthetic() -> SystemRows:
    ids, problems, generators, passed = [], [], [], []
    for name, (covered, n_pass) in COVERAGE.items():
        for problem in covered:
            for k in range(4):
                ids.append(f"{problem}::{name}::{k}")
                problems.append(problem)
                generators.append(name)
                passed.append(float(k < n_pass))
    gold = np.asarray(passed)
    score = np.asarray([LEVEL[p] for p in problems]) + 0.3 * gold
    return SystemRows(ids, problems, generators, gold, {"Level": score}, {"data": "synthetic"})


def test_center_within_subtracts_each_groups_mean_and_keeps_nan() -> None:
    out = center_within([1.0, 3.0, math.nan, 5.0, 7.0], ["a", "a", "b", "b", "b"])
    assert out[:2] == pytest.approx([-1.0, 1.0])
    assert math.isnan(out[2]) and out[3:] == pytest.approx([-1.0, 1.0])
    with pytest.raises(ValueError, match="differ in length"):
        center_within([1.0], ["a", "b"])


def test_centring_recovers_the_order_raw_means_reverse() -> None:
    rows = _synthetic()
    args = ({"Level": rows.columns["Level"]}, rows.passed > 0.5, rows.generators)
    raw = system_level_correlations(*args, n_resamples=0)
    centred = system_level_correlations(*args, n_resamples=0, center_groups=rows.problems)
    assert [s["pass_rate"] for s in raw["systems"]] == [0.75, 0.5, 0.25]
    assert raw["metrics"]["Level"]["kendall"] == pytest.approx(-1.0)
    assert centred["metrics"]["Level"]["kendall"] == pytest.approx(1.0)
    assert raw["center"] is None and centred["center"] == "problem"
    assert centred["metrics"]["Level"]["means"] == pytest.approx([0.0375, 0.0, -0.0375])


def test_diagnose_names_the_confound() -> None:
    d = diagnose(_synthetic(), n_resamples=100, seed=1, min_common=1)
    variants = {
        v: d["variants"][v]["Level"]["kendall"] for v in ("raw", "centred", "centred_scores")
    }
    assert variants == pytest.approx({"raw": -1.0, "centred": 1.0, "centred_scores": 1.0})
    assert d["variants"]["common"] is None and d["n_common_problems"] == 0  # disjoint coverage
    good = d["generators"][0]
    assert (good["name"], good["rows"], good["problems"], good["pass_rank"]) == ("good", 12, 3, 1)
    level = d["metrics"]["Level"]
    assert level["ranks"] == [3.0, 2.0, 1.0] and level["displacement"] == [2.0, 0.0, -2.0]
    assert {m["generator"] for m in level["misplaced"][:2]} == {"good", "bad"}
    # equal-difficulty problems: coverage is the same for all, the order is all 'relative'
    assert d["target"]["tau_pass_rate_relative"] == pytest.approx(1.0)
    raw_only = diagnose(_synthetic(), n_resamples=0, variants=("raw",))
    assert raw_only["variants"]["centred_scores"] is None  # a figure a rule says not to compute
    assert "| Level | -1.000 | not computed | not computed |" in to_markdown(raw_only)
    with pytest.raises(EvaluationError, match="unknown variant"):
        diagnose(_synthetic(), n_resamples=0, variants=("raw", "typo"))


def test_rows_of_two_folders_join_and_small_generators_drop() -> None:
    rows = _synthetic()
    joined = SystemRows.concat([rows.matching(["good"]), rows.matching(["mid", "bad"])])
    assert len(joined.ids) == len(rows.ids) and joined.source["only"] == ["bad", "good", "mid"]
    assert set(rows.at_least(13).generators) == {"mid"}  # good and bad have 12 rows each
    with pytest.raises(EvaluationError, match="no row of synthetic has a generator matching"):
        rows.matching(["nobody*"])


def test_problem_bootstrap_of_a_perfect_metric_is_one() -> None:
    rows = _synthetic()
    out = problem_bootstrap(
        {"Oracle": rows.passed}, rows.passed, rows.generators, rows.problems, n_resamples=50
    )
    low, high = out["Oracle"]["kendall_ci"]
    assert low == pytest.approx(1.0) and high == pytest.approx(1.0)


def test_script_reads_a_scores_file_and_writes_md_json_png(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = _synthetic()
    split = write_rows(
        tmp_path / "data" / "test.jsonl",
        [
            {
                "id": i,
                "task_id": p,
                "generated": "x",
                "pass_ratio": y,
                "executable": True,
                "passed": bool(y == 1.0),
                "generator": g,
            }  # fmt: skip
            for i, p, g, y in zip(
                rows.ids, rows.problems, rows.generators, rows.passed, strict=True
            )
        ],
    )
    scores = write_rows(
        tmp_path / "scores.jsonl",
        [
            {"id": i, "Level": float(s)}
            for i, s in zip(rows.ids, rows.columns["Level"], strict=True)
        ],
    )
    read = read_rows(scores, split, "test", None, only=["good", "b*"])
    assert sorted(set(read.generators)) == ["bad", "good"]
    out = tmp_path / "out"
    script = _script()
    args = ["--scores", str(scores), "--data", str(split), "--n-resamples", "20"]
    assert script.main([*args, "--out", str(out)]) == 0
    saved = json.loads((out / "diagnosis.json").read_text())
    assert saved["variants"]["centred_scores"]["Level"]["kendall"] == pytest.approx(1.0)
    assert "| Level | -1.000" in (out / "diagnosis.md").read_text()
    assert (out / "diagnosis.png").stat().st_size > 0
    assert script.main([*args, "--out", str(out), "--metrics", "Nope"]) == 2
    assert "no column 'Nope'" in capsys.readouterr().err


def _script():
    """scripts/system_diagnosis.py as a module (in-process: a subprocess costs seconds)."""
    spec = importlib.util.spec_from_file_location(
        "system_diagnosis_script", ROOT / "scripts" / "system_diagnosis.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dev_rule_adopts_only_on_a_mean_gain_above_the_margin_over_every_fold() -> None:
    spec = importlib.util.spec_from_file_location(
        "system_level_dev_script", ROOT / "scripts" / "system_level_dev.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    settings = {"column": "CS", "margin": 0.05}

    def fold(raw: float, centred: float) -> dict:
        return {"raw": {"CS": raw}, "centred": {"CS": centred}}

    up = module.verdict(settings, {"a": fold(0.1, 0.4), "b": fold(0.2, 0.1)})  # gains .3, -.1
    assert up["adopted"] and up["mean_gain"] == pytest.approx(0.1)
    small = module.verdict(settings, {"a": fold(0.1, 0.12), "b": fold(0.2, 0.24)})  # .02, .04
    assert small["decided"] and not small["adopted"]
    missing = module.verdict(settings, {"a": fold(0.1, 0.9), "b": None})
    assert not missing["decided"] and "b" in missing["why"]


def test_over_window_marks_programs_longer_than_the_checkpoints_window(
    tiny_checkpoint: Path,
) -> None:
    window = json.loads((tiny_checkpoint / "config.json").read_text())["max_length"] - 2
    rows = SystemRows(["a", "b"], ["P", "P"], ["g", "h"], np.asarray([1.0, 0.0]), {}, {})
    mark_over_window(rows, ["x = 1", " ".join(["x"] * (window + 5))], tiny_checkpoint)
    assert rows.over_window.tolist() == [0.0, 1.0]
    shares = {g["name"]: g["over_window"] for g in diagnose(rows, n_resamples=0)["generators"]}
    assert shares == {"g": 0.0, "h": 1.0}
