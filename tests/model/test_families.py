"""Generator families (issue 43): the transfer dev's hold-out, balanced batches, and the configs
that pre-register them."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from unice.data.dataset import Sample
from unice.data.families import balance_weights, family_of, hold_out_family
from unice.data.sampler import ProblemGroupedBatchSampler
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


def test_balance_weights_equalise_families_and_labels_within_them():
    rows = [_sample("t", "gpt-4", True, i) for i in range(8)]
    rows += [_sample("t", "gpt-4", False, 8 + i) for i in range(2)]
    rows += [_sample("u", "starcoder", False, 20 + i) for i in range(2)]
    weights = balance_weights(rows, FAMILIES, [s.passed for s in rows])
    mass: Counter[tuple[str, bool]] = Counter()
    for sample, weight in zip(rows, weights, strict=True):
        mass[(family_of(sample.generator, FAMILIES), sample.passed)] += weight
    assert mass[("api", True)] == pytest.approx(mass[("api", False)])
    assert mass[("api", True)] + mass[("api", False)] == pytest.approx(mass[("open", False)])
    assert sum(weights) == pytest.approx(len(rows))
    by_family = balance_weights(rows, FAMILIES, [s.passed for s in rows], by_label=False)
    assert by_family[0] == pytest.approx(by_family[9])  # one weight for the family's rows


def test_sampler_draws_reweighted_chunks_and_is_unchanged_without_weights():
    rows = [_sample(f"t{i % 5}", "gpt-4", True, i) for i in range(40)]
    rows += [_sample(f"s{i % 2}", "starcoder", True, i) for i in range(40, 50)]  # own problems
    plain = ProblemGroupedBatchSampler(rows, 4, 2, seed=3)
    assert sorted(i for batch in plain for i in batch) == list(range(50))
    again = ProblemGroupedBatchSampler(rows, 4, 2, seed=3, sample_weights=None)
    assert list(again) == list(plain)  # the default path draws exactly as before
    weights = balance_weights(rows, FAMILIES, [True] * 50, by_label=False)
    balanced = ProblemGroupedBatchSampler(rows, 4, 2, seed=3, sample_weights=weights)
    drawn = Counter(rows[i].generator for batch in balanced for i in batch)
    assert drawn["starcoder"] >= 2 * 10  # 10 rows, each weighted 2.5: 2 or 3 copies
    assert drawn["gpt-4"] < 40  # 40 rows, each weighted 0.625
    with pytest.raises(ValueError, match="sample weights"):
        ProblemGroupedBatchSampler(rows, 4, 2, sample_weights=[1.0])


def test_sample_reads_the_rows_generator():
    row = _sample("t", "gpt-4", True, 0)
    assert replace(row, generator="").generator == ""
    assert row.generator == "gpt-4"


@pytest.mark.parametrize("arm", ["T0", "T1", "T2", "T3"])
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


def test_balance_and_hold_out_without_families_or_with_an_unknown_mode_are_refused():
    from omegaconf import OmegaConf

    from unice.errors import TrainingConfigError
    from unice.training.data_config import balance_weights_config as _balance

    rows = [_sample("t", "gpt-4", True, 0)]
    assert _balance(OmegaConf.create({"balance": None}), rows) is None
    with pytest.raises(TrainingConfigError, match="data.families"):
        _balance(OmegaConf.create({"balance": "family"}), rows)
    with pytest.raises(TrainingConfigError, match="not one of"):
        _balance(OmegaConf.create({"balance": "label", "families": FAMILIES}), rows)
    assert _balance(OmegaConf.create({"balance": "family", "families": FAMILIES}), rows) == [1.0]


def test_load_families_reads_the_config_in_order_and_names_a_file_without_them(tmp_path):
    from unice.data.families import load_families

    families = load_families("configs/data/transfer.yaml")
    assert list(families)[:3] == ["openai-api", "open-mid", "qwen"]
    assert families["qwen"] == ["qwen3-coder-*", "qwen-coder-*"]
    empty = tmp_path / "plain.yaml"
    empty.write_text("name: plain\n")
    with pytest.raises(DatasetFormatError, match="plain.yaml has no families"):
        load_families(empty)
