"""evaluate.py end to end on a tiny checkpoint and a hand-made split, and its input errors."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from rich.console import Console
from scipy import stats

from unice.evaluation import EvaluationError, evaluate
from unice.evaluation.cli import normalize_overrides

from .conftest import fixture_rows, write_rows

REPO = Path(__file__).resolve().parents[2]
FAST = ["bootstrap.n_resamples=50", "progress=false", "plots=true"]


def compose_cfg(overrides: list[str]):
    with initialize_config_dir(config_dir=str(REPO / "configs"), version_base="1.3"):
        return compose("evaluate", overrides=normalize_overrides(overrides))


def run(overrides: list[str]) -> tuple[dict, str]:
    buffer = io.StringIO()
    report = evaluate(compose_cfg(overrides), console=Console(file=buffer, width=250))
    return report, buffer.getvalue()


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory, tiny_checkpoint: Path):
    folder = tmp_path_factory.mktemp("data")
    write_rows(folder / "test.jsonl", fixture_rows())
    (folder / "stats.json").write_text(
        json.dumps({"execution_seconds": 12.5, "input_convention": 2})
    )
    scores = folder / "other.jsonl"
    write_rows(
        scores, [{"id": r["id"], "Oracle": r["pass_ratio"], "Judge": None} for r in fixture_rows()]
    )
    out = tmp_path_factory.mktemp("out")
    report, printed = run(
        [f"ckpt_path={tiny_checkpoint}", f"data={folder}", f"scores={scores}", f"output_dir={out}"]
        + ["baselines=fast", "baselines.meteor.enabled=false", "baselines.crystalbleu.k=5"]
        + FAST
    )
    return report, printed, out


def test_reports_every_format_baseline_and_external_metric(full_run) -> None:
    report, _, _ = full_run
    names = [m["name"] for m in report["metrics"]]
    for expected in (
        "CodeScore (Ref-only)",
        "CodeScore (NL-only)",
        "CodeScore (Ref&NL)",
        "CodeScore (avg)",
    ):
        assert expected in names
    assert {"ExactMatch", "BLEU", "chrF", "ROUGE-L", "CodeBLEU", "CrystalBLEU", "Oracle"} <= set(
        names
    )
    assert "METEOR" not in names and "CodeBERTScore-F1" not in names  # disabled in this run
    by_name = {m["name"]: m for m in report["metrics"]}
    assert by_name["Oracle"]["corpus"]["pearson"] == pytest.approx(1.0)
    assert by_name["Oracle"]["mae"] is None  # an external score is calibrated to nothing known
    assert by_name["BLEU"]["mae"] is None and by_name["CodeScore (Ref&NL)"]["mae"] >= 0
    paired = report["paired"]["differences"]["CodeScore (Ref&NL)"]
    assert set(paired) >= {"BLEU", "Oracle"} and "ExactMatch" not in paired
    assert paired["Oracle"]["corpus_kendall"]["difference"] < 0  # nothing beats the labels
    assert by_name["Oracle"]["best_of_n"]["passed"]["selected"] == pytest.approx(
        by_name["Oracle"]["best_of_n"]["passed"]["oracle"]
    )
    # a column of nulls is reported as unscored, never as a metric of zeros
    assert "Judge" not in names or by_name["Judge"]["n_scored"] == 0
    assert (
        by_name["CodeScore (Ref&NL)"]["n_scored"] == len(fixture_rows()) - 1
    )  # one row has no reference
    assert by_name["CodeScore (avg)"]["exec"]["n"] == len(fixture_rows())
    assert by_name["BLEU"]["exec"] is None
    assert report["execution_cost"]["seconds"] == pytest.approx(12.5)
    assert report["provenance"]["checkpoint"]["weights_sha256"]
    assert report["provenance"]["packages"]["sacrebleu"] != "not installed"


def test_report_numbers_recomputed_from_scores_file(full_run) -> None:
    report, _, out = full_run
    rows = [json.loads(line) for line in (out / "scores.jsonl").read_text().splitlines()]
    gold = {r["id"]: r["pass_ratio"] for r in fixture_rows()}
    for metric in report["metrics"]:
        pairs = [(r[metric["name"]], gold[r["id"]]) for r in rows if r[metric["name"]] is not None]
        if len(pairs) < 2 or np.ptp([p for p, _ in pairs]) == 0:
            continue
        pred, true = np.array(pairs).T
        assert metric["corpus"]["kendall"] == pytest.approx(stats.kendalltau(pred, true).statistic)
        assert metric["corpus"]["spearman"] == pytest.approx(stats.spearmanr(pred, true).statistic)


def _table_row(markdown: str, section: str, name: str) -> list[str]:
    """The cells of metric ``name``'s row in the first table after the heading ``section``."""
    text = markdown[markdown.index(section) :]
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == name:
            return cells
    raise AssertionError(f"no row {name!r} under {section!r}")


