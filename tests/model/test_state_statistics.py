"""``standardize_states``: a frozen encoder's pooled states read per dimension as
``(x - mean) / std`` of the training texts', fitted before the first step, saved with the
weights, refused without a frozen encoder."""

from __future__ import annotations

import pytest
import torch

import unice
import unice.scoring
from unice.data.dataset import Collator, Sample
from unice.data.encoding import InputEncoder
from unice.errors import ModelConfigError
from unice.modeling.frozen_encoder import input_keys
from unice.testing import build_tiny_model
from unice.training.feature_cache import encoder_inputs
from unice.training.state_statistics import fit_state_statistics

from .conftest import compose, tiny_overrides

PROGRAMS = [
    "    return a + b\n",
    "    return a - b\n",
    "    total = 0\n    for x in range(a, b):\n        total += x\n    return total\n",
    "    return max(a, b)\n",
    "    if a > b:\n        return a - b\n    return b - a\n",
]
REFERENCE = "    return a + b\n"
NL = "def add(a, b):\n    '''Sum of a and b.'''\n"


def _samples() -> list[Sample]:
    return [
        Sample(
            id=str(i),
            generated=g,
            reference=REFERENCE,
            nl=NL,
            pass_ratio=float(i == 0),
            executable=True,
            passed=i == 0,
            task_id=f"t/{i % 2}",
        )  # fmt: skip
        for i, g in enumerate(PROGRAMS)
    ]


def _standardized(seed: int = 3):
    model = build_tiny_model(
        seed=seed, architecture="estimator", pooling="mean", freeze_encoder=True,
        standardize_states=True,
    )  # fmt: skip
    encoder = InputEncoder.from_config(model.tokenizer, model.config)
    return model, Collator(encoder, model.config.formats, model.config.architecture)


def test_the_fit_makes_the_training_texts_states_standard() -> None:
    model, collator = _standardized()
    samples = _samples()
    assert torch.equal(model.state_mean, torch.zeros_like(model.state_mean))  # identity until fit
    assert torch.equal(model.state_std, torch.ones_like(model.state_std))
    fit = fit_state_statistics(model, collator, samples, batch_size=2)
    # every distinct text once, whatever the batches: 5 programs (the first is the reference
    # itself) and the NL
    ids, mask, types = encoder_inputs(collator(samples), torch.device("cpu"))
    assert fit.texts == len(set(input_keys(ids, mask, types))) == 6
    states = model.frozen_layers(ids, mask, types)
    standard = (states - model.state_mean) / model.state_std
    torch.testing.assert_close(
        standard.mean(dim=0), torch.zeros_like(model.state_mean), atol=1e-5, rtol=0
    )
    varying = states.std(dim=0) > 1e-4
    torch.testing.assert_close(
        standard.std(dim=0, unbiased=False)[varying],
        torch.ones(int(varying.sum())),
        atol=1e-4,
        rtol=0,
    )


def test_the_model_reads_standardised_states() -> None:
    model, collator = _standardized()
    fit_state_statistics(model, collator, _samples(), batch_size=8)
    model.eval()  # no layer dropout in the mix
    ids, mask, _ = encoder_inputs(collator(_samples()), torch.device("cpu"))
    layers = model.frozen_layers(ids, mask)
    expected = model.layerwise.mix_pooled((layers - model.state_mean) / model.state_std)
    torch.testing.assert_close(model._embed(ids, mask), expected)
    model.state_std.fill_(2.0)  # the buffers are what it reads
    assert not torch.allclose(model._embed(ids, mask), expected)


def test_standardize_states_needs_a_frozen_encoder() -> None:
    with pytest.raises(ModelConfigError, match="freeze_encoder=true"):
        build_tiny_model(architecture="estimator", standardize_states=True)


def test_training_fits_the_statistics_and_the_checkpoint_keeps_them(
    tiny_backbone, fixture_data, tmp_path, capsys
) -> None:
    from unice.training.loop import train

    extra = {
        "model.architecture": "estimator",
        "model.pooling": "mean",
        "model.freeze_encoder": "true",
        "model.standardize_states": "true",
        "trainer.epochs": 1,
        "trainer.feature_cache": "none",
    }
    metrics = train(compose(tiny_overrides(tiny_backbone, fixture_data, tmp_path, **extra)))
    assert "state statistics:" in capsys.readouterr().out
    tuned = unice.load_model(metrics["best_checkpoint"], device="cpu")
    assert tuned.config.standardize_states
    assert tuned.state_mean.abs().sum() > 0 and not torch.all(tuned.state_std == 1)
    kwargs = {"generated": PROGRAMS[:2], "references": [REFERENCE] * 2, "nls": [NL] * 2}
    reloaded = unice.load_model(metrics["best_checkpoint"], device="cpu")
    assert unice.scoring.score(tuned, **kwargs) == unice.scoring.score(reloaded, **kwargs)
