"""Exporting a self-contained checkpoint folder (weights, config, tokenizer, card, train config)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from unice.training.model_card import write_model_card

TRAIN_CONFIG_FILE = "train_config.yaml"


def export_checkpoint(
    model,
    tokenizer,
    folder: str | os.PathLike[str],
    metrics: Mapping[str, float] | None = None,
    train_config: Any = None,
    dataset: str | None = None,
) -> Path:
    """Write ``config.json`` (encoder config inside), ``model.safetensors``, tokenizer files,
    ``train_config.yaml`` (the resolved training config, when given) and ``README.md``.

    Args:
        model: the (unwrapped) :class:`~unice.modeling.model.UniCEModel`.
        tokenizer: its tokenizer, layout tokens included.
        folder: destination (created).
        metrics: dev metrics for the model card.
        train_config: an OmegaConf/dict config saved as YAML for reproducibility.
        dataset: name of the dev data, for the model card.

    Returns:
        The folder.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder, safe_serialization=True)
    tokenizer.save_pretrained(folder)
    if train_config is not None:
        from omegaconf import OmegaConf

        conf = train_config if OmegaConf.is_config(train_config) else OmegaConf.create(train_config)
        (folder / TRAIN_CONFIG_FILE).write_text(OmegaConf.to_yaml(conf, resolve=True), "utf-8")
    write_model_card(folder, model.config, metrics, dataset)
    return folder