def test_files_hold_the_numbers_printed(full_run) -> None:
    report, printed, out = full_run
    on_disk = json.loads((out / "report.json").read_text())
    markdown = (out / "report.md").read_text()
    assert [m["name"] for m in on_disk["metrics"]] == [m["name"] for m in report["metrics"]]
    for metric in on_disk["metrics"]:
        value = metric["corpus"]["spearman"]
        corpus_cells = _table_row(markdown, "## Corpus-level", metric["name"])
        assert corpus_cells[3].split(" [")[0] == ("n/a" if value is None else f"{value:.3f}")
        skipped_mean = metric["example"]["skipped"]["kendall"]
        example_cells = _table_row(markdown, "## Example-level", metric["name"])
        expected = "n/a" if skipped_mean is None else f"{skipped_mean:.3f}"
        assert example_cells[1].split(" [")[0] == expected  # a CI may follow the value
        if value is not None:
            assert f"{value:.3f}" in printed
    assert "Example-level" in markdown and "Best-of-n" in markdown and "12.50" in markdown
    for name in ("pred_vs_true.png", "exec_reliability.png", "correlations.png"):
        assert (out / name).stat().st_size > 5000
    assert sorted(Path(p).name for p in on_disk["plots"]) == sorted(
        ["pred_vs_true.png", "exec_reliability.png", "correlations.png"]
    )


def test_baselines_only_without_checkpoint_and_binary_label(
    dataset_dir: Path, tmp_path: Path
) -> None:
    report, printed = run(
        [f"data={dataset_dir}", "baselines=none", "+baselines.exact_match={}", "label=passed"]
        + [f"output_dir={tmp_path}"]
        + FAST
    )
    assert [m["name"] for m in report["metrics"]] == ["ExactMatch"]
    assert report["settings"]["label"] == "passed"
    assert "Correlation with passed" not in printed and "correlation with passed" in printed


