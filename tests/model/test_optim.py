"""Optimizer groups: each parameter exactly once, LRs rising with depth, embeddings included."""

from __future__ import annotations

from unice.training.optim import OptimConfig, encoder_depth, parameter_groups


def test_every_parameter_in_exactly_one_group(tiny_model):
    groups = parameter_groups(tiny_model, OptimConfig())
    seen = [id(p) for group in groups for p in group["params"]]
    assert len(seen) == len(set(seen))
    assert set(seen) == {id(p) for p in tiny_model.parameters()}


def test_learning_rates_increase_with_depth(tiny_model):
    cfg = OptimConfig(lr_encoder=1e-4, lr_head=1e-3, layer_decay=0.5)
    groups = parameter_groups(tiny_model, cfg)
    by_depth = {}
    for group in groups:
        if group["name"].startswith("encoder."):
            depth = int(group["name"].split("depth")[1][:2])
            by_depth[depth] = group["lr"]
    assert sorted(by_depth) == [0, 1, 2]  # embeddings, layer 0, layer 1 all train
    rates = [by_depth[d] for d in sorted(by_depth)]
    assert rates == sorted(rates) and len(set(rates)) == 3
    assert rates[-1] == cfg.lr_encoder * cfg.layer_decay  # top layer: depth 2 of 3
    head = [g for g in groups if g["name"].startswith("head")]
    assert head and all(g["lr"] == cfg.lr_head for g in head)
    mix = {id(tiny_model.layerwise.scalars), id(tiny_model.layerwise.gamma)}
    assert mix <= {id(p) for g in head for p in g["params"]}


def test_no_weight_decay_on_biases_and_norms(tiny_model):
    groups = parameter_groups(tiny_model, OptimConfig(weight_decay=0.1))
    names = {id(p): n for n, p in tiny_model.named_parameters()}
    for group in groups:
        for param in group["params"]:
            name = names[id(param)]
            if name.endswith("bias") or "LayerNorm" in name:
                assert group["weight_decay"] == 0.0, name


def test_encoder_depth_names():
    assert encoder_depth("embeddings.word_embeddings.weight", 12) == 0
    assert encoder_depth("encoder.layer.0.attention.self.query.weight", 12) == 1
    assert encoder_depth("encoder.layer.11.output.dense.weight", 12) == 12
    assert encoder_depth("layers.3.mlp.weight", 12) == 4
    assert encoder_depth("norm.weight", 12) == 13
