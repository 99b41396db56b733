"""``freeze_encoder`` and its feature cache: cached scores equal the uncached frozen path,
which equals the plain encoder -> mix -> pool path; the cache persists, is keyed by the
encoder's weights, and training with it never touches the encoder."""

from __future__ import annotations

import pytest
import torch
from safetensors.torch import load_file

import unice
import unice.scoring
from unice.errors import ModelConfigError
from unice.modeling.feature_cache import FeatureCache, weights_digest
from unice.modeling.frozen_encoder import pool
from unice.testing import build_tiny_model

from .conftest import compose, tiny_overrides

GENERATED = [
    "    return a + b\n",
    "    total = 0\n    for x in range(a, b):\n        total += x * x - a\n    return total\n",
    "    return max(a, b)\n",
    "    if a > b:\n        return a - b\n    return b - a\n",
]
REFERENCE = "    return a + b\n"
NL = "def add(a, b):\n    '''Sum of a and b.'''\n"
KWARGS = {"generated": GENERATED, "references": [REFERENCE] * 4, "nls": [NL] * 4}
KEYS = ("codescore_ref_nl", "codescore_ref", "codescore_nl", "exec_prob_nl")


def _frozen(pooling: str = "mean", architecture: str = "estimator", seed: int = 4):
    model = build_tiny_model(
        seed=seed, architecture=architecture, pooling=pooling, freeze_encoder=True
    )
    return model.eval()


@pytest.mark.parametrize("pooling", ["mean", "first", "last"])
def test_mixing_pooled_layers_equals_pooling_the_mixed_states(pooling: str):
    model = _frozen(pooling)
    model.layerwise.scalars.data = torch.tensor([0.3, -1.0, 0.7])  # not the plain mean
    ids = torch.tensor([[0, 5, 9, 12, 2, 1, 1], [0, 7, 8, 2, 1, 1, 1]])
    mask = (ids != 1).long()
    states = model._hidden_states(ids, mask)
    expected = pool(model.layerwise(states, mask), mask, pooling)
    torch.testing.assert_close(model._embed(ids, mask), expected, atol=1e-6, rtol=1e-5)


@pytest.mark.parametrize("architecture", ["estimator", "cross"])
def test_cached_scores_equal_the_uncached_frozen_path(architecture: str, tmp_path):
    model = _frozen(architecture=architecture)
    uncached = unice.scoring.score(model, **KWARGS)
    cache = FeatureCache(tmp_path, FeatureCache.namespace_of(model.encoder, "mean"))
    model.use_feature_cache(cache)
    first = unice.scoring.score(model, **KWARGS)  # fills the cache
    assert cache.misses > 0 and len(cache) == cache.misses
    second = unice.scoring.score(model, **KWARGS)  # every input read back
    assert cache.hits == cache.misses
    for a, b, c in zip(uncached, first, second, strict=True):
        for key in KEYS:
            assert b[key] == pytest.approx(a[key], abs=2e-6)
            assert c[key] == b[key]


def test_the_cache_persists_and_is_keyed_by_the_weights(tmp_path):
    model = _frozen()
    namespace = FeatureCache.namespace_of(model.encoder, "mean")
    cache = FeatureCache(tmp_path, namespace, flush_every=1)
    model.use_feature_cache(cache)
    scores = unice.scoring.score(model, **KWARGS)
    reopened = FeatureCache(tmp_path, namespace)  # another process: reads the chunk files
    assert len(reopened) == len(cache) > 0
    model.use_feature_cache(reopened)
    assert unice.scoring.score(model, **KWARGS) == scores
    assert reopened.misses == 0
    other = _frozen(seed=9)  # other weights: another namespace, nothing shared
    assert weights_digest(other.encoder) != weights_digest(model.encoder)
    assert FeatureCache.namespace_of(other.encoder, "mean") != namespace
    assert FeatureCache.namespace_of(model.encoder, "first") != namespace


def test_a_half_written_chunk_is_never_read(tmp_path):
    model = _frozen()
    namespace = FeatureCache.namespace_of(model.encoder, "mean")
    (tmp_path / namespace).mkdir()
    (tmp_path / namespace / "tmpabc.tmp").write_bytes(b"partial")  # an interrupted flush
    assert len(FeatureCache(tmp_path, namespace)) == 0


def test_freeze_encoder_needs_a_linear_mix_and_a_cache_needs_a_frozen_encoder():
    with pytest.raises(ModelConfigError, match="layer_norm=false"):
        build_tiny_model(freeze_encoder=True, layer_norm=True)
    model = build_tiny_model(architecture="estimator")
    with pytest.raises(ValueError, match="freeze_encoder"):
        model.use_feature_cache(FeatureCache(None, "x"))


def test_a_frozen_encoder_stays_in_eval_mode_and_gets_no_gradient():
    model = build_tiny_model(seed=1, architecture="estimator", freeze_encoder=True).train()
    assert not model.encoder.training and model.head.training
    assert not any(p.requires_grad for p in model.encoder.parameters())


def test_training_a_frozen_encoder_fills_the_cache_once(
    tiny_backbone, fixture_data, tmp_path, capsys
):
    from unice.training.loop import train

    folder = tmp_path / "features"
    extra = {
        "model.architecture": "estimator",
        "model.pooling": "mean",
        "model.freeze_encoder": "true",
        "trainer.epochs": 1,
        "trainer.feature_cache": str(folder),
    }
    metrics = train(compose(tiny_overrides(tiny_backbone, fixture_data, tmp_path / "a", **extra)))
    first = capsys.readouterr().out
    assert "read from the cache" in first and " 0 read from the cache" in first
    tuned = unice.load_model(metrics["best_checkpoint"], device="cpu")
    assert tuned.config.freeze_encoder
    start = load_file(tiny_backbone / "model.safetensors")
    for name, param in tuned.encoder.named_parameters():
        assert torch.equal(param, start[name]), name  # the encoder never trained
    assert tuned.layerwise.scalars.abs().sum() > 0  # the mix and the head did
    # another seed reads every input from the cache: nothing is encoded again
    again = tiny_overrides(tiny_backbone, fixture_data, tmp_path / "b", **extra)
    train(compose([*again, "seed=13"]))
    second = capsys.readouterr().out
    assert "frozen encoder: 0 inputs encoded" in second