def test_skipped_baseline_is_listed_with_reason(dataset_dir: Path, tmp_path: Path) -> None:
    missing = tmp_path / "no-encoder"
    report, printed = run(
        [f"data={dataset_dir}", "baselines=none", "+baselines.exact_match={}"]
        + [f"+baselines.codebertscore.model={missing}", f"output_dir={tmp_path}"]
        + FAST
    )
    assert [m["name"] for m in report["metrics"]] == ["ExactMatch"]
    (skip,) = report["skipped"]
    assert skip["name"] == "codebertscore" and str(missing) in skip["reason"]
    markdown = (tmp_path / "report.md").read_text()
    assert "## Skipped metrics" in markdown and str(missing) in markdown
    assert "skipped codebertscore" in " ".join(printed.split())


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["data=MISSING_DIR"], "does not exist"),
        (["data=DATA", "split=dev"], "split 'dev' not found"),
        (["data=UNLABELLED"], "no execution labels"),
        (["data=BAD_LABEL"], "pass_ratio 1.5 is not a number in"),
        (["data=DATA", "ckpt_path=MISSING_DIR"], "no such checkpoint folder"),
        (["data=DATA", "scores=EXTRA_IDS"], "not in the evaluated split"),
        (["data=DATA", "scores=MISSING_IDS"], "have no line"),
        (["data=DATA", "baselines=none"], "nothing to evaluate"),
        (["baselines=none"], "no data given"),
        (["data=DATA", "label=bleu"], "label='bleu' is unknown"),
        (
            ["data=DATA", "baselines=none", "ice_score=default"],
            "bad ice_score option: no judge model.*ice_score.<field>",
        ),
    ],
)
def test_bad_input_gives_one_line_error(
    dataset_dir: Path, tmp_path: Path, overrides, message
) -> None:
    rows = fixture_rows()
    for row in rows:
        row.pop("pass_ratio")
    paths = {
        "MISSING_DIR": str(tmp_path / "missing"),
        "DATA": str(dataset_dir),
        "UNLABELLED": str(write_rows(tmp_path / "unlabelled.jsonl", rows)),
        "BAD_LABEL": str(
            write_rows(tmp_path / "bad.jsonl", [{**fixture_rows()[0], "pass_ratio": 1.5}])
        ),
        "EXTRA_IDS": str(write_rows(tmp_path / "extra.jsonl", [{"id": "nope", "M": 0.1}])),
        "MISSING_IDS": str(write_rows(tmp_path / "part.jsonl", [{"id": rows[0]["id"], "M": 0.1}])),
    }
    resolved = []
    for item in overrides:
        key, value = item.split("=", 1)
        resolved.append(f"{key}={paths.get(value, value)}")
    with pytest.raises(EvaluationError, match=message) as info:
        run(resolved + [f"output_dir={tmp_path / 'out'}"] + FAST)
    assert "\n" not in str(info.value)


