"""Config validation, the scalar mix, the head's logits and the loss terms."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from unice.modeling import UniCEConfig
from unice.modeling.layerwise_attention import ScalarMix
from unice.modeling.loss import format_loss, unified_loss


def test_scalar_mix_on_known_inputs():
    mix = ScalarMix(3)
    states = [torch.full((1, 2, 4), value) for value in (1.0, 2.0, 6.0)]
    mask = torch.ones(1, 2)
    assert torch.allclose(mix(states, mask), torch.full((1, 2, 4), 3.0))  # equal weights: mean
    with torch.no_grad():
        mix.scalars.copy_(torch.tensor([0.0, math.log(2.0), math.log(5.0)]))  # softmax 1/8,2/8,5/8
        mix.gamma.fill_(2.0)
    expected = 2.0 * (1.0 / 8 + 2.0 * 2 / 8 + 6.0 * 5 / 8)
    assert torch.allclose(mix(states, mask), torch.full((1, 2, 4), expected))


def test_scalar_mix_layer_dropout_only_in_training():
    torch.manual_seed(0)
    mix = ScalarMix(4, layer_dropout=0.5)
    mix.train()
    weights = torch.stack([mix.weights() for _ in range(50)])
    assert (weights == 0).any()  # some layers dropped
    assert torch.allclose(weights.sum(dim=1), torch.ones(50))  # still a distribution
    mix.eval()
    assert torch.allclose(mix.weights(), torch.full((4,), 0.25))


def test_scalar_mix_layer_norm_ignores_padding():
    mix = ScalarMix(1, layer_norm=True)
    states = torch.randn(2, 5, 8)
    padded = states.clone()
    padded[1, 3:] = 1000.0  # padding junk must not change the real tokens' result
    mask = torch.tensor([[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]])
    out_a = mix([states], mask)[1, :3]
    out_b = mix([padded], mask)[1, :3]
    assert torch.allclose(out_a, out_b, atol=1e-5)


def test_model_outputs_unbounded_logits_for_each_head(tiny_model, tiny_tokenizer):
    batch = tiny_tokenizer(["x = 1", "def f(x):\n    return x"], padding=True, return_tensors="pt")
    with torch.no_grad():
        tiny_model.head.net[-1].bias.copy_(torch.tensor([5.0, -5.0]))
        out = tiny_model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
    assert out.logits.shape == (2, 2)
    assert out.sentence_embedding.shape == (2, 64)
    assert out.loss is None
    assert out.logits[:, 0].min() > 1.0 and out.logits[:, 1].max() < -1.0  # raw, not sigmoided


def test_model_loss_when_labels_given(tiny_model, tiny_tokenizer):
    batch = tiny_tokenizer(["x = 1", "y = 2"], padding=True, return_tensors="pt")
    labels = torch.tensor([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])
    out = tiny_model(**batch, labels=labels)
    assert out.loss.ndim == 0 and out.loss.requires_grad


def test_format_loss_terms():
    logits = torch.tensor([[0.0, 2.0, -1.0], [1.0, -3.0, 0.5]])
    labels = torch.tensor([[0.5, 1.0, 0.0], [0.2, 0.0, 1.0]])
    weights = {"pass_ratio": 0.4, "executable": 0.3, "passed": 0.3}
    total, terms = format_loss(logits, labels, weights)
    mse = F.mse_loss(torch.sigmoid(logits[:, 0]), labels[:, 0])
    bce_exec = F.binary_cross_entropy(torch.sigmoid(logits[:, 1]), labels[:, 1])
    bce_pass = F.binary_cross_entropy(torch.sigmoid(logits[:, 2]), labels[:, 2])
    assert torch.allclose(terms["pass_ratio"], mse)
    assert torch.allclose(terms["executable"], bce_exec, atol=1e-6)
    assert torch.allclose(total, 0.4 * mse + 0.3 * bce_exec + 0.3 * bce_pass, atol=1e-6)
    _, no_pass = format_loss(logits, labels, {"pass_ratio": 1.0, "executable": 1.0})
    assert "passed" not in no_pass


def test_unified_loss_sums_present_formats_only():
    weights = {"pass_ratio": 1.0, "executable": 1.0}
    a = (torch.zeros(2, 3), torch.tensor([[1.0, 1.0, 1.0], [0.0, 0.0, 0.0]]))
    b = (torch.ones(1, 3), torch.tensor([[1.0, 1.0, 1.0]]))
    empty = (torch.zeros(0, 3), torch.zeros(0, 3))
    total, logs = unified_loss({"ref": a, "nl": b, "ref_nl": empty}, weights)
    expected = format_loss(*a, weights)[0] + format_loss(*b, weights)[0]
    assert torch.allclose(total, expected)
    assert set(k for k in logs if k.startswith("loss_")) == {"loss_ref", "loss_nl"}
    with pytest.raises(ValueError, match="no input format"):
        unified_loss({"ref": empty}, weights)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"activation": "swish"}, "choose one of tanh, gelu, relu"),
        ({"formats": ["ref", "code"]}, "choose one of ref, nl, ref_nl"),
        ({"token_types": "yes"}, "choose one of auto, segments, none"),
        ({"num_outputs": 4}, "choose 2 or 3"),
        ({"dropout": 1.5}, "must be in"),
        ({"loss_weights": {"bleu": 1.0}}, "choose one of pass_ratio, executable, passed"),
    ],
)
def test_config_validation_names_allowed_values(kwargs, message):
    with pytest.raises(ValueError, match=message):
        UniCEConfig(**kwargs)


def test_config_round_trips_with_embedded_encoder(tmp_path, tiny_model):
    tiny_model.config.save_pretrained(tmp_path)
    loaded = UniCEConfig.from_pretrained(tmp_path)
    assert loaded.encoder.model_type == "roberta"
    assert loaded.encoder.hidden_size == 64 and loaded.encoder.num_hidden_layers == 2
    assert loaded.hidden_sizes == [64, 32]
