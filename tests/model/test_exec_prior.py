"""``model.exec_prior``: the Exec output averages the network's probability with a logistic
regression's fitted on the training rows' exact features; the network trains as without it, the
fit travels with the checkpoint, and it changes nothing else."""

from __future__ import annotations

import pytest
import torch

import unice
from unice.data.dataset import Collator, Sample
from unice.data.encoding import InputEncoder
from unice.data.features import FEATURE_NAMES, STRUCTURE_FEATURES
from unice.errors import ModelConfigError
from unice.retired import ISSUE_27_ARMS_AT
from unice.testing import build_tiny_model
from unice.training.exec_prior import exec_prior_rows, fit_exec_prior
from unice.training.export import export_checkpoint

NL = "def add(a, b):\n    '''Sum of a and b.'''\n"
REFERENCE = "    return a + b\n"
# the crashing ones read a name nothing defines: a static fact the prior can use
CANDIDATES = [
    ("    return a + b\n", 1.0),
    ("    return b + a\n", 1.0),
    ("    return a - b\n", 0.0),
    ("    return c + a\n", 0.0),
    ("    total = a + b\n    return totl\n", 0.0),
    ("    return undefined_name(a)\n", 0.0),
]
CRASHES = {3, 4, 5}
ON = {"architecture": "estimator", "exact_features": True, "exec_prior": True}


def _samples() -> list[Sample]:
    return [
        Sample(f"t/{i}", g, REFERENCE, NL, ratio, i not in CRASHES, ratio == 1.0, "t")
        for i, (g, ratio) in enumerate(CANDIDATES)
    ]


def _inputs(model, samples):
    encoder = InputEncoder.from_config(model.tokenizer, model.config)
    batch = Collator(encoder, model.config.formats, "estimator")(samples)
    skip = ("labels", "group_ids", "format_ids", "sample_index")
    return encoder, {k: v for k, v in batch.items() if k not in skip}


def test_the_fit_separates_the_crashes():
    model = build_tiny_model(seed=3, **ON)
    encoder, inputs = _inputs(model, _samples())
    features, labels = exec_prior_rows(encoder, _samples(), model.config.formats)
    assert features.shape == (len(CANDIDATES) * 3, len(FEATURE_NAMES))  # three formats each
    assert labels.tolist() == [float(i not in CRASHES) for i in range(len(CANDIDATES))] * 3
    fit = fit_exec_prior(model, encoder, _samples(), model.config.formats)
    assert fit.rows == 18 and fit.executable == 9 and fit.train_auroc > 0.9
    assert model.exec_prior_weight.abs().sum() > 0
    with torch.no_grad():
        prior = model.exec_prior_logit(inputs["exact_features"])
    crash = torch.tensor([i in CRASHES for i in range(len(CANDIDATES))])
    for block in prior.view(3, len(CANDIDATES)):  # within each format, as the dev AUROC reads
        assert block[~crash].min() > block[crash].max()


def test_the_prior_moves_the_exec_output_only():
    model = build_tiny_model(seed=3, **ON)
    encoder, inputs = _inputs(model, _samples())
    fit_exec_prior(model, encoder, _samples(), model.config.formats)
    model.eval()
    with torch.no_grad():
        before = model(**inputs)
        model.exec_prior_weight.mul_(2.0)
        after = model(**inputs)
    torch.testing.assert_close(after.logits[:, 0], before.logits[:, 0])
    torch.testing.assert_close(after.trained_logits, before.trained_logits)
    assert not torch.allclose(after.logits[:, 1], before.logits[:, 1])