def test_cli_prints_error_line_and_exits_2(tmp_path: Path) -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HYDRA_FULL_ERROR": "0"}
    result = subprocess.run(
        [
            sys.executable,
            str(REPO / "evaluate.py"),
            f"data={tmp_path / 'nowhere'}",
            f"output_dir={tmp_path}",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error: data ")
    assert "Traceback" not in result.stderr


def test_cli_end_to_end_with_data_path_argument(dataset_dir: Path, tmp_path: Path) -> None:
    scores = write_rows(
        tmp_path / "s.jsonl", [{"id": r["id"], "M": r["pass_ratio"] / 2} for r in fixture_rows()]
    )
    out = tmp_path / "out"
    result = subprocess.run(
        [sys.executable, str(REPO / "evaluate.py"), f"data={dataset_dir}", "baselines=none"]
        + [f"scores=[{scores}]", f"output_dir={out}", "bootstrap.n_resamples=20", "progress=false"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "HF_HUB_OFFLINE": "1"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads((out / "report.json").read_text())
    assert report["metrics"][0]["name"] == "M"
    assert report["metrics"][0]["corpus"]["pearson"] == pytest.approx(1.0)
    assert (out / ".hydra" / "config.yaml").is_file()


def test_ice_score_column_via_score_records(dataset_dir: Path, tmp_path: Path, monkeypatch) -> None:
    ice_score = pytest.importorskip("unice.ice_score")
    seen = {}

    class FakeStats:
        def to_dict(self) -> dict:
            return {"seconds": 3.0, "requests": 7, "cache_hits": 2}

    class FakeRun:
        def __init__(self, records) -> None:
            # a judge on the paper's 0-4 scale; the first sample is unparsed (None)
            self.scores = [None] + [4.0 * r["pass_ratio"] for r in records[1:]]
            self.stats = FakeStats()

    def fake_score_records(records, config):
        seen["records"], seen["config"] = records, config
        return FakeRun(records)

    monkeypatch.setattr(ice_score, "score_records", fake_score_records)
    cfg = compose_cfg([f"data={dataset_dir}", "baselines=none", f"output_dir={tmp_path}"] + FAST)
    cfg = {
        **evaluate_dict(cfg),
        "ice_score": {
            "base_url": "http://127.0.0.1:9/v1",
            "model": "judge",
            "with_reference": True,
        },
    }
    report = evaluate(cfg, console=Console(file=io.StringIO()))
    (metric,) = report["metrics"]
    assert metric["name"] == "Ref-ICE-Score" and metric["kind"] == "ice_score"
    assert metric["n_scored"] == len(fixture_rows()) - 1  # unparsed stays unscored, not 0
    assert metric["corpus"]["pearson"] == pytest.approx(1.0)
    assert metric["mae"] is None  # a 0-4 scale is not a PassRatio estimate
    assert metric["seconds"] == pytest.approx(3.0)
    assert seen["config"].model == "judge" and {"nl", "generated", "reference", "id"} <= set(
        seen["records"][0]
    )


def evaluate_dict(cfg) -> dict:
    from omegaconf import OmegaConf

    return OmegaConf.to_container(cfg, resolve=True)


def test_fed_back_scores_file_never_replaces_a_column(dataset_dir: Path, tmp_path: Path) -> None:
    """docs/evaluation.md suggests ``scores=<old scores.jsonl>``: its names repeat this run's."""
    first, _ = run(
        [f"data={dataset_dir}", "baselines=none", "+baselines.exact_match={}"]
        + [f"output_dir={tmp_path / 'first'}"]
        + FAST
    )
    old = tmp_path / "first" / "scores.jsonl"
    rows = [json.loads(line) for line in old.read_text().splitlines()]
    # the earlier run's ExactMatch, inverted, so a column swap would show in the numbers
    flipped = [None if r["ExactMatch"] is None else 1.0 - r["ExactMatch"] for r in rows]
    write_rows(old, [{"id": r["id"], "ExactMatch": v} for r, v in zip(rows, flipped, strict=True)])
    report, _ = run(
        [f"data={dataset_dir}", "baselines=none", "+baselines.exact_match={}"]
        + [f"scores=[{old}]", f"output_dir={tmp_path / 'second'}"]
        + FAST
    )
    by_name = {m["name"]: m for m in report["metrics"]}
    assert list(by_name) == ["ExactMatch", "scores:ExactMatch"]
    assert by_name["ExactMatch"]["corpus"] == first["metrics"][0]["corpus"]
    fed = by_name["scores:ExactMatch"]
    assert fed["kind"] == "external" and fed["corpus"] != by_name["ExactMatch"]["corpus"]
    written = json.loads((tmp_path / "second" / "scores.jsonl").read_text().splitlines()[0])
    assert set(written) == {"id", "ExactMatch", "scores:ExactMatch"}


def test_external_names_prefixed_on_any_collision(tmp_path: Path) -> None:
    from unice.evaluation.external import load_external_scores

    ids = ["a", "b"]
    for name, value in (("one", 0.1), ("two", 0.2), ("one:X", 0.9)):
        write_rows(tmp_path / f"{name}.jsonl", [{"id": i, "X": value} for i in ids])
    paths = [str(tmp_path / f"{n}.jsonl") for n in ("one", "two", "one")]
    columns = load_external_scores(paths, ids, taken=["X", "one:X"])
    assert [c.name for c in columns] == ["one:X#2", "two:X", "one:X#3"]


def test_internal_type_error_of_ice_score_is_not_reported_as_an_option(
    dataset_dir: Path, tmp_path: Path, monkeypatch
) -> None:
    ice_score = pytest.importorskip("unice.ice_score")

    def broken(records, config):
        raise TypeError("unsupported operand type(s)")  # a bug inside the judge code

    monkeypatch.setattr(ice_score, "score_records", broken)
    cfg = evaluate_dict(compose_cfg([f"data={dataset_dir}", "baselines=none"] + FAST))
    cfg["ice_score"] = {"model": "judge", "base_url": "http://127.0.0.1:9/v1"}
    with pytest.raises(TypeError, match="unsupported operand"):
        evaluate({**cfg, "output_dir": str(tmp_path)}, console=Console(file=io.StringIO()))
    cfg["ice_score"] = {"modle": "judge", "base_url": "http://127.0.0.1:9/v1"}
    with pytest.raises(EvaluationError, match="bad ice_score option.*modle"):
        evaluate({**cfg, "output_dir": str(tmp_path)}, console=Console(file=io.StringIO()))
