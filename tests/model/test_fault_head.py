"""The fault head: an auxiliary output predicting each program's status mix (CodeRanker's
fault-aware targets), trained beside L_Uni; scores keep their meaning."""

from __future__ import annotations

import pytest
import torch

from unice.data.dataset import Collator, _to_sample, fault_mix
from unice.data.encoding import InputEncoder
from unice.errors import ModelConfigError
from unice.modeling.configuration import FAULT_CLASSES
from unice.modeling.loss import fault_loss
from unice.testing import build_tiny_model
from unice.training.loop import batch_loss

WEIGHTS = {"pass_ratio": 1.0, "executable": 1.0, "ranking": 1.0, "faults": 1.0}


def _row(i: int, counts: dict | None) -> dict:
    row = {
        "id": f"T/{i // 2}::samples::{i}",
        "task_id": f"T/{i // 2}",
        "generated": f"    return a + {i}\n",
        "reference": "    return a + b\n",
        "nl": "def f(a, b):\n",
        "pass_ratio": 0.5,
        "executable": True,
        "passed": False,
    }
    if counts is not None:
        row["status_counts"] = counts
    return row


def test_status_counts_become_shares_of_the_fault_classes():
    counts = {"pass": 2, "wrong_answer": 1, "runtime_error": 3, "signal": 1, "memory": 1,
              "timeout": 2, "compile_error": 0}  # fmt: skip
    mix = fault_mix(counts)
    assert mix == pytest.approx([0.2, 0.1, 0.5, 0.2, 0.0])
    assert fault_mix(None) == () and fault_mix({"pass": 0}) == ()
    assert _to_sample(_row(0, None), "x").fault_targets() == [0.0] * len(FAULT_CLASSES)


def test_fault_loss_is_cross_entropy_and_skips_rows_without_a_mix():
    logits = torch.tensor([[2.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 9.0]])
    targets = torch.tensor([[1.0, 0.0, 0.0, 0.0, 0.0], [0.0] * 5])
    expected = -torch.log_softmax(logits[0], dim=-1)[0]
    torch.testing.assert_close(fault_loss(logits, targets), expected)
    assert fault_loss(logits, torch.zeros(2, 5)) is None


def test_fault_head_and_its_weight_go_together():
    with pytest.raises(ModelConfigError, match="fault_head"):
        build_tiny_model(architecture="estimator", fault_head=True)
    with pytest.raises(ModelConfigError, match="fault_head"):
        build_tiny_model(loss_weights={"pass_ratio": 1.0, "faults": 1.0})


def test_the_fault_head_trains_and_leaves_the_scores_shape_alone():
    torch.manual_seed(0)
    model = build_tiny_model(
        seed=2, architecture="estimator", fault_head=True, loss_weights=WEIGHTS
    ).train()
    samples = [
        _to_sample(_row(i, {"pass": i % 3, "wrong_answer": 1, "timeout": i % 2}), "x")
        for i in range(6)
    ]
    batch = Collator(InputEncoder.from_config(model.tokenizer, model.config), ["ref_nl"],
                     "estimator")(samples)  # fmt: skip
    assert batch["fault_targets"].shape == (6, len(FAULT_CLASSES))
    loss, logs = batch_loss(model, batch, WEIGHTS)
    assert "ref_nl/faults" in logs and logs["ref_nl/faults"] > 0
    loss.backward()
    last = model.head.net[-1]
    assert last.weight.grad[-len(FAULT_CLASSES) :].abs().sum() > 0  # the fault rows learn
    output = model.eval()(**{k: batch[k] for k in batch if k.startswith("segment") or
                             k.endswith("_index") or k == "exact_features"})  # fmt: skip
    assert output.logits.shape[1] == model.config.num_outputs
    assert output.fault_logits.shape[1] == len(FAULT_CLASSES)
    # a model without the head: no fault logits, and its loss ignores the fault targets
    plain = build_tiny_model(seed=2, architecture="estimator")
    plain_loss, plain_logs = batch_loss(plain, batch, {"pass_ratio": 1.0, "executable": 1.0})
    assert not any(key.endswith("/faults") for key in plain_logs)
