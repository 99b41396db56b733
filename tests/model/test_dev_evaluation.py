"""Dev metrics during training score through the public API: the same numbers users get."""

from __future__ import annotations

import numpy as np

from unice.data.dataset import Sample
from unice.scoring import score
from unice.training.evaluation import dev_metrics, predict


def _samples() -> list[Sample]:
    programs = ["def f(x):\n    return x + 1\n", "def f(x):\n    return x\n", "print(1)\n"]
    return [
        Sample(
            f"s{i}", code, "def f(x):\n    return x + 1\n", "add one", ratio, ratio > 0, ratio == 1
        )
        for i, (code, ratio) in enumerate(zip(programs, [1.0, 0.5, 0.0], strict=True))
    ]


def test_predict_is_the_public_score(tiny_model, tiny_tokenizer) -> None:
    samples = _samples()
    predictions = predict(tiny_model, samples, tiny_tokenizer, batch_size=2)
    rows = score(
        tiny_model,
        generated=[s.generated for s in samples],
        references=[s.reference for s in samples],
        nls=[s.nl for s in samples],
        tokenizer=tiny_tokenizer,
    )
    assert np.allclose(predictions["codescore"], [r["codescore"] for r in rows], atol=1e-6)
    assert np.allclose(predictions["exec_prob"], [r["exec_prob"] for r in rows], atol=1e-6)
    for fmt in ("ref", "nl", "ref_nl"):
        expected = [r[f"codescore_{fmt}"] for r in rows]
        assert np.allclose(predictions[f"codescore_{fmt}"], expected, atol=1e-6)
    metrics = dev_metrics(predictions, samples)
    assert metrics["samples"] == 3
    assert {"spearman", "exec_accuracy", "spearman_ref", "spearman_nl"} <= set(metrics)
