"""Issue 18's estimator switches: each trains, round-trips through a checkpoint, and is scored
exactly as it was trained; the rejected arms' switches are refused in old configs."""

from __future__ import annotations

import json

import pytest
import torch

import unice
from unice.data.dataset import Collator, Sample
from unice.data.encoding import InputEncoder
from unice.data.features import (
    FEATURE_NAMES,
    STRUCTURE_FEATURES,
    clean_generated,
    exact_features,
)
from unice.errors import ModelConfigError
from unice.modeling.configuration import UniCEConfig
from unice.modeling.loss import pairwise_ranking_loss
from unice.retired import FAULT_HEAD_AT, ISSUE_27_ARMS_AT, retired_keys
from unice.scoring import SCORE_DECIMALS
from unice.testing import build_tiny_model
from unice.training.batch_loss import batch_loss
from unice.training.export import export_checkpoint

NL = "def add(a, b):\n    '''Sum of a and b.'''\n"
REFERENCE = "    return a + b\n"
GENERATED = [
    "    return a + b\n",
    "    return a - b\nprint(add(1, 2))\n",
    "    return b + a\nassert add(1, 1) == 2\n",
    "    return c\n",
]
RATIOS = [1.0, 0.0, 0.99, 0.0]

ALL_ON = {
    "architecture": "estimator",
    "exact_features": True,
    "structure_features": True,
    "exec_prior": True,
    "exact_prior": "rouge_l",
    "clean_generated": True,
    "loss_weights": {"pass_ratio": 1.0, "executable": 1.0, "ranking": 1.0},
}


def _samples() -> list[Sample]:
    return [
        Sample(f"t/{i}", g, REFERENCE, NL, ratio, ratio > 0, ratio == 1.0, "t")
        for i, (g, ratio) in enumerate(zip(GENERATED, RATIOS, strict=True))
    ]


def test_feature_size_counts_every_switch():
    hidden = 64
    plain = build_tiny_model(architecture="estimator").config.feature_size
    assert plain == hidden + 2 * (3 * hidden + 1)
    config = build_tiny_model(**ALL_ON).config
    assert config.feature_size == plain + len(FEATURE_NAMES)  # structure facts: the prior only
    assert config.exec_prior_width == len(FEATURE_NAMES) + len(STRUCTURE_FEATURES)


def test_a_training_step_runs_with_every_switch_on():
    model = build_tiny_model(seed=1, **ALL_ON)
    batch = Collator(InputEncoder.from_config(model.tokenizer, model.config), model.config.formats,
                     "estimator")(_samples())  # fmt: skip
    assert batch["exact_features"].dtype == torch.float32
    width = len(FEATURE_NAMES) + len(STRUCTURE_FEATURES)
    assert batch["exact_features"].shape == (len(batch["format_ids"]), width)
    loss, logs = batch_loss(model, batch, model.config.loss_weights)
    loss.backward()
    assert {"ref/ranking", "ref_nl/ranking"} <= set(logs)
    assert model.encoder.embeddings.word_embeddings.weight.grad.abs().sum() > 0
    assert model.prior_scale.grad is not None


def test_the_untrained_score_is_the_exact_prior_feature():
    model = build_tiny_model(seed=2, architecture="estimator", exact_features=True,
                             exact_prior="rouge_l").eval()  # fmt: skip
    rows = model.score(generated=GENERATED, references=[REFERENCE] * 4, nls=[NL] * 4)
    for row, generated in zip(rows, GENERATED, strict=True):
        for fmt, reference in (("ref", REFERENCE), ("ref_nl", REFERENCE)):
            features = exact_features(generated, reference, NL if fmt == "ref_nl" else None)
            rouge = features[FEATURE_NAMES.index("rouge_l")]
            expected = min(max(rouge, 1e-4), 1 - 1e-4)
            assert row[f"codescore_{fmt}"] == pytest.approx(expected, abs=2e-6)  # 1e-6 rounding
        # no reference, no prior: the head's zeroed PassRatio row gives sigmoid(0)
        assert row["codescore_nl"] == pytest.approx(0.5)
    scores = [row["codescore_ref"] for row in rows]
    assert scores[0] == max(scores)  # the candidate identical to the reference ranks first


