"""Within-problem ranking: the pairwise loss, problem-grouped batches, the dev check, and a model
that must read the reference to order a problem's candidates."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch

import unice
from data_builders.jsonl import write_jsonl
from unice.data.dataset import Sample
from unice.data.sampler import ProblemGroupedBatchSampler
from unice.metrics import example_level_correlations
from unice.modeling.loss import pairwise_ranking_loss, unified_loss
from unice.testing import relational_rows
from unice.training import train
from unice.training.evaluation import dev_metrics

from .conftest import compose, tiny_overrides


def _sample(task: str, ratio: float, origin: str = "a", i: int = 0) -> Sample:
    return Sample(f"{task}/{i}", "g", "r", "n", ratio, True, ratio == 1.0, task, origin)


def test_pairwise_loss_pairs_only_candidates_of_one_problem():
    targets = torch.tensor([1.0, 0.0, 1.0, 0.0])
    groups = torch.tensor([0, 0, 1, 1])
    right = torch.tensor([3.0, -3.0, 3.0, -3.0])
    # cross-problem order is free: swapping which problem scores higher changes nothing
    shifted = torch.tensor([13.0, 7.0, 3.0, -3.0])
    wrong = torch.tensor([-3.0, 3.0, 3.0, -3.0])
    loss_right = pairwise_ranking_loss(right, targets, groups)
    assert loss_right == pytest.approx(float(torch.nn.functional.softplus(torch.tensor(-6.0))))
    assert pairwise_ranking_loss(shifted, targets, groups) == pytest.approx(float(loss_right))
    assert pairwise_ranking_loss(wrong, targets, groups) > 3.0
    assert pairwise_ranking_loss(right, torch.tensor([1.0, 1.0, 0.0, 0.0]), groups) is None


def test_ranking_weight_adds_the_pair_term_to_the_unified_loss():
    logits = torch.tensor([[-2.0, 0.0], [2.0, 0.0]], requires_grad=True)
    labels = torch.tensor([[1.0, 1.0, 1.0], [0.0, 1.0, 0.0]])
    groups = torch.tensor([0, 0])
    plain, _ = unified_loss({"ref": (logits, labels, groups)}, {"pass_ratio": 1.0})
    ranked, logs = unified_loss(
        {"ref": (logits, labels, groups)}, {"pass_ratio": 1.0, "ranking": 0.5}
    )
    expected = 0.5 * float(torch.nn.functional.softplus(torch.tensor(4.0)))
    assert float((ranked - plain).detach()) == pytest.approx(expected, rel=1e-5)
    assert "ref/ranking" in logs
    ranked.backward()
    assert logits.grad[0, 0] < 0 < logits.grad[1, 0]  # raise the better one, lower the worse


def test_grouped_batches_hold_several_candidates_of_one_problem():
    samples = [_sample(f"t{t}", c / 10, i=c) for t in range(6) for c in range(8)]
    sampler = ProblemGroupedBatchSampler(samples, batch_size=8, group_size=4, seed=3)
    batches = list(sampler)
    assert len(batches) == len(sampler) == 6
    assert sorted(i for batch in batches for i in batch) == list(range(48))
    for batch in batches:
        tasks = [samples[i].task_id for i in batch]
        assert all(tasks.count(task) == 4 for task in tasks)
    assert list(sampler) == batches  # same epoch, same order
    sampler.set_epoch(1)
    assert list(sampler) != batches


def test_folder_weights_set_how_often_its_candidates_are_drawn():
    samples = [_sample(f"t{t}", 0.5, "real", t) for t in range(8)]
    samples += [_sample(f"m{t}", 0.5, "mutants", t) for t in range(8)]
    sampler = ProblemGroupedBatchSampler(samples, 4, 1, 0, {"real": 2.0, "mutants": 0.5})
    drawn = [samples[i].origin for batch in sampler for i in batch]
    assert drawn.count("real") == 16 and drawn.count("mutants") == 4


def test_a_per_problem_constant_fails_the_within_problem_check():
    rows = [(t, c / 3) for t in range(5) for c in range(4)]
    samples = [_sample(f"t{t}", ratio, i=i) for i, (t, ratio) in enumerate(rows)]
    difficulty = {f"t{t}": t / 5 for t in range(5)}
    constant = np.array([difficulty[s.task_id] + 0.1 for s in samples])
    predictions = {"codescore": constant, "exec_prob": np.full(len(samples), 0.9)}
    predictions |= {f"codescore_{f}": constant for f in ("ref", "nl", "ref_nl")}
    metrics = dev_metrics(predictions, samples)
    assert metrics["example_spearman"] == 0.0  # no problem's candidates are ordered
    ordered = constant + np.array([s.pass_ratio for s in samples]) / 100
    metrics = dev_metrics({**predictions, "codescore": ordered}, samples)
    assert metrics["example_spearman"] == pytest.approx(1.0)


@pytest.mark.slow
@pytest.mark.parametrize("architecture", ["cross", "estimator"])
def test_learns_how_the_generated_code_relates_to_the_reference(
    tiny_backbone, tmp_path, architecture
):
    rows = relational_rows()
    write_jsonl(tmp_path / "data" / "train.jsonl", rows)
    extra = {
        "trainer.epochs": 300,
        "trainer.batch_size": 16,
        "trainer.group_size": 4,
        "trainer.lr_encoder": 3e-4,
        "trainer.lr_head": 1e-3,
        "trainer.warmup_ratio": 0.0,
        "trainer.patience": "null",
        "trainer.save_every_steps": "null",
        "model.formats": "[ref]",
        "model.pooling": "mean",
        "model.architecture": architecture,
        "model.dropout": 0.0,
        "model.layer_dropout": 0.0,
        "data.dev_split": "train",  # monitor the training set itself
    }
    metrics = train(compose(tiny_overrides(tiny_backbone, tmp_path / "data", tmp_path / "run",
                                           **extra)))  # fmt: skip
    card = (Path(metrics["best_checkpoint"]) / "README.md").read_text()
    assert "example_spearman" in card
    assert "train_config.yaml" in os.listdir(metrics["best_checkpoint"])
    model = unice.load_model(metrics["best_checkpoint"], device="cpu")
    labels = [r["pass_ratio"] for r in rows]
    tasks = [r["task_id"] for r in rows]

    def within(references: list[str]) -> float:
        scores = model.score(generated=[r["generated"] for r in rows], references=references)
        return example_level_correlations([s["codescore"] for s in scores], labels, tasks).as_zero[
            "spearman"
        ]

    assert within([r["reference"] for r in rows]) > 0.6
    # the same model given another task's reference ranks by that one: it reads the reference
    rotated = [rows[(i + 4) % len(rows)]["reference"] for i in range(len(rows))]
    assert within(rotated) < 0.2
    # and no model of the generated code alone can order any task: each body is right once
    by_body: dict[str, list[float]] = {}
    for row in rows:
        by_body.setdefault(row["generated"], []).append(row["pass_ratio"])
    g_only = [float(np.mean(by_body[r["generated"]])) for r in rows]
    assert example_level_correlations(g_only, labels, tasks).as_zero["spearman"] == 0.0