def test_structure_facts_feed_only_the_prior():
    model = build_tiny_model(seed=1, structure_features=True, **ON)
    hidden = 64
    assert model.config.feature_size == hidden + 2 * (3 * hidden + 1) + len(FEATURE_NAMES)
    assert model.config.exec_prior_width == len(FEATURE_NAMES) + len(STRUCTURE_FEATURES)
    assert model.exec_prior_weight.shape == (model.config.exec_prior_width,)
    encoder, _ = _inputs(model, _samples())
    fit = fit_exec_prior(model, encoder, _samples(), model.config.formats)
    assert fit.features == len(FEATURE_NAMES) + len(STRUCTURE_FEATURES)


def test_the_fit_travels_with_the_checkpoint(tmp_path):
    model = build_tiny_model(seed=2, **ON)
    encoder, _ = _inputs(model, _samples())
    fit_exec_prior(model, encoder, _samples(), model.config.formats)
    loaded = unice.load_model(export_checkpoint(model, model.tokenizer, tmp_path / "c"), "cpu")
    assert loaded.config.exec_prior
    torch.testing.assert_close(loaded.exec_prior_weight, model.exec_prior_weight)
    torch.testing.assert_close(loaded.exec_prior_bias, model.exec_prior_bias)
    kwargs = {"generated": [g for g, _ in CANDIDATES], "references": [REFERENCE] * 6,
              "nls": [NL] * 6}  # fmt: skip
    assert loaded.score(**kwargs) == model.eval().score(**kwargs)


def test_one_label_leaves_the_prior_at_zero():
    model = build_tiny_model(seed=2, **ON)
    samples = [s for s in _samples() if s.executable]
    encoder, _ = _inputs(model, samples)
    fit = fit_exec_prior(model, encoder, samples, model.config.formats)
    assert "same Exec label" in fit.describe()
    assert model.exec_prior_weight.abs().sum() == 0


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"architecture": "estimator", "exec_prior": True}, "needs exact_features=true"),
        (
            {"architecture": "estimator", "exact_features": True, "structure_features": True},
            "needs exec_prior=true",
        ),  # fmt: skip
    ],
)
def test_bad_combinations_say_what_they_need(overrides, message):
    with pytest.raises(ModelConfigError, match=message):
        build_tiny_model(**overrides)


def test_training_fits_the_prior_and_the_checkpoint_scores_alike(
    tiny_backbone, fixture_data, tmp_path, capsys, monkeypatch
):
    from unice.data.dataset import read_split
    from unice.training.evaluation import dev_metrics, predict
    from unice.training.loop import train

    from .conftest import compose, tiny_overrides

    cfg = compose(["+experiment=demo",
                   *tiny_overrides(tiny_backbone, fixture_data, tmp_path, **{
                       "trainer.max_steps": 2, "trainer.epochs": 1,
                       "trainer.group_size": 4})])  # fmt: skip
    assert cfg.model.exec_prior and cfg.model.structure_features  # demo.yaml's adopted arm
    metrics = train(cfg)
    assert "exec prior: logistic regression on" in capsys.readouterr().out
    loaded = unice.load_model(metrics["best_checkpoint"], device="cpu")
    assert loaded.config.exec_prior and loaded.exec_prior_weight.abs().sum() > 0
    dev = read_split(fixture_data, "dev")
    again = dev_metrics(predict(loaded, dev, loaded.tokenizer, batch_size=4), dev)
    assert again["exec_auroc"] == pytest.approx(metrics["best/exec_auroc"])
    # scripts/exec_parts.py reads the same output, and the two parts
    parts = _exec_parts(metrics["best_checkpoint"], fixture_data, monkeypatch, capsys)
    assert parts["model output"] == pytest.approx(metrics["best/exec_auroc"], abs=1e-4)
    assert parts.keys() == {"model output", "network alone", "fitted prior alone"}


def _exec_parts(checkpoint, folder, monkeypatch, capsys) -> dict[str, float]:
    """Run scripts/exec_parts.py's main on ``checkpoint``'s dev split; its table as a dict."""
    import sys

    from unice.testing import load_script

    module = load_script("exec_parts")
    monkeypatch.setattr(sys, "argv", ["exec_parts.py", str(checkpoint), str(folder), "dev"])
    capsys.readouterr()
    module.main()
    rows = [line.split("|") for line in capsys.readouterr().out.splitlines()]
    return {r[1].strip(): float(r[2]) for r in rows if len(r) == 4 and r[2].strip()[:1].isdigit()}