def test_exact_prior_is_learned_and_saved(tmp_path):
    model = build_tiny_model(seed=7, architecture="estimator", exact_features=True,
                             exact_prior="chrf")  # fmt: skip
    batch = Collator(InputEncoder.from_config(model.tokenizer, model.config), model.config.formats,
                     "estimator")(_samples())  # fmt: skip
    loss, _ = batch_loss(model, batch, model.config.loss_weights)
    loss.backward()
    assert model.prior_scale.grad is not None and model.prior_scale.grad != 0
    with torch.no_grad():
        model.prior_scale.fill_(0.6)
    loaded = unice.load_model(export_checkpoint(model, model.tokenizer, tmp_path / "c"), "cpu")
    assert loaded.config.exact_prior == "chrf"
    assert loaded.prior_scale.item() == pytest.approx(0.6)
    kwargs = {"generated": GENERATED, "references": [REFERENCE] * 4, "nls": [NL] * 4}
    assert loaded.score(**kwargs) == model.eval().score(**kwargs)


@pytest.mark.parametrize(
    ("switches", "message"),
    [
        ({"exact_prior": "rouge_l"}, "needs exact_features=true"),
        (
            {"structure_features": True, "exact_features": True},
            "structure_features .*needs exec_prior=true",
        ),
        ({"exact_prior": "parses", "exact_features": True}, "exact_prior='parses' is not allowed"),
    ],
)
def test_exact_prior_refuses_what_it_cannot_start_from(switches, message):
    with pytest.raises(ModelConfigError, match=message):
        build_tiny_model(architecture="estimator", **switches)


def test_scoring_feeds_the_features_training_computed():
    model = build_tiny_model(seed=3, **ALL_ON).eval()
    encoder = InputEncoder.from_config(model.tokenizer, model.config)
    batch = Collator(encoder, model.config.formats, "estimator")(_samples())
    for row, (format_id, index) in enumerate(
        zip(batch["format_ids"].tolist(), batch["sample_index"].tolist(), strict=True)
    ):
        fmt = ("ref", "nl", "ref_nl")[format_id]
        g = clean_generated(GENERATED[index], NL)
        expected = exact_features(
            g, REFERENCE if fmt != "nl" else None, NL if fmt != "ref" else None, structure=True
        )
        assert batch["exact_features"][row].tolist() == pytest.approx(expected)
    # the training batch's logits are what model.score reports (rounded to 1e-6)
    inputs = {k: v for k, v in batch.items() if k not in ("labels", "group_ids", "format_ids",
                                                          "sample_index")}  # fmt: skip
    with torch.no_grad():
        probs = torch.sigmoid(model(**inputs).logits.double())
    rows = model.score(generated=GENERATED, references=[REFERENCE] * 4, nls=[NL] * 4)
    for row, (format_id, index) in enumerate(
        zip(batch["format_ids"].tolist(), batch["sample_index"].tolist(), strict=True)
    ):
        key = "codescore_" + ("ref", "nl", "ref_nl")[format_id]
        assert rows[index][key] == pytest.approx(float(probs[row, 0]), abs=2e-6)


def test_cleaning_makes_telltales_invisible():
    model = build_tiny_model(seed=4, architecture="estimator", clean_generated=True)
    with_print = model.score(generated=[GENERATED[1]], references=[REFERENCE], nls=[NL])
    without = model.score(generated=["    return a - b\n"], references=[REFERENCE], nls=[NL])
    assert with_print == without


def test_checkpoint_round_trip_reproduces_scores(tmp_path):
    model = build_tiny_model(seed=5, **ALL_ON)
    with torch.no_grad():  # the switches' own parameters and buffers must travel too
        model.prior_scale.fill_(0.7)
        model.exec_prior_weight.fill_(0.1)
    path = export_checkpoint(model, model.tokenizer, tmp_path / "ckpt")
    loaded = unice.load_model(path, device="cpu")
    for switch in ("exact_features", "structure_features", "exec_prior", "clean_generated"):
        assert getattr(loaded.config, switch) is True
    kwargs = {"generated": GENERATED, "references": [REFERENCE] * 4, "nls": [NL] * 4}
    assert loaded.score(**kwargs) == model.eval().score(**kwargs)


def test_scores_are_rounded():
    kwargs = {"generated": GENERATED, "references": [REFERENCE] * 4, "nls": [NL] * 4}
    for row in build_tiny_model(seed=6, architecture="estimator").score(**kwargs):
        assert all(value == round(value, SCORE_DECIMALS) for value in row.values())


