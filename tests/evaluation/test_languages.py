"""evaluate.py on HE-Eval-X rows (``language`` field): baselines switch their Python-only
settings to the rows' language, and ICE-Score's prompt names it."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from unice.evaluation import EvaluationError, evaluate
from unice.evaluation.languages import baseline_settings, split_language
from unice.ice_score import IceScoreConfig
from unice.ice_score.runner import build_messages
from unice.ice_score.templates import ICE_SCORE_TEMPLATE, PromptInput, build_prompt

from .conftest import write_rows
from .test_evaluate import FAST, compose_cfg

CPP = [
    ("return a + b;\n}\n", 1.0),
    ("return b + a;\n}\n", 1.0),
    ("return a - b;\n}\n", 0.25),
    ("return a;\n}\n", 0.0),
]


def _rows(language: str | None) -> list[dict]:
    rows = []
    for k, (code, ratio) in enumerate(CPP):
        row = {
            "id": f"CPP/0::samples::{k}",
            "task_id": f"CPP/{k % 2}",
            "nl": "/* Add a and b. */\nint add(int a, int b){\n",
            "reference": "return a + b;\n}\n",
            "generated": code,
            "pass_ratio": ratio,
            "executable": True,
            "passed": ratio == 1.0,
        }
        if language:
            row["language"] = language
        rows.append(row)
    return rows


def test_split_language_and_baseline_settings() -> None:
    # a row without the field is read as the scorer reads it: its HumanEval-X task id says C++
    assert split_language(_rows(None)) == "cpp"
    plain = [{**row, "task_id": "HumanEval/0"} for row in _rows(None)]
    assert split_language(plain) == "python"
    assert split_language(_rows("cpp")) == "cpp"
    with pytest.raises(EvaluationError, match="mixes languages"):
        split_language(_rows("cpp") + _rows("java"))
    specs = {"codebleu": {"lang": "python"}, "crystalbleu": {"corpus": "stdlib"}, "rouge_l": None}
    assert baseline_settings(specs, "python") == specs
    assert baseline_settings(specs, "js") == {
        "codebleu": {"lang": "javascript"},
        "crystalbleu": {"corpus": "references"},
        "rouge_l": None,
    }


def test_evaluate_scores_cpp_rows_with_the_cpp_grammar(tmp_path: Path) -> None:
    folder = write_rows(tmp_path / "data" / "test.jsonl", _rows("cpp")).parent
    overrides = [f"data={folder}", f"output_dir={tmp_path / 'out'}", "baselines=none"]
    overrides += ["+baselines.codebleu={}", "+baselines.crystalbleu={k:5}"]
    report = evaluate(compose_cfg(overrides + FAST), console=Console(file=io.StringIO()))
    if any(s["name"] == "codebleu" for s in report.get("skipped", [])):
        pytest.skip(f"codebleu unavailable: {report['skipped']}")
    by_name = {m["name"]: m for m in report["metrics"]}
    assert by_name["CodeBLEU"]["settings"]["lang"] == "cpp"
    assert by_name["CrystalBLEU"]["settings"]["corpus"] == "references"


def test_ice_score_prompt_names_the_language() -> None:
    item = PromptInput("Add a and b.", "return a + b;", "return a + b;", language="cpp")
    prompt = build_prompt(ICE_SCORE_TEMPLATE, item, "usefulness", with_reference=True)
    assert "Code Snippet (C++):\n\nreturn a + b;" in prompt
    assert "Reference Code (C++):" in prompt
    plain = build_prompt(ICE_SCORE_TEMPLATE, PromptInput("Add.", "x"), "usefulness")
    assert "Code Snippet:\n\nx" in plain and "(Python)" not in plain  # Python rows: unchanged
    config = IceScoreConfig.from_dict(
        {"backend": "openai", "model": "m", "base_url": "http://localhost:1/v1"}
    )
    (chat,) = build_messages(_rows("java")[:1], config)
    assert "Code Snippet (Java):" in chat[0]["content"]


def test_an_unknown_language_is_one_evaluation_error_naming_the_row(tmp_path) -> None:
    from unice.evaluation.data import load_split

    rows = _rows("cpp")
    rows[1]["language"] = "c++"
    write_rows(tmp_path / "test.jsonl", rows)
    with pytest.raises(EvaluationError, match=r"row 2: unknown language 'c\+\+'; supported"):
        load_split(tmp_path, "test")
