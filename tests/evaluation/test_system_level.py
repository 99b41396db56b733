"""System level: generator mean score vs pass rate, and the join of rows to their generator."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from unice.evaluation.data import load_split
from unice.evaluation.errors import EvaluationError
from unice.evaluation.systems import row_generators
from unice.metrics import system_level_correlations
from unice.metrics.system_level import batch_kendall_pearson

from .conftest import write_rows

# 4 generators, 4 programs each; pass rates 0, .25, .5, 1 (perfectly ordered)
GENERATORS = {"g0": 0, "g1": 1, "g2": 2, "g3": 4}


def _toy() -> tuple[np.ndarray, list[str], np.ndarray]:
    passed, systems = [], []
    for name, n_pass in GENERATORS.items():
        passed += [True] * n_pass + [False] * (4 - n_pass)
        systems += [name] * 4
    return np.asarray(passed), systems, np.asarray(passed, dtype=float)


def test_perfectly_ordered_generator_means_give_tau_one() -> None:
    passed, systems, _ = _toy()
    rank = {"g0": 0.1, "g1": 0.2, "g2": 0.3, "g3": 0.9}
    ordered = np.asarray([rank[s] for s in systems])
    reversed_ = 1.0 - ordered
    # the same mean per generator either way, whatever the scores within a generator
    shuffled = ordered + np.tile([0.05, -0.05, 0.02, -0.02], 4)
    result = system_level_correlations(
        {"up": ordered, "down": reversed_, "noisy": shuffled},
        passed,
        systems,
        n_resamples=200,
        seed=3,
    )
    assert [s["name"] for s in result["systems"]] == list(GENERATORS)
    assert [s["pass_rate"] for s in result["systems"]] == [0.0, 0.25, 0.5, 1.0]
    up, down, noisy = (result["metrics"][k] for k in ("up", "down", "noisy"))
    assert up["kendall"] == pytest.approx(1.0) and down["kendall"] == pytest.approx(-1.0)
    assert noisy["kendall"] == pytest.approx(1.0)
    assert up["means"] == pytest.approx([0.1, 0.2, 0.3, 0.9])
    # Pearson by hand: means vs pass rates
    expected = np.corrcoef([0.1, 0.2, 0.3, 0.9], [0.0, 0.25, 0.5, 1.0])[0, 1]
    assert up["pearson"] == pytest.approx(expected)
    low, high = up["kendall_ci"]
    assert low == pytest.approx(1.0) and high == pytest.approx(1.0)  # every resample agrees
    assert up["n_systems"] == 4 and result["n_systems"] == 4


def test_unscored_rows_and_constant_scores() -> None:
    passed, systems, _ = _toy()
    scores = np.asarray([0.1] * 4 + [0.2] * 4 + [0.3] * 4 + [np.nan] * 4)
    constant = np.full(16, 0.5)
    result = system_level_correlations(
        {"partial": scores, "constant": constant}, passed, systems, n_resamples=0
    )
    partial = result["metrics"]["partial"]
    assert partial["n_systems"] == 3 and math.isnan(partial["means"][3])
    assert partial["kendall"] == pytest.approx(1.0)  # over the 3 generators it scored
    assert math.isnan(result["metrics"]["constant"]["kendall"])  # undefined, never 0
    assert all(math.isnan(v) for v in partial["kendall_ci"])  # no resamples, no interval


def test_batch_correlations_match_scipy_with_ties_and_gaps() -> None:
    from scipy import stats

    rng = np.random.default_rng(4)
    x = np.round(rng.random((30, 12)), 1)  # ties
    y = np.round(rng.random((30, 12)), 1)
    x[::3, 2] = np.nan  # an unscored system in some rows
    kendall, pearson = batch_kendall_pearson(x, y)
    for row in range(30):
        keep = np.isfinite(x[row])
        assert kendall[row] == pytest.approx(stats.kendalltau(x[row][keep], y[row][keep])[0])
        assert pearson[row] == pytest.approx(stats.pearsonr(x[row][keep], y[row][keep])[0])
    constant, _ = batch_kendall_pearson(np.full((1, 5), 0.1), np.arange(5.0)[None])
    assert math.isnan(constant[0])


def test_intervals_are_seeded() -> None:
    rng = np.random.default_rng(0)
    systems = [f"g{i}" for i in range(10) for _ in range(5)]
    passed = rng.random(50) < 0.5
    scores = {"m": rng.random(50)}
    a = system_level_correlations(scores, passed, systems, n_resamples=100, seed=1)
    b = system_level_correlations(scores, passed, systems, n_resamples=100, seed=1)
    assert a["metrics"]["m"]["kendall_ci"] == b["metrics"]["m"]["kendall_ci"]


def _split(tmp_path: Path, rows: list[dict]) -> Path:
    return write_rows(tmp_path / "data" / "test.jsonl", rows)


def _row(task: str, k: int, **extra) -> dict:
    return {
        "id": f"{task}::samples::{k}",
        "task_id": task,
        "generated": f"return {k}",
        "pass_ratio": 1.0,
        "executable": True,
        "passed": True,
        "source": "samples:multi.jsonl",
        **extra,
    }


def _samples(tmp_path: Path) -> Path:
    lines = [  # file order: T/0 gets a, b, c; T/1 gets c, a
        {"task_id": "T/0", "completion": "x", "generator": "a"},
        {"task_id": "T/1", "completion": "x", "generator": "c"},
        {"task_id": "T/0", "completion": "x", "generator": "b"},
        {"task_id": "T/1", "completion": "x", "generator": "a"},
        {"task_id": "T/0", "completion": "x", "generator": "c"},
    ]
    path = tmp_path / "multi.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_generator_is_the_kth_line_of_the_rows_task(tmp_path: Path) -> None:
    # a subsample: row T/0::samples::2 is the 3rd line of T/0 (the file's 5th line)
    rows = [_row("T/0", 2), _row("T/1", 0), _row("T/0", 0), _row("T/1", 1)]
    data = load_split(_split(tmp_path, rows))
    generators, source = row_generators(data, _samples(tmp_path))
    assert generators == ["c", "c", "a", "a"] and "multi.jsonl" in source


def test_the_rows_own_generator_field_wins(tmp_path: Path) -> None:
    rows = [_row("T/0", 0, generator="own"), _row("T/0", 1)]
    data = load_split(_split(tmp_path, rows))
    assert row_generators(data, _samples(tmp_path))[0] == ["own", "b"]
    every = load_split(_split(tmp_path, [_row("T/0", 0, generator="x")]))
    assert row_generators(every, None) == (["x"], "the rows' generator field")  # no file needed
    assert row_generators(data, None)[0] is None  # some rows without one and no file


def test_bad_joins_are_one_line_errors(tmp_path: Path) -> None:
    samples = _samples(tmp_path)
    beyond = load_split(_split(tmp_path, [_row("T/1", 2)]))
    with pytest.raises(EvaluationError, match="has 2 line"):
        row_generators(beyond, samples)
    other = load_split(_split(tmp_path, [_row("T/0", 0, source="samples:codegen.jsonl")]))
    with pytest.raises(EvaluationError, match="built from codegen.jsonl"):
        row_generators(other, samples)
    mutant = dict(_row("T/0", 0), id="T/0::mutant::0", source="mutant:swap")
    with pytest.raises(EvaluationError, match="not a sample"):
        row_generators(load_split(_split(tmp_path, [mutant])), samples)
    with pytest.raises(EvaluationError, match="no such file"):
        row_generators(beyond, tmp_path / "missing.jsonl")


def test_evaluate_reports_the_system_level_section(tmp_path: Path) -> None:
    from .test_evaluate import run

    lines, rows = [], []
    for t in range(3):
        for name, n_pass in GENERATORS.items():  # each task: one program per generator
            k = sum(1 for line in lines if line["task_id"] == f"T/{t}")
            lines.append({"task_id": f"T/{t}", "completion": "x", "generator": name})
            ok = t < n_pass
            rows.append(
                _row(f"T/{t}", k, passed=ok, pass_ratio=float(ok), nl="Do it.", reference="r")
            )
    samples = tmp_path / "multi.jsonl"
    samples.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    split = _split(tmp_path, rows)
    scores = write_rows(
        tmp_path / "ext.jsonl",
        [{"id": r["id"], "Oracle": float(r["passed"]), "Anti": -float(r["passed"])} for r in rows],
    )
    out = tmp_path / "out"
    report, printed = run(
        [f"data={split}", f"scores={scores}", f"generators={samples}", f"output_dir={out}"]
        + ["baselines=none", "bootstrap.n_resamples=50", "progress=false", "label=passed"]
    )
    system = report["system_level"]
    assert system["n_systems"] == 4 and system["unit"] == "generators"
    assert system["metrics"]["Oracle"]["kendall"] == pytest.approx(1.0)
    assert system["metrics"]["Anti"]["kendall"] == pytest.approx(-1.0)
    saved = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert saved["system_level"]["metrics"]["Oracle"]["means"] == [0.0, 1 / 3, 2 / 3, 1.0]
    markdown = (out / "report.md").read_text(encoding="utf-8")
    assert "System level: each generator's mean score vs its pass rate (4 generators)" in markdown
    assert "System level" in printed and (out / "system_level.png").is_file()
    plain, _ = run(
        [f"data={split}", f"scores={scores}", f"output_dir={tmp_path / 'plain'}"]
        + ["baselines=none", "bootstrap.n_resamples=0", "progress=false", "plots=false"]
    )
    assert plain["system_level"] is None  # no generators= and no generator field: no section