def test_ranking_pairs_count_alike():
    scores = torch.tensor([0.0, 0.0, 0.0])
    targets = torch.tensor([1.0, 0.99, 0.0])
    groups = torch.tensor([0, 0, 0])
    log2 = float(torch.log(torch.tensor(2.0)))
    # every pair at score 0: softplus(0), a .99-vs-1 pair as much as a 0-vs-1 one
    assert float(pairwise_ranking_loss(scores, targets, groups)) == pytest.approx(log2)


def test_exact_features_refuse_the_cross_input():
    with pytest.raises(ModelConfigError, match="exact_features .*needs architecture=estimator"):
        build_tiny_model(exact_features=True)


def _old_config(**retired) -> dict:
    encoder = build_tiny_model(architecture="estimator").config.encoder.to_dict()
    return {"encoder": encoder, "architecture": "estimator", **retired}


def test_old_configs_load_where_a_retired_switch_holds_todays_behaviour(tmp_path):
    idle = {"token_alignment": False, "untrained_cosine": False, "comparison_only": False,
            "ranking_pair_weight": "uniform", "exact_scores": False,
            "structure_target": "head", "exec_prior_mode": "start",
            "edit_features": False, "likelihood_features": False,
            "likelihood_model": "smollm2"}  # fmt: skip
    config = UniCEConfig(**_old_config(**idle))  # the defaults every old checkpoint saved
    assert not any(hasattr(config, key) for key in idle)
    adopted = UniCEConfig(**_old_config(exact_features=True, exec_prior=True,
                                        structure_features=True, structure_target="prior",
                                        exec_prior_mode="ensemble"))  # fmt: skip
    assert adopted.exec_prior_width == len(FEATURE_NAMES) + len(STRUCTURE_FEATURES)
    # through config.json, as unice.load_model reads a checkpoint
    model = build_tiny_model(seed=1, **ALL_ON)
    path = export_checkpoint(model, model.tokenizer, tmp_path / "c")
    saved = json.loads((path / "config.json").read_text("utf-8"))
    saved.update(idle, structure_target="prior", exec_prior_mode="ensemble")
    (path / "config.json").write_text(json.dumps(saved), "utf-8")
    loaded = unice.load_model(path, device="cpu")
    assert not hasattr(loaded.config, "exec_prior_mode")
    kwargs = {"generated": GENERATED, "references": [REFERENCE] * 4, "nls": [NL] * 4}
    assert loaded.score(**kwargs) == model.eval().score(**kwargs)


@pytest.mark.parametrize(
    "retired",
    [
        {"token_alignment": True},
        {"untrained_cosine": True},
        {"comparison_only": True},
        {"ranking_pair_weight": "delta"},
        {"exact_scores": True},
        {"exact_features": True, "structure_features": True, "structure_target": "head"},
        {"exact_features": True, "structure_features": True, "structure_target": "exec"},
        {"exact_features": True, "exec_prior": True, "exec_prior_mode": "start"},
        {"fault_head": True},
        {"exact_features": True, "edit_features": True},
        {"exact_features": True, "likelihood_features": True},
    ],
)
def test_old_configs_of_rejected_arms_are_refused_naming_the_commit(retired, tmp_path):
    key, value = [(k, v) for k, v in retired.items() if k not in ("exact_features",
                  "structure_features", "exec_prior")][0]  # fmt: skip
    commit = retired_keys("model")[key].commit
    with pytest.raises(ModelConfigError, match=f"{key}={value!r}: .*commit {commit}") as error:
        UniCEConfig(**_old_config(**retired))
    assert "\n" not in str(error.value)
    model = build_tiny_model(seed=1, architecture="estimator")
    path = export_checkpoint(model, model.tokenizer, tmp_path / "c")
    saved = json.loads((path / "config.json").read_text("utf-8"))
    saved.update(retired)
    (path / "config.json").write_text(json.dumps(saved), "utf-8")
    with pytest.raises(ModelConfigError, match=commit):
        unice.load_model(path, device="cpu")