def test_the_ensemble_leaves_the_network_as_the_run_without_the_prior():
    """Same seed, same weights (nothing zeroed, no scale); the loss reads the network's logits,
    so training is the plain run's; only the Exec output is the average of two probabilities."""
    plain = build_tiny_model(seed=3, architecture="estimator", exact_features=True)
    model = build_tiny_model(seed=3, **ON)
    weights = dict(model.named_parameters())
    assert weights.keys() == dict(plain.named_parameters()).keys()
    for name, value in plain.named_parameters():
        torch.testing.assert_close(weights[name], value, msg=name)
    encoder, inputs = _inputs(model, _samples())
    fit_exec_prior(model, encoder, _samples(), model.config.formats)
    plain.eval(), model.eval()
    with torch.no_grad():
        alone, out = plain(**inputs), model(**inputs)
        prior = model.exec_prior_logit(inputs["exact_features"])
    torch.testing.assert_close(out.trained_logits, alone.logits)
    torch.testing.assert_close(out.logits[:, 0], alone.logits[:, 0])
    average = (torch.sigmoid(alone.logits[:, 1]) + torch.sigmoid(prior)) / 2
    torch.testing.assert_close(torch.sigmoid(out.logits[:, 1]), average)
    assert not torch.allclose(out.logits[:, 1], alone.logits[:, 1])


def test_the_training_loss_reads_the_networks_logits():
    from unice.training.batch_loss import batch_loss

    plain = build_tiny_model(seed=4, architecture="estimator", exact_features=True)
    model = build_tiny_model(seed=4, **ON)
    encoder = InputEncoder.from_config(model.tokenizer, model.config)
    fit_exec_prior(model, encoder, _samples(), model.config.formats)
    batch = Collator(encoder, model.config.formats, "estimator")(_samples())
    plain.eval(), model.eval()
    with torch.no_grad():
        ours, _ = batch_loss(model, batch, model.config.loss_weights)
        theirs, _ = batch_loss(plain, batch, plain.config.loss_weights)
        labelled = model(
            **_inputs(model, _samples())[1], labels=batch["labels"][batch["sample_index"]]
        )
    torch.testing.assert_close(ours, theirs)
    assert torch.isfinite(labelled.loss)


def test_the_ensemble_logit_stays_finite_where_a_probability_rounds_to_one():
    from unice.modeling.estimator import ensemble_logit

    big = torch.tensor([40.0, -40.0, 0.0])
    fused = ensemble_logit(big, torch.tensor([40.0, -40.0, 0.0]))
    torch.testing.assert_close(fused, torch.tensor([40.0, -40.0, 0.0]))
    mixed = ensemble_logit(torch.tensor([40.0]), torch.tensor([-40.0]))
    torch.testing.assert_close(mixed, torch.tensor([0.0]), atol=1e-5, rtol=0)


def test_the_retired_start_mode_is_refused_naming_the_last_commit_with_it():
    with pytest.raises(ModelConfigError, match=f"exec_prior_mode='start': .*{ISSUE_27_ARMS_AT}"):
        build_tiny_model(**{**ON, "exec_prior_mode": "start"})
    with pytest.raises(ModelConfigError, match=f"exec_prior_mode='vote': .*{ISSUE_27_ARMS_AT}"):
        build_tiny_model(**{**ON, "exec_prior_mode": "vote"})
    # the value every checkpoint without the prior saved, and the adopted one, still load
    build_tiny_model(architecture="estimator", exact_features=True, exec_prior_mode="start")
    assert build_tiny_model(**{**ON, "exec_prior_mode": "ensemble"}).config.exec_prior
