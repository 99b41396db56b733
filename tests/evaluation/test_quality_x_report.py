"""scripts/quality_x_report.py: per-language verdicts against the string baselines only."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
PRIMARY = "CodeScore (Ref&NL)"


@pytest.fixture(scope="module")
def report_x() -> ModuleType:
    sys.path.insert(0, str(SCRIPTS))
    try:
        return importlib.import_module("quality_x_report")
    finally:
        sys.path.remove(str(SCRIPTS))


def _metric(name: str, kind: str, value: float) -> dict:
    return {
        "name": name,
        "kind": kind,
        "corpus": {"kendall": value, "spearman": value, "pearson": value},
        "example": {"skipped": {"kendall": value, "spearman": value}},
        "mae": 0.2,
        "exec": None,
        "seconds": 1.0,
    }


def _evaluation(folder: Path, codescore: float, bleu: float, codebert: float) -> Path:
    test = folder / "test.jsonl"
    folder.mkdir(parents=True)
    rows = [{"id": "CPP/90::samples::0"}, {"id": "CPP/90::mutant::0"}, {"id": "CPP/90::mutant::1"}]
    test.write_text("".join(json.dumps(r) + "\n" for r in rows))
    report = {
        "metrics": [
            _metric(PRIMARY, "codescore", codescore),
            _metric("BLEU", "baseline", bleu),
            _metric("CodeBERTScore-F1", "baseline", codebert),
        ],
        "data": {"path": str(test)},
    }
    (folder / "report.json").write_text(json.dumps(report))
    return folder


def test_codebertscore_is_shown_but_never_in_the_string_verdict(report_x, tmp_path: Path):
    folder = _evaluation(tmp_path / "cpp", codescore=0.3, bleu=0.2, codebert=0.4)
    section, lines = report_x.language_section("cpp", folder, PRIMARY)
    for level in ("example_kendall", "corpus_kendall"):
        assert section["verdict"][level]["above_every_baseline"] is True
        assert section["verdict"][level]["best_baseline"] == "BLEU"
    assert {r["name"] for r in section["metrics"]} >= {"CodeBERTScore-F1", "BLEU"}
    assert section["rows_by_kind"] == {"samples": 1, "mutant": 2}
    assert any("CodeBERTScore-F1" in line for line in lines)


def test_the_done_when_needs_cpp_java_and_js_above_at_both_levels(report_x, tmp_path: Path):
    args = ["--out", str(tmp_path / "out"), "--checkpoint", "ckpt", "--evaluations"]
    good = [f"{lang}={_evaluation(tmp_path / lang, 0.3, 0.2, 0.1)}" for lang in ("cpp", "java")]
    js_below = f"js={_evaluation(tmp_path / 'js', 0.1, 0.2, 0.1)}"
    assert report_x.main([*args, *good, js_below]) == 0
    text = (tmp_path / "out" / "report.md").read_text()
    assert "**not met**" in text and "| JavaScript |" in text
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert set(data["languages"]) == {"cpp", "java", "js"}
    js_fixed = f"js={_evaluation(tmp_path / 'js2', 0.3, 0.2, 0.1)}"
    assert report_x.main([*args, *good, js_fixed]) == 0
    assert ": met." in (tmp_path / "out" / "report.md").read_text()


def test_a_bad_evaluation_argument_names_the_fix(report_x, tmp_path: Path):
    with pytest.raises(SystemExit, match="language=FOLDER"):
        report_x.main(["--out", str(tmp_path), "--checkpoint", "c", "--evaluations", "kotlin=x"])
    with pytest.raises(SystemExit, match="run evaluate.py first"):
        report_x.main(["--out", str(tmp_path), "--checkpoint", "c", "--evaluations", "cpp=nope"])


def test_mutant_rows_get_the_two_part_breakdown(report_x, tmp_path: Path):
    folder = _evaluation(tmp_path / "cpp", codescore=0.3, bleu=0.2, codebert=0.4)
    test = folder / "test.jsonl"
    ratios = {"CPP/90::samples::0": 1.0, "CPP/90::mutant::0": 0.0, "CPP/90::mutant::1": 0.5}
    test.write_text("".join(json.dumps({"id": i, "task_id": "CPP/90", "pass_ratio": r}) + "\n"
                            for i, r in ratios.items()))  # fmt: skip
    scores = {  # BLEU ties the two mutants; CodeScore orders them wrongly
        "CPP/90::samples::0": (0.9, 1.0),
        "CPP/90::mutant::0": (0.8, 0.7),
        "CPP/90::mutant::1": (0.6, 0.7),
    }
    (folder / "scores.jsonl").write_text("".join(
        json.dumps({"id": i, PRIMARY: c, "BLEU": b, "CodeBERTScore-F1": 0.5}) + "\n"
        for i, (c, b) in scores.items()))  # fmt: skip
    section, lines = report_x.language_section("cpp", folder, PRIMARY)
    pairs = section["mutant_pairs"]
    assert set(pairs) == {PRIMARY, "BLEU"}  # the primary column and the best string baseline
    assert (pairs[PRIMARY]["canonical_right"], pairs[PRIMARY]["canonical_pairs"]) == (2, 2)
    assert (pairs[PRIMARY]["right"], pairs[PRIMARY]["wrong"], pairs[PRIMARY]["tied"]) == (0, 1, 0)
    assert (pairs["BLEU"]["right"], pairs["BLEU"]["wrong"], pairs["BLEU"]["tied"]) == (0, 0, 1)
    assert "| BLEU | 2/2 | 0 / 0 / 1 |" in lines


def test_rows_without_mutants_get_no_breakdown(report_x, tmp_path: Path):
    folder = _evaluation(tmp_path / "python", codescore=0.3, bleu=0.2, codebert=0.4)
    (folder / "test.jsonl").write_text(json.dumps({"id": "HumanEval/90::samples::0"}) + "\n")
    (folder / "scores.jsonl").write_text(json.dumps({"id": "HumanEval/90::samples::0"}) + "\n")
    section, _ = report_x.language_section("python", folder, PRIMARY)
    assert section["mutant_pairs"] == {}
