"""Issue 18's estimator switches: each trains, round-trips through a checkpoint, and is scored
exactly as it was trained."""

from __future__ import annotations

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
from unice.modeling.loss import pairwise_ranking_loss
from unice.modeling.model import pair_cosine
from unice.scoring import SCORE_DECIMALS
from unice.testing import build_tiny_model
from unice.training.export import export_checkpoint
from unice.training.loop import batch_loss

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
    "untrained_cosine": True,
    "exact_features": True,
    "structure_features": True,
    "comparison_only": True,
    "clean_generated": True,
    "ranking_pair_weight": "delta",
    "exact_scores": True,
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
    width = len(FEATURE_NAMES) + len(STRUCTURE_FEATURES)
    assert config.feature_size == 2 * (2 * hidden + 1 + 1) + width


def test_a_training_step_runs_with_every_switch_on():
    model = build_tiny_model(seed=1, **ALL_ON)
    batch = Collator(InputEncoder.from_config(model.tokenizer, model.config), model.config.formats,
                     "estimator")(_samples())  # fmt: skip
    assert batch["exact_features"].dtype == torch.float32
    width = len(FEATURE_NAMES) + len(STRUCTURE_FEATURES)
    assert batch["exact_features"].shape == (len(batch["format_ids"]), width)
    loss, logs = batch_loss(model, batch, model.config.loss_weights, pair_weight="delta")
    loss.backward()
    assert {"ref/ranking", "ref_nl/ranking"} <= set(logs)
    assert model.encoder.embeddings.word_embeddings.weight.grad.abs().sum() > 0
    assert model.prior_scale.grad is not None
    frozen = list(model.untrained_encoder.parameters())
    assert all(not p.requires_grad and p.grad is None for p in frozen)
    model.train()
    assert not model.untrained_encoder.training  # dropout never touches the frozen copy


def test_the_untrained_score_is_the_untrained_cosine():
    model = build_tiny_model(seed=2, architecture="estimator", untrained_cosine=True,
                             formats=["ref"]).eval()  # fmt: skip
    encoder = InputEncoder.from_config(model.tokenizer, model.config)
    encoded = encoder.encode_segments(GENERATED[:2], [REFERENCE] * 2, [None] * 2, ["ref"])
    inputs = {k: torch.tensor(v) for k, v in encoded.items() if k not in ("format_ids",
                                                                        "sample_index")}  # fmt: skip
    with torch.no_grad():
        vectors = model._untrained_vectors(inputs["segment_input_ids"],
                                           inputs["segment_attention_mask"])  # fmt: skip
        cosine = pair_cosine(vectors, inputs["generated_index"], inputs["reference_index"])
        logits = model(**inputs).logits
    expected = cosine.squeeze(-1).clamp(1e-4, 1 - 1e-4)
    torch.testing.assert_close(torch.sigmoid(logits[:, 0]), expected, atol=1e-5, rtol=1e-4)


def test_the_untrained_score_is_the_exact_prior_feature():
    model = build_tiny_model(seed=2, architecture="estimator", exact_features=True,
                             exact_prior="rouge_l", exact_scores=True).eval()  # fmt: skip
    rows = model.score(generated=GENERATED, references=[REFERENCE] * 4, nls=[NL] * 4)
    for row, generated in zip(rows, GENERATED, strict=True):
        for fmt, reference in (("ref", REFERENCE), ("ref_nl", REFERENCE)):
            features = exact_features(generated, reference, NL if fmt == "ref_nl" else None)
            rouge = features[FEATURE_NAMES.index("rouge_l")]
            assert row[f"codescore_{fmt}"] == pytest.approx(min(max(rouge, 1e-4), 1 - 1e-4))
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
        ({"structure_features": True}, "structure_features .*needs exact_features=true"),
        (
            {"structure_target": "pooler", "exact_features": True},
            "structure_target='pooler' is not allowed",
        ),
        ({"exact_prior": "parses", "exact_features": True}, "exact_prior='parses' is not allowed"),
        (
            {"exact_prior": "rouge_l", "exact_features": True, "untrained_cosine": True},
            "choose one",
        ),
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
    # the training batch's logits are what model.score reports (unrounded with exact_scores)
    inputs = {k: v for k, v in batch.items() if k not in ("labels", "group_ids", "format_ids",
                                                          "sample_index")}  # fmt: skip
    with torch.no_grad():
        probs = torch.sigmoid(model(**inputs).logits.double())
    rows = model.score(generated=GENERATED, references=[REFERENCE] * 4, nls=[NL] * 4)
    for row, (format_id, index) in enumerate(
        zip(batch["format_ids"].tolist(), batch["sample_index"].tolist(), strict=True)
    ):
        key = "codescore_" + ("ref", "nl", "ref_nl")[format_id]
        assert rows[index][key] == pytest.approx(float(probs[row, 0]), abs=1e-6)


def test_cleaning_makes_telltales_invisible():
    model = build_tiny_model(seed=4, architecture="estimator", clean_generated=True)
    with_print = model.score(generated=[GENERATED[1]], references=[REFERENCE], nls=[NL])
    without = model.score(generated=["    return a - b\n"], references=[REFERENCE], nls=[NL])
    assert with_print == without


