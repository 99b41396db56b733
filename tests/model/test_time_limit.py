"""``trainer.max_seconds``: a run that must fit a time budget (scripts/gpu_check.sh) stops after
the step that crosses it, then checks dev and exports, as it does at ``max_steps``."""

from __future__ import annotations

import time

import pytest

from unice.errors import TrainingConfigError
from unice.training.settings import TrainerSettings


def test_training_stops_at_the_time_limit_and_still_exports(
    tiny_backbone, fixture_data, tmp_path
) -> None:
    from unice.training.loop import train

    from .conftest import compose, tiny_overrides

    def slow(step: int, logs: dict) -> None:
        time.sleep(0.3)  # each step outlasts the limit below

    cfg = compose(["+experiment=demo", *tiny_overrides(
        tiny_backbone, fixture_data, tmp_path, **{"trainer.max_seconds": 0.2, "trainer.epochs": 5,
        "trainer.max_steps": "null", "trainer.save_every_steps": "null"})])  # fmt: skip
    metrics = train(cfg, on_step=slow)
    assert metrics["global_step"] == 1 and metrics["epochs_run"] <= 1
    assert (tmp_path / "best" / "config.json").is_file() and "best/example_spearman" in metrics


def test_max_seconds_must_be_positive() -> None:
    with pytest.raises(TrainingConfigError, match="max_seconds=0 must be > 0"):
        TrainerSettings.from_config({"max_seconds": 0})
    assert TrainerSettings.from_config({"max_seconds": None}).max_seconds is None
