"""Multi-process training (DDP on the CPU, gloo) computes what one process computes.

Two processes with B samples each per step see the same 2B samples as one process with batch
2B (accelerate hands process r every other batch of the problem-grouped order), and DDP
averages their gradients, so with dropout off the loss trajectory must match. Also checked:
only the main process exports checkpoints and builds a logger, and a two-process run killed
mid-epoch resumes to the weights an uninterrupted one reaches.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from omegaconf import OmegaConf
from safetensors.torch import load_file

from data_builders.jsonl import write_jsonl
from unice.testing import fixture_rows

from .conftest import compose, tiny_overrides

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "ddp_train.py"
REPO = HERE.parents[1]
STEPS = 4


@pytest.fixture(scope="module")
def no_dropout_backbone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tiny random RoBERTa with its dropout off, so both runs compute the same function."""
    from unice.testing import save_tiny_backbone

    folder = save_tiny_backbone(tmp_path_factory.mktemp("backbone") / "tiny-roberta-nodrop")
    config = json.loads((folder / "config.json").read_text())
    config.update(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def _paired_rows(n_tasks: int, prefix: str) -> list[dict]:
    """Two candidates per problem with different PassRatios, each with a reference and an NL.

    Why this shape: with problem groups of 2, every batch half holds whole problems, one
    ranking pair each, and every format has the same number of rows in both halves, so the
    mean over 2B rows is exactly the mean of the two halves' means (what DDP averages).
    """
    pool = [row for row in fixture_rows(400, seed=5) if row["nl"] and row["reference"]]
    rows = []
    for task in range(n_tasks):
        first = pool[task]
        second = next(
            row
            for row in pool[task + 1 :]
            if row["pass_ratio"] != first["pass_ratio"] and row["generated"] != first["generated"]
        )
        for index, row in enumerate((first, second)):
            rows.append(
                {**row, "id": f"{prefix}/{task}/{index}", "task_id": f"{prefix}/task{task}"}
            )
    return rows


def _paired_dataset(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for split, tasks in (("train", 32), ("dev", 4), ("test", 2)):
        write_jsonl(folder / f"{split}.jsonl", _paired_rows(tasks, split))
    return folder


def _config(backbone: Path, data: Path, out: Path, batch_size: int, path: Path, **extra) -> Path:
    overrides = tiny_overrides(
        backbone,
        data,
        out,
        **{
            "trainer.batch_size": batch_size,
            "trainer.group_size": 2,
            "trainer.max_steps": STEPS,
            "trainer.epochs": 1,
            "trainer.warmup_ratio": 0.0,
            "trainer.save_every_steps": 2,
            "model.dropout": 0.0,
            "model.layer_dropout": 0.0,
            **extra,
        },
    )
    OmegaConf.save(compose(overrides), path)
    return path


def _launch(plan: list[dict], processes: int, tmp_path: Path) -> subprocess.CompletedProcess:
    plan_file = tmp_path / f"plan-{len(list(tmp_path.glob('plan-*')))}.json"
    plan_file.write_text(json.dumps(plan))
    if processes == 1:
        command = [sys.executable, str(SCRIPT), str(plan_file)]
    else:
        command = [
            sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu",
            "--num_processes", str(processes), "--num_machines", "1",
            "--mixed_precision", "no", "--dynamo_backend", "no",
            "--main_process_port", "29517", str(SCRIPT), str(plan_file),
        ]  # fmt: skip
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        "OMP_NUM_THREADS": "1",
    }
    done = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def _record(path: Path, rank: int) -> dict:
    return json.loads(Path(f"{path}.rank{rank}").read_text())


@pytest.mark.slow
def test_two_processes_match_one_and_resume(no_dropout_backbone, tmp_path):
    # 64 training rows: 8 batches of 8 for two processes (4 steps each), 4 batches of 16 for one
    data = _paired_dataset(tmp_path / "data")
    one = _config(no_dropout_backbone, data, tmp_path / "one", 16, tmp_path / "one.yaml")
    two = _config(no_dropout_backbone, data, tmp_path / "two", 8, tmp_path / "two.yaml")
    resumed = _config(no_dropout_backbone, data, tmp_path / "resumed", 8, tmp_path / "res.yaml")
    _launch([{"config": str(one), "record": str(tmp_path / "one")}], 1, tmp_path)
    _launch(
        [
            {"config": str(two), "record": str(tmp_path / "two")},
            {"config": str(resumed), "record": str(tmp_path / "cut"), "interrupt_at": 3},
            {"config": str(resumed), "record": str(tmp_path / "resumed")},
        ],
        2,
        tmp_path,
    )

    single = _record(tmp_path / "one", 0)["losses"]
    ranks = [_record(tmp_path / "two", rank) for rank in (0, 1)]
    assert list(single) == [str(step) for step in range(1, STEPS + 1)]
    # both processes log the loss averaged over both, and it follows the one-process run
    assert ranks[0]["losses"] == ranks[1]["losses"]
    for step, loss in single.items():
        assert ranks[0]["losses"][step] == pytest.approx(loss, rel=1e-4, abs=1e-5), step

    # the weights after the last step agree too
    weights_one = load_file(tmp_path / "one" / "last" / "model.safetensors")
    weights_two = load_file(tmp_path / "two" / "last" / "model.safetensors")
    assert weights_one.keys() == weights_two.keys()
    for key in weights_one:
        assert torch.allclose(weights_one[key], weights_two[key], atol=1e-5), key

    # only the main process exports checkpoints and builds the logger
    assert ranks[0]["exports"] >= 1 and ranks[0]["loggers"] == 1
    assert ranks[1]["exports"] == 0 and ranks[1]["loggers"] == 0
    assert (tmp_path / "two" / "best" / "model.safetensors").is_file()

    # killed after the step-2 save, rerun: continues at step 3 and ends where "two" ended
    for rank in (0, 1):
        assert _record(tmp_path / "cut", rank).get("interrupted")
        again = _record(tmp_path / "resumed", rank)
        assert list(again["losses"]) == ["3", "4"] and again["global_step"] == STEPS
        for step in ("3", "4"):
            assert again["losses"][step] == pytest.approx(ranks[0]["losses"][step], rel=1e-5)
    weights_resumed = load_file(tmp_path / "resumed" / "last" / "model.safetensors")
    for key in weights_two:
        assert torch.allclose(weights_two[key], weights_resumed[key], atol=1e-6), key
    shutil.rmtree(tmp_path / "data")
