"""scripts/quality_report.py: the verdict reads the primary CodeScore column only."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "quality_report.py"


@pytest.fixture(scope="module")
def quality() -> ModuleType:
    spec = importlib.util.spec_from_file_location("quality_report", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PRIMARY = "CodeScore (Ref&NL)"


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
    check = quality.verdict(_rows(0.5, 0.1, {"BLEU": 0.3, "chrF": 0.4}), PRIMARY)
    for level in quality.LEVELS:
        assert check[level]["above_every_baseline"] is True
        assert check[level]["codescore"] == PRIMARY and check[level]["best_baseline"] == "chrF"


def test_tied_with_or_below_one_baseline_fails(quality: ModuleType) -> None:
    tied = quality.verdict(_rows(0.4, 0.1, {"BLEU": 0.3, "chrF": 0.4}), PRIMARY)
    below = quality.verdict(_rows(0.39, 0.1, {"BLEU": 0.3, "chrF": 0.4}), PRIMARY)
    for check in (tied, below):
        assert not any(check[level]["above_every_baseline"] for level in quality.LEVELS)


def test_never_the_better_of_two_columns(quality: ModuleType) -> None:
    check = quality.verdict(_rows(0.2, 0.9, {"BLEU": 0.3}), PRIMARY)
    assert check["example_kendall"]["above_every_baseline"] is False
    assert check["example_kendall"]["codescore_value"] == 0.2


def test_interval_crossing_zero_is_reported(quality: ModuleType) -> None:
    rows = _rows(0.5, 0.1, {"BLEU": 0.3, "chrF": 0.45})
    check = quality.verdict(rows, PRIMARY, _paired(-0.02, 0.12, ["BLEU", "chrF"]))
    level = check["corpus_kendall"]
    assert level["above_every_baseline"] is True  # the point estimates are above ...
    assert level["undecided"] == ["BLEU", "chrF"]  # ... but the data cannot tell them apart
    assert {c["interval"] for c in level["comparisons"]} == {"undecided"}
    text = "\n".join(quality.verdict_lines(check))
    assert "2 interval(s) cross 0" in text and "| chrF | 0.450 | 0.050 | [-0.020, 0.120] |" in text


def test_missing_primary_column_gives_no_verdict(quality: ModuleType) -> None:
    rows = [r for r in _rows(0.5, 0.1, {"BLEU": 0.3}) if r["name"] != PRIMARY]
    assert quality.verdict(rows, PRIMARY) == {}


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
    rows = {r["name"]: r for r in quality.summarise(report)}
    assert rows[PRIMARY]["example_kendall"] == 0.35 and rows["BLEU"]["example_kendall"] == 0.25
    assert rows[PRIMARY]["mae"] == 0.2 and rows["BLEU"]["mae"] != rows["BLEU"]["mae"]  # nan
