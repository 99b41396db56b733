"""``trainable_top_layers``: a frozen decoder LM whose top layers train on cached token states.
The cached path gives the states a full forward gives; only the top layers (and the final norm)
get gradients and change in training; the cache is keyed by the frozen part alone; bad settings
are refused with a message naming the fix."""

from __future__ import annotations

import pytest
import torch

import unice
import unice.scoring
from unice.errors import ModelConfigError
from unice.modeling.build import build_model
from unice.modeling.feature_cache import FeatureCache
from unice.modeling.top_layers import run_top_layers
from unice.testing import build_tiny_model, save_tiny_causal_lm

from .conftest import compose, tiny_overrides

TEXTS = [
    "def add(a, b):\n    return a + b\n",
    "x = 1",
    "    total = 0\n    for x in range(a, b):\n        total += x * x - a\n    return total\n",
]
KWARGS = {
    "generated": ["    return a + b\n", "    return a - b\n", "    return max(a, b)\n"],
    "references": ["    return a + b\n"] * 3,
    "nls": ["def add(a, b):\n    '''Sum of a and b.'''\n"] * 3,
}
SETTINGS = {
    "architecture": "estimator",
    "pooling": "mean",
    "freeze_encoder": True,
    "hidden_sizes": [16],
    "max_length": 64,
}


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    return save_tiny_causal_lm(tmp_path_factory.mktemp("llama"), "llama")


def _inputs(tokenizer):
    batch = tokenizer(TEXTS, padding=True, return_tensors="pt")  # rows of different lengths
    return batch["input_ids"], batch["attention_mask"]


@pytest.mark.parametrize("buckets", [1, 3])
def test_top_layers_on_cached_tokens_equal_the_full_forward(tiny_llama, buckets):
    frozen, tokenizer = build_model(str(tiny_llama), **SETTINGS)
    top, _ = build_model(
        str(tiny_llama), trainable_top_layers=1, length_buckets=buckets, **SETTINGS
    )
    ids, mask = _inputs(tokenizer)
    expected = frozen.frozen_layers(ids, mask)  # every layer pooled from one full forward
    top.use_feature_cache(FeatureCache(None, top.cache_namespace()))
    first = top.encoder_layers(ids, mask)  # encodes, caches the tokens entering layer 1
    second = top.encoder_layers(ids, mask)  # from the cache: only the top layer runs
    assert top.feature_cache.hits == len(TEXTS)
    torch.testing.assert_close(first, expected, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(second, expected, atol=1e-5, rtol=1e-5)


def test_run_top_layers_reproduces_the_models_own_hidden_states(tiny_llama):
    model, tokenizer = build_model(str(tiny_llama), **SETTINGS)
    ids, mask = _inputs(tokenizer)
    states = model.encoder(ids, attention_mask=mask, output_hidden_states=True).hidden_states
    (last,) = run_top_layers(model.encoder, 1, states[1], mask)
    real = mask.bool()
    torch.testing.assert_close(last[real], states[2][real], atol=1e-5, rtol=1e-5)


def test_only_the_top_layers_and_final_norm_train(tiny_llama):
    model, tokenizer = build_model(str(tiny_llama), trainable_top_layers=1, **SETTINGS)
    trained = {name for name, p in model.encoder.named_parameters() if p.requires_grad}
    assert trained and all(name.startswith(("layers.1.", "norm.")) for name in trained)
    model.encoder_layers(*_inputs(tokenizer)).square().sum().backward()
    with_grad = {name for name, p in model.encoder.named_parameters() if p.grad is not None}
    assert with_grad == trained


def test_the_cache_namespace_ignores_the_trained_layers_only(tiny_llama):
    model, _ = build_model(str(tiny_llama), trainable_top_layers=1, **SETTINGS)
    before = model.cache_namespace()
    with torch.no_grad():
        model.encoder.layers[1].mlp.up_proj.weight.add_(1.0)
        model.encoder.norm.weight.mul_(2.0)
    assert model.cache_namespace() == before  # training the top never invalidates the cache
    with torch.no_grad():
        model.encoder.layers[0].mlp.up_proj.weight.add_(1.0)
    assert model.cache_namespace() != before
    frozen, _ = build_model(str(tiny_llama), **SETTINGS)
    assert frozen.cache_namespace() != before  # another entry layout, another folder


def test_token_entries_persist_on_disk(tiny_llama, tmp_path):
    model, tokenizer = build_model(str(tiny_llama), trainable_top_layers=1, **SETTINGS)
    ids, mask = _inputs(tokenizer)
    cache = FeatureCache(tmp_path, model.cache_namespace())
    model.use_feature_cache(cache)
    expected = model.frozen_layers(ids, mask)
    cache.flush()
    reopened = FeatureCache(tmp_path, model.cache_namespace())
    assert len(reopened) == len(TEXTS)
    lengths = sorted(len(state) for state in reopened._states.values())
    assert lengths == sorted(int(n) + 2 for n in mask.sum(dim=1))  # 2 pooled layers + tokens
    model.use_feature_cache(reopened)
    torch.testing.assert_close(model.frozen_layers(ids, mask), expected)
    assert reopened.hits == len(TEXTS) and reopened.misses == 0


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"freeze_encoder": False, "trainable_top_layers": 1}, "needs freeze_encoder=true"),
        ({"trainable_top_layers": -1}, "must be >= 0"),
        ({"trainable_top_layers": 2}, "between 1 and 1"),
    ],
)
def test_bad_settings_are_refused_naming_the_fix(tiny_llama, settings, message):
    with pytest.raises(ModelConfigError, match=message):
        build_model(str(tiny_llama), **{**SETTINGS, **settings})


def test_an_encoder_without_a_decoder_stack_is_refused():
    with pytest.raises(ModelConfigError, match="model=smollm2"):
        build_tiny_model(architecture="estimator", freeze_encoder=True, trainable_top_layers=1)


def test_training_moves_the_top_layer_only_and_the_checkpoint_scores_alike(
    tiny_llama, fixture_data, tmp_path
):
    from unice.training.loop import train

    overrides = tiny_overrides(
        tiny_llama, fixture_data, tmp_path / "run", **{"trainer.epochs": 1,
                                                      "trainer.feature_cache": "none"}
    )  # fmt: skip
    cfg = compose(["model=smollm2", "model.trainable_top_layers=1", *overrides])
    initial, _ = build_model(str(tiny_llama), **SETTINGS)
    metrics = train(cfg)
    model = unice.load_model(metrics["best_checkpoint"], device="cpu").eval()
    assert model.config.trainable_top_layers == 1
    weights = dict(model.encoder.named_parameters())
    for name, before in initial.encoder.named_parameters():
        moved = not torch.equal(weights[name], before)
        assert moved == name.startswith(("layers.1.", "norm.")), name
    uncached = unice.scoring.score(model, **KWARGS)
    model.use_feature_cache(FeatureCache(None, model.cache_namespace()))
    cached = unice.scoring.score(model, **KWARGS)
    for a, b in zip(uncached, cached, strict=True):
        assert a["codescore_ref_nl"] == pytest.approx(b["codescore_ref_nl"], abs=1e-6)
