"""Fixtures for the model tests: tiny tokenizer/model/checkpoint/backbone and fixture data."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from unice.testing import (
    build_tiny_model,
    build_tiny_tokenizer,
    make_fixture_dataset,
    save_tiny_backbone,
    save_tiny_checkpoint,
)

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs"


@pytest.fixture(autouse=True)
def _one_thread() -> None:
    torch.set_num_threads(1)


@pytest.fixture(scope="session")
def tiny_tokenizer():
    return build_tiny_tokenizer()


@pytest.fixture()
def tiny_model():
    return build_tiny_model(seed=0)


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_checkpoint(tmp_path_factory.mktemp("ckpt") / "tiny", seed=3)


@pytest.fixture(scope="session")
def tiny_backbone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_backbone(tmp_path_factory.mktemp("backbone") / "tiny-roberta")


@pytest.fixture(scope="session")
def fixture_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_fixture_dataset(tmp_path_factory.mktemp("data") / "fixture")


def tiny_overrides(backbone: Path, data: Path, out: Path, **extra: object) -> list[str]:
    """Hydra overrides that make any experiment run a few fast steps on the tiny setup."""
    overrides = {
        "model.backbone": str(backbone),
        "model.hidden_sizes": "[64,32]",
        "model.max_length": 128,
        "data.dir": str(data),
        "data.max_dev_samples": "null",
        "output_dir": str(out),
        "trainer.accelerator": "cpu",
        "trainer.precision": "no",
        "trainer.num_threads": 1,
        "trainer.num_workers": 0,
        "trainer.progress": "false",
        "trainer.batch_size": 8,
        "trainer.grad_accum": 1,
        "logger": "none",
    }
    overrides.update({key: str(value) for key, value in extra.items()})
    return [f"{key}={value}" for key, value in overrides.items()]


def compose(overrides: list[str]):
    """Compose ``configs/train.yaml`` with ``overrides`` through hydra's compose API."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    with initialize_config_dir(config_dir=str(CONFIG_DIR), version_base="1.3"):
        return hydra_compose("train", overrides=overrides)
