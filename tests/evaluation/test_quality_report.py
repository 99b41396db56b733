"""scripts/quality_report.py and unice/evaluation/quality_tables.py: the verdict reads the primary CodeScore column only."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from unice.evaluation import quality_tables as tables
from unice.testing import load_script


@pytest.fixture(scope="module")
def quality() -> ModuleType:
    return load_script("quality_report")


PRIMARY = "CodeScore (Ref&NL)"
NL = "CodeScore (NL-only)"


def _rows(primary: float, other_codescore: float, baselines: dict[str, float]) -> list[dict]:
    def row(name: str, kind: str, value: float) -> dict:
        return {"name": name, "kind": kind, "example_kendall": value, "corpus_kendall": value}

    rows = [
        row(PRIMARY, "codescore", primary),
        row("CodeScore (avg)", "codescore", other_codescore),
    ]
    return rows + [row(name, "baseline", value) for name, value in baselines.items()]


def _paired(low: float, high: float, names: list[str]) -> dict:
    def level() -> dict:
        verdict = "above" if low > 0 else "below" if high < 0 else "undecided"
        return {"low": low, "high": high, "verdict": verdict}

    return {
        "differences": {
            PRIMARY: {n: {"example_kendall": level(), "corpus_kendall": level()} for n in names}
        }
    }


def test_above_every_baseline_passes(quality: ModuleType) -> None:
    check = tables.verdict(_rows(0.5, 0.1, {"BLEU": 0.3, "chrF": 0.4}), PRIMARY)
    for level in tables.LEVELS:
        assert check[level]["above_every_baseline"] is True
        assert check[level]["codescore"] == PRIMARY and check[level]["best_baseline"] == "chrF"


def test_tied_with_or_below_one_baseline_fails(quality: ModuleType) -> None:
    tied = tables.verdict(_rows(0.4, 0.1, {"BLEU": 0.3, "chrF": 0.4}), PRIMARY)
    below = tables.verdict(_rows(0.39, 0.1, {"BLEU": 0.3, "chrF": 0.4}), PRIMARY)
    for check in (tied, below):
        assert not any(check[level]["above_every_baseline"] for level in tables.LEVELS)


def test_never_the_better_of_two_columns(quality: ModuleType) -> None:
    check = tables.verdict(_rows(0.2, 0.9, {"BLEU": 0.3}), PRIMARY)
    assert check["example_kendall"]["above_every_baseline"] is False
    assert check["example_kendall"]["codescore_value"] == 0.2


def test_interval_crossing_zero_is_reported(quality: ModuleType) -> None:
    rows = _rows(0.5, 0.1, {"BLEU": 0.3, "chrF": 0.45})
    check = tables.verdict(rows, PRIMARY, _paired(-0.02, 0.12, ["BLEU", "chrF"]))
    level = check["corpus_kendall"]
    assert level["above_every_baseline"] is True  # the point estimates are above ...
    assert level["undecided"] == ["BLEU", "chrF"]  # ... but the data cannot tell them apart
    assert {c["interval"] for c in level["comparisons"]} == {"undecided"}
    text = "\n".join(tables.verdict_lines(check))
    assert "2 interval(s) cross 0" in text and "| chrF | 0.450 | 0.050 | [-0.020, 0.120] |" in text


def test_missing_primary_column_gives_no_verdict(quality: ModuleType) -> None:
    rows = [r for r in _rows(0.5, 0.1, {"BLEU": 0.3}) if r["name"] != PRIMARY]
    assert tables.verdict(rows, PRIMARY) == {}


def test_primary_column_from_the_experiment_config(quality: ModuleType, tmp_path: Path) -> None:
    config = tmp_path / "zeroshot_cpu.yaml"
    assert quality.primary_column(config) == PRIMARY  # no file: the default, ref_nl
    config.write_text("protocol:\n  primary_format: avg\n")
    assert quality.primary_column(config) == "CodeScore (avg)"
    config.write_text("model:\n  formats: [ref]\n")
    assert quality.primary_column(config) == PRIMARY  # no key: the default
    config.write_text("protocol:\n  primary_format: best\n")
    with pytest.raises(SystemExit, match="primary_format 'best' is unknown"):
        quality.primary_column(config)


def test_summary_uses_the_common_set_and_mae_only_for_codescore(quality: ModuleType) -> None:
    def metric(name: str, kind: str) -> dict:
        return {
            "name": name,
            "kind": kind,
            "corpus": {"kendall": 0.3, "spearman": 0.4, "pearson": 0.5},
            "example": {"skipped": {"kendall": 0.9, "spearman": 0.9}},
            "mae": 0.2,
            "exec": None,
            "seconds": 1.0,
        }

    report = {
        "metrics": [metric(PRIMARY, "codescore"), metric("BLEU", "baseline")],
        "paired": {
            "common": {
                PRIMARY: {"example_kendall": 0.35, "corpus_kendall": 0.3},
                "BLEU": {"example_kendall": 0.25, "corpus_kendall": 0.3},
            }
        },
    }
    rows = {r["name"]: r for r in tables.summarise(report)}
    assert rows[PRIMARY]["example_kendall"] == 0.35 and rows["BLEU"]["example_kendall"] == 0.25
    assert rows[PRIMARY]["mae"] == 0.2 and rows["BLEU"]["mae"] != rows["BLEU"]["mae"]  # nan


# --- the new tables: reference-free, best-of-n, system level (issue 27) ---------------------


def _evaluate(tmp_path: Path, name: str, rows: list[dict], scores: list[dict], *extra: str) -> Path:
    """An evaluate.py run (external columns only, fast) on ``rows``; returns its folder."""
    from .conftest import write_rows
    from .test_evaluate import run

    split = write_rows(tmp_path / name / "data" / "test.jsonl", rows)
    file = write_rows(tmp_path / name / "scores.jsonl", scores)
    out = tmp_path / name / "eval"
    run(
        [f"data={split}", f"scores={file}", f"output_dir={out}", "baselines=none"]
        + ["bootstrap.n_resamples=20", "progress=false", "plots=false", *extra]
    )
    return out


def _as_codescore(folder: Path, names: dict[str, str]) -> None:
    """Relabel external columns as CodeScore columns (what a checkpoint would have written)."""
    path = folder / "report.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    for metric in report["metrics"]:
        if metric["name"] in names:
            metric["name"], metric["kind"] = names[metric["name"]], "codescore"
    system = (report.get("system_level") or {}).get("metrics", {})
    for old, new in names.items():
        if old in system:
            system[new] = dict(system.pop(old), kind="codescore")
    path.write_text(json.dumps(report), encoding="utf-8")


def _he_multi(tmp_path: Path) -> Path:
    lines, rows = [], []
    for t in range(3):
        for g, n_pass in enumerate((0, 1, 2, 3)):
            k = sum(1 for line in lines if line["task_id"] == f"T/{t}")
            lines.append({"task_id": f"T/{t}", "completion": "x", "generator": f"g{g}"})
            ok = t < n_pass
            rows.append(
                {
                    "id": f"T/{t}::samples::{k}",
                    "task_id": f"T/{t}",
                    "generated": f"return {k}",
                    "nl": "Do it.",
                    "reference": "return 0",
                    "pass_ratio": float(ok),
                    "executable": True,
                    "passed": ok,
                    "source": "samples:multi.jsonl",
                }
            )
    samples = tmp_path / "multi.jsonl"
    samples.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    scores = [{"id": r["id"], "Good": float(r["passed"]), "Bleu": 0.5} for r in rows]
    folder = _evaluate(tmp_path, "multi", rows, scores, f"generators={samples}", "label=passed")
    _as_codescore(folder, {"Good": PRIMARY})
    return folder


def _main(quality: ModuleType, monkeypatch: pytest.MonkeyPatch, *argv: str) -> None:
    monkeypatch.setattr("sys.argv", ["quality_report.py", *argv])
    assert quality.main() == 0


@pytest.fixture(scope="module")
def he_eval(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """HE-Eval-like evaluations with and without an NL-only column, and a judge's scores."""
    from .conftest import fixture_rows

    tmp_path = tmp_path_factory.mktemp("quality")
    rows = fixture_rows()
    scores = [
        {"id": r["id"], "Nl": r["pass_ratio"] * 0.9, "RefNl": r["pass_ratio"], "BLEU": 0.5}
        for r in rows
    ]
    with_nl = _evaluate(tmp_path, "with-nl", rows, scores)
    _as_codescore(with_nl, {"Nl": NL, "RefNl": PRIMARY})
    without_nl = _evaluate(tmp_path, "without-nl", rows, scores)
    _as_codescore(without_nl, {"RefNl": PRIMARY})
    judge = tmp_path / "judge.jsonl"
    judge.write_text(
        "".join(json.dumps({"id": r["id"], "Judge (no ref)": r["pass_ratio"]}) + "\n" for r in rows)
    )
    return with_nl, without_nl, judge