def test_checkpoint_round_trip_reproduces_scores(tmp_path):
    model = build_tiny_model(seed=5, **ALL_ON)
    with torch.no_grad():  # the switches' own parameters must travel too
        model.prior_scale.fill_(0.7)
        model.untrained_encoder.embeddings.word_embeddings.weight.mul_(1.5)
    path = export_checkpoint(model, model.tokenizer, tmp_path / "ckpt")
    loaded = unice.load_model(path, device="cpu")
    for switch in ("untrained_cosine", "exact_features", "comparison_only", "clean_generated",
                   "exact_scores"):  # fmt: skip
        assert getattr(loaded.config, switch) is True
    assert loaded.config.ranking_pair_weight == "delta"
    kwargs = {"generated": GENERATED, "references": [REFERENCE] * 4, "nls": [NL] * 4}
    assert loaded.score(**kwargs) == model.eval().score(**kwargs)


def test_exact_scores_are_not_rounded():
    kwargs = {"generated": GENERATED, "references": [REFERENCE] * 4, "nls": [NL] * 4}
    rounded = build_tiny_model(seed=6, architecture="estimator").score(**kwargs)
    exact = build_tiny_model(seed=6, architecture="estimator", exact_scores=True).score(**kwargs)
    for a, b in zip(rounded, exact, strict=True):
        assert a["codescore"] == round(b["codescore"], SCORE_DECIMALS)
    assert any(b["codescore"] != round(b["codescore"], SCORE_DECIMALS) for b in exact)


def test_delta_weighting_scales_each_pair_by_its_gap():
    scores = torch.tensor([0.0, 0.0, 0.0])
    targets = torch.tensor([1.0, 0.99, 0.0])
    groups = torch.tensor([0, 0, 0])
    uniform = pairwise_ranking_loss(scores, targets, groups)
    delta = pairwise_ranking_loss(scores, targets, groups, pair_weight="delta")
    log2 = float(torch.log(torch.tensor(2.0)))
    assert float(uniform) == pytest.approx(log2)  # every pair at score 0: softplus(0)
    assert float(delta) == pytest.approx(log2 * (0.01 + 1.0 + 0.99) / 3)


@pytest.mark.parametrize("switch", ["untrained_cosine", "exact_features", "comparison_only"])
def test_estimator_switches_refuse_the_cross_input(switch):
    with pytest.raises(ModelConfigError, match=f"{switch} .*needs architecture=estimator"):
        build_tiny_model(**{switch: True})


def test_train_with_every_switch_exports_a_checkpoint_that_scores_alike(
    tiny_backbone, fixture_data, tmp_path
):
    from transformers import AutoModel

    from unice.data.dataset import read_split
    from unice.training.evaluation import dev_metrics, predict
    from unice.training.loop import train

    from .conftest import compose, tiny_overrides

    switches = {f"model.{key}": value for key, value in ALL_ON.items() if key != "loss_weights"}
    switches["model.exact_prior"] = "null"  # zeroshot_cpu's prior; untrained_cosine is the one here
    switches.update({"trainer.max_steps": 3, "trainer.epochs": 1, "trainer.group_size": 4})
    cfg = compose(["+experiment=zeroshot_cpu",
                   *tiny_overrides(tiny_backbone, fixture_data, tmp_path, **switches),
                   "data.dirs=null", "model.formats=[ref,nl,ref_nl]"])  # fmt: skip
    metrics = train(cfg)
    loaded = unice.load_model(metrics["best_checkpoint"], device="cpu")
    assert loaded.config.untrained_cosine and loaded.config.exact_features
    assert loaded.config.structure_features
    # the frozen copy is the backbone as it was; the encoder moved away from it
    backbone = AutoModel.from_pretrained(tiny_backbone).embeddings.word_embeddings.weight
    frozen = loaded.untrained_encoder.embeddings.word_embeddings.weight
    trained = loaded.encoder.embeddings.word_embeddings.weight
    assert torch.equal(frozen, backbone) and not torch.equal(trained, backbone)
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


def test_structure_facts_on_the_exec_logit_only(tmp_path):
    model = build_tiny_model(seed=5, architecture="estimator", exact_features=True,
                             structure_features=True, structure_target="exec")  # fmt: skip
    hidden = 64
    assert model.config.feature_size == hidden + 2 * (3 * hidden + 1) + len(FEATURE_NAMES)
    encoder = InputEncoder.from_config(model.tokenizer, model.config)
    batch = Collator(encoder, model.config.formats, "estimator")(_samples())
    width = len(FEATURE_NAMES) + len(STRUCTURE_FEATURES)
    assert batch["exact_features"].shape[1] == width  # computed, then split head / Exec term
    inputs = {k: v for k, v in batch.items() if k not in ("labels", "group_ids", "format_ids",
                                                          "sample_index")}  # fmt: skip
    model.eval()
    with torch.no_grad():
        before = model(**inputs).logits
        flipped = dict(inputs, exact_features=inputs["exact_features"].clone())
        flipped["exact_features"][:, len(FEATURE_NAMES) :] = (
            1.0 - flipped["exact_features"][:, len(FEATURE_NAMES) :]
        )
        # zero at the start: the structure facts change nothing until trained
        torch.testing.assert_close(model(**flipped).logits, before)
        model.exec_structure.weight.fill_(0.5)
        after, moved = model(**inputs).logits, model(**flipped).logits
    torch.testing.assert_close(moved[:, 0], after[:, 0])  # PassRatio never sees them
    assert not torch.allclose(moved[:, 1], after[:, 1])  # the Exec logit does
    model.train()
    loss, _ = batch_loss(model, batch, model.config.loss_weights)
    loss.backward()
    assert model.exec_structure.weight.grad.abs().sum() > 0
    loaded = unice.load_model(export_checkpoint(model, model.tokenizer, tmp_path / "c"), "cpu")
    assert loaded.config.structure_target == "exec"
    kwargs = {"generated": GENERATED, "references": [REFERENCE] * 4, "nls": [NL] * 4}
    assert loaded.score(**kwargs) == model.eval().score(**kwargs)
