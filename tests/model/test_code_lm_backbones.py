"""Causal code LMs as frozen backbones: the hub configs (Qwen2.5-Coder, DeepSeek-Coder) and the
offline SmolLM2 one compose and train on a tiny random model of the same architecture."""

from __future__ import annotations

import pytest
import torch

import unice
from unice.data.encoding import Separators
from unice.modeling.build import build_model
from unice.testing import save_tiny_causal_lm

from .conftest import compose, tiny_overrides

ARCHITECTURES = {"qwen25_coder": "qwen2", "deepseek_coder": "llama", "smollm2": "llama"}


@pytest.mark.parametrize("config_name", sorted(ARCHITECTURES))
def test_code_lm_config_trains_frozen_on_a_tiny_model_of_its_architecture(
    config_name, fixture_data, tmp_path
):
    from unice.training.loop import train

    backbone = save_tiny_causal_lm(tmp_path / "lm", ARCHITECTURES[config_name])
    overrides = tiny_overrides(
        backbone, fixture_data, tmp_path / "run", **{"trainer.epochs": 1,
                                                    "trainer.feature_cache": "none"}
    )  # fmt: skip
    cfg = compose([f"model={config_name}", *overrides])
    assert cfg.model.freeze_encoder and cfg.model.architecture == "estimator"
    assert cfg.model.standardize_states  # a decoder LM's raw states all point one way (arm D2)
    metrics = train(cfg)
    model = unice.load_model(metrics["best_checkpoint"], device="cpu")
    assert model.config.encoder.model_type == ARCHITECTURES[config_name]
    assert not torch.all(model.state_std == 1)  # the statistics were fitted and saved
    rows = model.score(generated=["    return a + b\n"], references=["    return a + b\n"],
                       nls=["def add(a, b):\n"])  # fmt: skip
    assert 0.0 <= rows[0]["codescore"] <= 1.0


def test_a_tokenizer_without_bos_or_pad_still_builds_inputs(tmp_path):
    folder = save_tiny_causal_lm(tmp_path / "qwen", "qwen2")
    model, tokenizer = build_model(
        str(folder), architecture="estimator", pooling="last", freeze_encoder=True,
        hidden_sizes=[16], max_length=64,
    )  # fmt: skip
    separators = Separators.from_tokenizer(tokenizer)
    assert separators.prefix == () and separators.suffix == (tokenizer.eos_token_id,)
    assert tokenizer.pad_token == tokenizer.eos_token  # padded with EOS, masked anyway
    assert not any(p.requires_grad for p in model.encoder.parameters())
    scores = model.eval().score(generated=["    return 1\n", "    return 2\n"],
                                references=["    return 1\n"] * 2, nls=["def f():\n"] * 2)  # fmt: skip
    assert scores[0]["codescore"] != scores[1]["codescore"]
    assert torch.isfinite(torch.tensor([s["codescore"] for s in scores])).all()


def test_smollm2_names_the_offline_code_lm(monkeypatch):
    from unice import backbones

    monkeypatch.setattr(backbones, "offline_code_lm_path", lambda: "/prepared/smollm2")
    assert backbones.resolve_backbone("smollm2") == "/prepared/smollm2"