def test_report_has_reference_free_best_of_n_and_system_tables(
    quality: ModuleType, he_eval, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_nl, _, judge = he_eval
    multi = _he_multi(tmp_path)
    out = tmp_path / "out"
    _main(
        quality, monkeypatch, "--out", str(out), "--checkpoint", str(tmp_path / "ckpt" / "best"),
        "--he", str(with_nl), "--he-multi", str(multi),
        "--reference-free-scores", str(judge), "--seed", "7",
    )  # fmt: skip
    text = (out / "report.md").read_text(encoding="utf-8")
    result = json.loads((out / "report.json").read_text(encoding="utf-8"))
    he = result["sets"][quality.HE_EVAL]
    free = {r["name"]: r for r in he["reference_free"]["rows"]}
    assert list(free) == [NL, "Random score", "Judge (no ref)"]
    assert free["Random score"]["expected_example_kendall"] == 0.0
    assert free[NL]["example_kendall"] == pytest.approx(1.0)
    assert "### Reference-free" in text and "| Random score | 18 |" in text
    best = he["best_of_n"]
    picks = {r["name"]: r["pass_at_1"] for r in best["rows"]}
    assert picks[PRIMARY] == pytest.approx(best["oracle"])  # scores = PassRatio: always a pass
    assert picks["BLEU"] == pytest.approx(best["random"])  # constant: a random pick
    assert "Random score" in picks and "Judge (no ref)" in picks
    assert (
        "### Best-of-n: pass@1 of the top-scored candidate (5 problems, 3.6 candidates each)"
        in text
    )
    assert "| (random choice, expected) |" in text and "| (oracle: any passing candidate) |" in text
    system = result["sets"]["HumanEval, 39 other generators"]["system_level"]
    rows = {r["name"]: r for r in system["rows"]}
    assert rows[PRIMARY]["kendall"] == pytest.approx(1.0) and system["n_systems"] == 4
    assert "### System level (4 generators)" in text
    assert f"| **{PRIMARY}** | 4 | 1.000 [1.00, 1.00] |" in text


def test_report_without_nl_column_says_so(
    quality: ModuleType, he_eval, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, without_nl, _ = he_eval
    out = tmp_path / "out"
    _main(
        quality, monkeypatch, "--out", str(out), "--checkpoint", str(tmp_path / "best"),
        "--he", str(without_nl), "--reference-free-columns", "BLEU", "Nope",
    )  # fmt: skip
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "has no CodeScore (NL-only) column" in text
    assert "Not in the report (no column of that name): Nope." in text
    free = json.loads((out / "report.json").read_text())["sets"][quality.HE_EVAL]["reference_free"]
    assert [r["name"] for r in free["rows"]] == ["BLEU", "Random score"]
    assert "System level" not in text  # no generators: no system-level table


def test_changed_dataset_skips_the_random_score(
    quality: ModuleType, he_eval, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_nl, _, _ = he_eval
    report = json.loads((with_nl / "report.json").read_text(encoding="utf-8"))
    report["data"]["sha256"] = "0" * 64
    folder = tmp_path / "stale"
    folder.mkdir()
    (folder / "report.json").write_text(json.dumps(report), encoding="utf-8")
    out = tmp_path / "out"
    _main(quality, monkeypatch, "--out", str(out), "--checkpoint", "x/best", "--he", str(folder))
    text = (out / "report.md").read_text(encoding="utf-8")
    assert "Random score not computed" in text and "changed since the evaluation" in text
    with pytest.raises(SystemExit, match="--reference-free-scores: .*changed since"):
        _main(
            quality, monkeypatch, "--out", str(out), "--checkpoint", "x/best", "--he", str(folder),
            "--reference-free-scores", str(he_eval[2]),
        )  # fmt: skip


def test_random_score_has_tau_zero_in_expectation() -> None:
    from unice.evaluation.reference_free import random_column
    from unice.metrics import example_level_correlations

    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(2000), 5)
    labels = rng.random(groups.size)
    column = random_column(groups.size, seed=0)
    tau = example_level_correlations(column.scores, labels, list(groups)).skipped["kendall"]
    assert abs(tau) < 0.03
    assert np.array_equal(column.scores, random_column(groups.size, seed=0).scores)


# --- the fine-tuned setting: problems 82-163, the zero-shot model beside it (issue 43) ------------

ZERO_SHOT = "zero-shot " + PRIMARY


def _paired_as_evaluate(folder: Path, rows: list[dict], scores: list[dict], names: dict) -> None:
    """The ``paired`` section evaluate.py writes when a checkpoint's columns are CodeScore (the
    fixture's columns came from a scores file, so evaluate.py wrote none): the real bootstrap."""
    from unice.evaluation.paired import paired_kendall, paired_report

    columns = {
        names.get(name, name): np.array([line[name] for line in scores])
        for name in scores[0]
        if name != "id"
    }
    draws = paired_kendall(
        columns, [r["pass_ratio"] for r in rows], [r["task_id"] for r in rows], n_resamples=50
    )
    ours = [n for n in columns if n in names.values()]
    path = folder / "report.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    report["paired"] = paired_report(draws, ours, [n for n in columns if n not in ours])
    path.write_text(json.dumps(report), encoding="utf-8")


def test_finetuned_section_compares_with_baselines_and_the_zero_shot_model(
    quality: ModuleType, he_eval, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The zero-shot column is set beside the fine-tuned one (paired), never as a baseline."""
    from .conftest import fixture_rows

    rows = fixture_rows()
    scores = [  # fine-tuned = PassRatio; zero-shot a worse copy; a constant-ish string baseline
        {"id": r["id"], "Ft": r["pass_ratio"], ZERO_SHOT: 0.5 * r["pass_ratio"] + 0.3 * (k % 3),
         "BLEU": 0.1 * (k % 2)}
        for k, r in enumerate(rows)
    ]  # fmt: skip
    ft_he = _evaluate(tmp_path, "ft-he", rows, scores)
    _as_codescore(ft_he, {"Ft": PRIMARY})
    _paired_as_evaluate(ft_he, rows, scores, {"Ft": PRIMARY})
    (tmp_path / "ft").mkdir()
    ft_multi = _he_multi(tmp_path / "ft")
    out = tmp_path / "out"
    _main(
        quality, monkeypatch, "--out", str(out), "--checkpoint", str(tmp_path / "zs" / "best"),
        "--he", str(he_eval[0]), "--finetuned-he", str(ft_he), "--finetuned-he-multi",
        str(ft_multi), "--finetuned-checkpoint", str(tmp_path / "ft" / "best"),
    )  # fmt: skip
    text = (out / "report.md").read_text(encoding="utf-8")
    result = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert "# `make quality`: CodeScore zero-shot and fine-tuned on HumanEval" in text
    assert "## Fine-tuned setting (problems 82-163)" in text
    assert f"## Fine-tuned: {quality.HE_EVAL}, problems 82-163" in text
    assert quality.HE_EVAL in result["sets"]  # the zero-shot sets are still there
    he = result["finetuned"]["sets"][quality.HE_EVAL]
    kinds = {r["name"]: r["kind"] for r in he["metrics"]}
    assert kinds[ZERO_SHOT] == tables.ZERO_SHOT_KIND and kinds["BLEU"] == "external"  # a baseline
    for level in tables.LEVELS:
        check = he["verdict"][level]
        assert [c["baseline"] for c in check["comparisons"]] == ["BLEU"]  # not the zero-shot one
        delta = he["against_zero_shot"][level]
        assert delta["zero_shot_column"] == ZERO_SHOT
        assert delta["difference"] == pytest.approx(delta["finetuned"] - delta["zero_shot"])
        assert delta["low"] <= delta["difference"] <= delta["high"]
    example = he["against_zero_shot"]["example_kendall"]
    assert example["finetuned"] == pytest.approx(1.0) and example["difference"] > 0
    assert f"Fine-tuned {PRIMARY} minus the zero-shot model's, same rows" in text
    # the 39-generator set has no zero-shot column here: tables, no zero-shot comparison
    multi = result["finetuned"]["sets"][quality.HE_MULTI]
    assert multi["against_zero_shot"] == {} and multi["system_level"]["n_systems"] == 4


def test_finetuned_setting_needs_its_he_eval_folder(
    quality: ModuleType, he_eval, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "sys.argv",
        ["quality_report.py", "--out", str(tmp_path), "--checkpoint", "x/best",
         "--he", str(he_eval[0]), "--finetuned-checkpoint", "ft/best"],
    )  # fmt: skip
    with pytest.raises(SystemExit, match="needs --finetuned-he"):
        quality.main()