def test_the_fault_head_is_retired_at_its_own_commit(tmp_path):
    """Stage three's arm C (+.010 over A on MBPP dev, under the .02 margin) took the fault head
    out after the other rejected arms: its switch and loss term name the commit before that."""
    switches = retired_keys("model")
    assert switches["fault_head"].commit == FAULT_HEAD_AT != ISSUE_27_ARMS_AT
    own_commits = ("fault_head", "edit_features", "likelihood_features", "likelihood_model")
    assert all(
        row.commit == ISSUE_27_ARMS_AT for key, row in switches.items() if key not in own_commits
    )
    plain = {"pass_ratio": 1.0, "executable": 1.0}
    # what every checkpoint without the head saved loads, the zero weight dropped
    config = UniCEConfig(**_old_config(fault_head=False, loss_weights={**plain, "faults": 0.0}))
    assert not hasattr(config, "fault_head") and config.loss_weights == plain
    for old in ({"fault_head": True, "loss_weights": {**plain, "faults": 1.0}},
                {"loss_weights": {**plain, "faults": 1.0}}):  # fmt: skip
        with pytest.raises(ModelConfigError, match=f"commit {FAULT_HEAD_AT}") as error:
            UniCEConfig(**_old_config(**old))
        assert "\n" not in str(error.value)
    with pytest.raises(ModelConfigError, match=rf"loss_weights\.faults=1\.0: .*{FAULT_HEAD_AT}"):
        UniCEConfig(**_old_config(loss_weights={**plain, "faults": 1.0}))
    # through config.json: the head's checkpoint is refused, one saved without it loads
    model = build_tiny_model(seed=1, architecture="estimator")
    path = export_checkpoint(model, model.tokenizer, tmp_path / "c")
    saved = json.loads((path / "config.json").read_text("utf-8"))
    (path / "config.json").write_text(json.dumps({**saved, "fault_head": False}), "utf-8")
    kwargs = {"generated": GENERATED, "references": [REFERENCE] * 4, "nls": [NL] * 4}
    assert unice.load_model(path, device="cpu").score(**kwargs) == model.eval().score(**kwargs)
    weights = {**saved["loss_weights"], "faults": 1.0}
    (path / "config.json").write_text(
        json.dumps({**saved, "fault_head": True, "loss_weights": weights}), "utf-8"
    )
    with pytest.raises(ModelConfigError, match=FAULT_HEAD_AT):
        unice.load_model(path, device="cpu")


def test_train_with_every_switch_exports_a_checkpoint_that_scores_alike(
    tiny_backbone, fixture_data, tmp_path
):
    from unice.data.dataset import read_split
    from unice.training.evaluation import dev_metrics, predict
    from unice.training.loop import train

    from .conftest import compose, tiny_overrides

    switches = {f"model.{key}": value for key, value in ALL_ON.items() if key != "loss_weights"}
    switches.update({"trainer.max_steps": 3, "trainer.epochs": 1, "trainer.group_size": 4})
    cfg = compose(["+experiment=zeroshot_cpu",
                   *tiny_overrides(tiny_backbone, fixture_data, tmp_path, **switches),
                   "data.dirs=null", "model.formats=[ref,nl,ref_nl]"])  # fmt: skip
    metrics = train(cfg)
    loaded = unice.load_model(metrics["best_checkpoint"], device="cpu")
    assert loaded.config.exact_features and loaded.config.exec_prior
    assert loaded.config.structure_features and loaded.exec_prior_weight.abs().sum() > 0
    # the checkpoint scores the dev split exactly as the training loop measured it
    dev = read_split(fixture_data, "dev")
    again = dev_metrics(predict(loaded, dev, loaded.tokenizer, batch_size=4), dev)
    assert again["example_spearman"] == pytest.approx(metrics["best/example_spearman"])
    assert again["mae"] == pytest.approx(metrics["best/mae"])


def test_the_adopted_zeroshot_configuration_trains_and_scores_alike(
    tiny_backbone, fixture_data, tmp_path
):
    from unice.data.dataset import read_split
    from unice.training.evaluation import dev_metrics, predict
    from unice.training.loop import train

    from .conftest import compose, tiny_overrides

    cfg = compose(["+experiment=zeroshot_cpu",
                   *tiny_overrides(tiny_backbone, fixture_data, tmp_path, **{
                       "trainer.max_steps": 2, "trainer.epochs": 1, "trainer.group_size": 4}),
                   "data.dirs=null"])  # fmt: skip
    assert cfg.model.exact_prior == "rouge_l" and cfg.model.exact_features
    metrics = train(cfg)
    loaded = unice.load_model(metrics["best_checkpoint"], device="cpu")
    assert loaded.config.exact_prior == "rouge_l" and loaded.config.clean_generated
    dev = read_split(fixture_data, "dev")
    again = dev_metrics(predict(loaded, dev, loaded.tokenizer, batch_size=4), dev)
    assert again["example_spearman"] == pytest.approx(metrics["best/example_spearman"])
