"""Generator families (issue 43): the transfer dev's hold-out, the configs that pre-register it,
and the refusal of the retired balance switch."""

from __future__ import annotations

from dataclasses import replace

import pytest

from unice.data.dataset import Sample
from unice.data.families import family_of, hold_out_family
from unice.errors import DatasetFormatError

from .conftest import compose

FAMILIES = {"api": ["gpt-*"], "open": ["starcoder*", "codellama-*"], "local": ["local:*"]}


def _sample(task: str, generator: str, passed: bool, i: int) -> Sample:
    ratio = 1.0 if passed else 0.0
    return Sample(f"{task}/{i}", "g", "r", "n", ratio, True, passed, task, "a", generator=generator)


def test_family_is_the_first_matching_pattern_in_config_order():
    assert family_of("gpt-4-turbo/cot", FAMILIES) == "api"
    assert family_of("starcoder2-15b/x", FAMILIES) == "open"
    assert family_of("local:SmolLM2", {"a": ["local:*"], "b": ["*"]}) == "a"
    assert family_of("qwen3-coder", FAMILIES) is None


def test_hold_out_trains_on_no_program_of_the_family_and_judges_only_its_programs():
    train = [_sample("t1", g, True, i) for i, g in enumerate(["gpt-4", "starcoder", "local:x"])]
    dev = [
        _sample("d1", g, i % 2 == 0, i)
        for i, g in enumerate(["gpt-4", "starcoder", "codellama-34b"])
    ]
    kept_train, kept_dev = hold_out_family(train, dev, FAMILIES, "open")
    assert [s.generator for s in kept_train] == ["gpt-4", "local:x"]
    assert [s.generator for s in kept_dev] == ["starcoder", "codellama-34b"]


def test_an_unknown_generator_or_family_is_a_clear_error():
    rows = [_sample("t1", "qwen3-coder/cot", True, 0)]
    with pytest.raises(DatasetFormatError, match="qwen3-coder/cot.*data.families"):
        hold_out_family(rows, rows, FAMILIES, "api")
    known = [_sample("t1", "gpt-4", True, 0)]
    with pytest.raises(DatasetFormatError, match="not a family"):
        hold_out_family(known, known, FAMILIES, "nope")
    with pytest.raises(DatasetFormatError, match="no dev rows"):
        hold_out_family(known, known, FAMILIES, "open")


def test_sample_reads_the_rows_generator():
    row = _sample("t", "gpt-4", True, 0)
    assert replace(row, generator="").generator == ""
    assert row.generator == "gpt-4"


@pytest.mark.parametrize("arm", ["T0", "T1", "T2", "T3", "T4", "TI"])
def test_transfer_arms_compose_with_every_family_named(arm):
    """Every arm of the pre-registered protocol composes, holds a family out and names the
    generators of every shelf file it reads in some family."""
    from omegaconf import OmegaConf

    raw = OmegaConf.load("configs/experiment/transfer_cpu.yaml").protocol.transfer
    overrides = ["+experiment=transfer_cpu", *raw.arms[arm], f"data.holdout_family={raw.folds[0]}"]
    cfg = compose(overrides)
    families = {k: list(v) for k, v in cfg.data.families.items()}
    assert cfg.data.holdout_family == "open-mid"
    assert set(raw.folds) <= set(families)
    shelf_generators = [
        "gpt-3.5-turbo/mapcoder", "gpt-4/reflexion", "gpt-4-turbo/cot",
        "gpt-3.5-turbo-0613/ldb-seed", "codellama-34b-instruct/ldb", "starcoder-15b/ldb-seed",
        "codeqwen1.5-7b-chat/mgdebugger-seed", "codestral-22b-v0.1/mgdebugger-seed",
        "deepseek-coder-v2-lite-instruct/mgdebugger-seed",
        "starcoder2-15b-instruct-v0.1/mgdebugger-seed", "qwen3-coder-480b/cot",
        "qwen-coder-turbo/direct", "codegen-6b-mono/ilf-original", "human/ilf-refinement",
        "local:SmolLM2-135M-Instruct.Q4_1",
    ]  # fmt: skip
    assert all(family_of(g, families) for g in shelf_generators)
    assert family_of("starcoder2-15b-instruct-v0.1/mgdebugger-seed", families) == "open-mid"
    assert family_of("gpt-4/reflexion", families) == "openai-api"


def test_hold_out_without_families_and_the_retired_balance_switch_are_refused():
    from omegaconf import OmegaConf

    from unice.errors import TrainingConfigError
    from unice.retired import BALANCE_AT, refuse_retired
    from unice.training.data_config import families_config

    with pytest.raises(TrainingConfigError, match="data.families"):
        families_config(OmegaConf.create({"holdout_family": "api"}))
    refuse_retired("data", OmegaConf.create({"balance": None}))  # unset: nothing to refuse
    with pytest.raises(TrainingConfigError, match=f"data.balance was retired.*{BALANCE_AT}"):
        refuse_retired("data", OmegaConf.create({"balance": "family_label"}))


def test_load_families_reads_the_config_in_order_and_names_a_file_without_them(tmp_path):
    from unice.data.families import load_families

    families = load_families("configs/data/transfer.yaml")
    assert list(families)[:3] == ["openai-api", "open-mid", "qwen"]
    assert families["qwen"] == ["qwen3-coder-*", "qwen-coder-*"]
    empty = tmp_path / "plain.yaml"
    empty.write_text("name: plain\n")
    with pytest.raises(DatasetFormatError, match="plain.yaml has no families"):
        load_families(empty)


def test_schedule_rule_switches_only_when_the_frozen_proxy_wins_by_the_margin():
    """Amendment 3: make quality keeps I's fine-tuned schedule unless the frozen T0 beats it by
    more than the margin; an arm with a fold left to run decides nothing."""
    from unice.testing import load_script

    arms = load_script("transfer_arms")
    schedule = {"incumbent": "TI", "challenger": "T0"}
    assert "keep TI" in arms.schedule_verdict({"TI": 0.40, "T0": 0.415}, schedule, 0.02)
    assert "SWITCH to T0" in arms.schedule_verdict({"TI": 0.38, "T0": 0.408}, schedule, 0.02)
    assert "not decided" in arms.schedule_verdict({"TI": None, "T0": 0.408}, schedule, 0.02)
