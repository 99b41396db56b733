"""Dev metrics during training score through the public API: the same numbers users get."""

from __future__ import annotations

import numpy as np
import torch

from unice.data.dataset import Sample
from unice.data.encoding import InputEncoder
from unice.training.evaluation import dev_metrics, predict


def _samples() -> list[Sample]:
    programs = ["def f(x):\n    return x + 1\n", "def f(x):\n    return x\n", "print(1)\n"]
    return [
        Sample(
            f"s{i}", code, "def f(x):\n    return x + 1\n", "add one", ratio, ratio > 0, ratio == 1
        )
        for i, (code, ratio) in enumerate(zip(programs, [1.0, 0.5, 0.0], strict=True))
    ]


def test_predict_is_the_models_sigmoid_on_each_encoded_format(tiny_model, tiny_tokenizer) -> None:
    """Dev predictions are what a forward pass of each format gives, averaged over formats."""
    samples = _samples()
    predictions = predict(tiny_model, samples, tiny_tokenizer, batch_size=2)
    encoder = InputEncoder.from_config(tiny_tokenizer, tiny_model.config)
    encoded = encoder.encode_formats(
        [s.generated for s in samples], [s.reference for s in samples], [s.nl for s in samples]
    )
    tiny_model.eval()
    per_format = {}
    for fmt, (index, batch) in encoded.items():
        with torch.no_grad():
            logits = tiny_model(**{k: torch.tensor(v) for k, v in batch.items()}).logits
        per_format[fmt] = torch.sigmoid(logits[:, 0]).numpy()
        assert np.allclose(predictions[f"codescore_{fmt}"][index], per_format[fmt], atol=1e-5)
    mean = np.mean(np.stack(list(per_format.values())), axis=0)
    assert np.allclose(predictions["codescore"], mean, atol=1e-5)
    metrics = dev_metrics(predictions, samples)
    assert metrics["samples"] == 3
    assert {"example_spearman", "exec_auroc", "spearman", "spearman_ref"} <= set(metrics)
