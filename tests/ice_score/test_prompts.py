"""Prompt templates: the paper's structure (Sec. 2, Appendix A), variants and custom files."""

from __future__ import annotations

import json

import pytest

from unice.ice_score import IceScoreConfig, IceScoreConfigError
from unice.ice_score.templates import (
    ICE_SCORE_TEMPLATE,
    PromptInput,
    build_prompt,
    load_template,
)

ITEM = PromptInput(problem="Sum a list {of ints}.", code="def f(xs): return sum(xs)", reference="R")


def _sections(prompt: str) -> list[str]:
    return [line for line in prompt.splitlines() if line.endswith(":") and line[0].isupper()]


def test_reference_free_structure_in_paper_order():
    prompt = build_prompt(ICE_SCORE_TEMPLATE, ITEM, "usefulness")
    order = ["Evaluation Criteria:", "Evaluation Steps:", "Problem:", "Code Snippet:"]
    positions = [prompt.index(header) for header in order]
    assert positions == sorted(positions)
    assert "Reference Code:" not in prompt and "R\n" not in prompt
    # the five usefulness levels of Appendix A.1
    for level in range(5):
        assert f"- A score of {level}: Snippet is" in prompt
    assert "Give usefulness a score from 0 to 4" in prompt
    assert prompt.rstrip().endswith("Evaluation Form:\nUsefulness (scores ONLY):")
    assert "Sum a list {of ints}." in prompt  # user braces are not format fields


def test_functional_correctness_criteria_and_reference_variant():
    prompt = build_prompt(ICE_SCORE_TEMPLATE, ITEM, "functional_correctness", with_reference=True)
    assert "Functional Correctness (0-4) - Execution-based quality" in prompt
    assert "A score of 0 (failing all possible tests)" in prompt
    assert "A score of 4 (passing all possible tests)" in prompt
    assert "against the problem and the reference code" in prompt
    assert prompt.index("Reference Code:\n\nR") < prompt.index("Code Snippet:")
    assert prompt.rstrip().endswith("Functional Correctness (scores ONLY):")


def test_reference_usefulness_criteria_mention_the_reference():
    free = build_prompt(ICE_SCORE_TEMPLATE, ITEM, "usefulness")
    ref = build_prompt(ICE_SCORE_TEMPLATE, ITEM, "usefulness", with_reference=True)
    assert "comparison of reference code" in ref and "comparison of reference code" not in free


def test_cot_ends_with_step_by_step_cue():
    prompt = build_prompt(ICE_SCORE_TEMPLATE, ITEM, "usefulness", cot=True)
    assert prompt.rstrip().endswith("Step-by-step Evaluation:")
    assert "scores ONLY" not in prompt
    assert IceScoreConfig(model="m", base_url="u", cot=True).reply_tokens == 512
    assert IceScoreConfig(model="m", base_url="u").reply_tokens == 32


def test_custom_template_file(tmp_path):
    custom = dict(ICE_SCORE_TEMPLATE, instruction="GRADE THIS.", cot_form="Think first:")
    path = tmp_path / "t.json"
    path.write_text(json.dumps(custom))
    prompt = build_prompt(load_template(str(path)), ITEM, "usefulness", cot=True)
    assert prompt.startswith("GRADE THIS.") and prompt.rstrip().endswith("Think first:")
    yaml_path = tmp_path / "t.yaml"
    yaml_path.write_text("instruction: only this\n")
    with pytest.raises(IceScoreConfigError, match="lacks key"):
        load_template(str(yaml_path))
    with pytest.raises(IceScoreConfigError, match="unknown prompt template 'nope'"):
        load_template("nope")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"aspect": "style"}, "unknown aspect 'style'; choose one of usefulness"),
        ({"parser": "lenient"}, "unknown parser"),
        ({"backend": "vllm"}, "unknown backend"),
        ({"model": None}, "no judge model given"),
        ({"base_url": None}, "needs --base-url"),
        ({"concurrency": 0}, "concurrency must be >= 1"),
        ({"timeout": -1}, "timeout must be >= 0"),
    ],
)
def test_config_errors(overrides, message):
    values = {"model": "m", "base_url": "http://127.0.0.1:1/v1", **overrides}
    with pytest.raises(IceScoreConfigError, match=message):
        IceScoreConfig(**values)


def test_config_from_dict_rejects_unknown_keys():
    with pytest.raises(IceScoreConfigError, match="unknown ice_score option.*temprature"):
        IceScoreConfig.from_dict({"model": "m", "base_url": "u", "temprature": 0})
    config = IceScoreConfig.from_dict({"model": "m", "base_url": "u", "cot": True})
    assert IceScoreConfig.from_dict(config.to_dict()) == config


def test_default_yaml_mirrors_the_dataclass():
    import dataclasses
    from pathlib import Path

    import yaml

    path = Path(__file__).resolve().parents[2] / "configs" / "ice_score" / "default.yaml"
    data = yaml.safe_load(path.read_text())
    fields = {f.name: f.default for f in dataclasses.fields(IceScoreConfig)}
    assert set(data) == set(fields)
    assert {k: v for k, v in data.items() if k not in ("model", "base_url")} == {
        k: v for k, v in fields.items() if k not in ("model", "base_url")
    }


def test_reply_cache_is_on_by_default_and_can_be_turned_off(monkeypatch, tmp_path):
    from pathlib import Path

    config = IceScoreConfig(model="m", base_url="u")
    monkeypatch.setenv("UNICE_CACHE_DIR", str(tmp_path / "u"))
    assert config.cache_dir == "auto" and config.cache_path == tmp_path / "u" / "ice_score"
    monkeypatch.delenv("UNICE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert config.cache_path == tmp_path / "x" / "unice" / "ice_score"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert config.cache_path == tmp_path / "h" / ".cache" / "unice" / "ice_score"
    assert IceScoreConfig(model="m", base_url="u", cache_dir="here").cache_path == Path("here")
    for off in (None, ""):
        assert IceScoreConfig(model="m", base_url="u", cache_dir=off).cache_path is None
