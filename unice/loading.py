"""``load_model``: open a self-contained UniCE checkpoint folder, checking every file first."""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch
from transformers import AutoTokenizer

from unice.errors import CheckpointError, DeviceUnavailableError
from unice.modeling.model import UniCEModel

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "vocab.json", "tokenizer.model")


def check_checkpoint(path: str | os.PathLike[str]) -> Path:
    """Raise :class:`CheckpointError` naming what is missing; return the folder."""
    folder = Path(path).expanduser()
    if not folder.is_dir():
        raise CheckpointError(
            f"{folder}: no such checkpoint folder (train one with `python train.py "
            "+experiment=demo`, or pass the folder that holds config.json and model.safetensors)"
        )
    config_file = folder / "config.json"
    if not config_file.is_file():
        raise CheckpointError(f"{folder}: incomplete checkpoint, config.json is missing")
    try:
        model_type = json.loads(config_file.read_text(encoding="utf-8")).get("model_type")
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CheckpointError(f"{config_file}: unreadable config ({exc})") from None
    if model_type != "unice":
        raise CheckpointError(
            f"{folder}: not a UniCE checkpoint (model_type={model_type!r}, expected 'unice')"
        )
    if not any((folder / name).is_file() for name in WEIGHT_FILES):
        raise CheckpointError(f"{folder}: incomplete checkpoint, model.safetensors is missing")
    if not any((folder / name).is_file() for name in TOKENIZER_FILES):
        raise CheckpointError(
            f"{folder}: incomplete checkpoint, tokenizer files are missing "
            f"(expected one of {', '.join(TOKENIZER_FILES)})"
        )
    return folder


def load_model(
    path: str | os.PathLike[str], device: str | torch.device | None = None
) -> UniCEModel:
    """Load a trained UniCE checkpoint folder for scoring.

    Args:
        path: folder with ``config.json``, ``model.safetensors`` and tokenizer files.
        device: where to put the model (default: CUDA when available, else CPU).

    Returns:
        The model in eval mode, with ``model.tokenizer`` attached; call ``model.score(...)``.

    Raises:
        CheckpointError: the folder is missing, incomplete or not a UniCE checkpoint.
    """
    folder = check_checkpoint(path)
    model = UniCEModel.from_pretrained(folder)
    model.tokenizer = AutoTokenizer.from_pretrained(folder)
    if device is None:
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if str(device).startswith("cuda") and not torch.cuda.is_available():
        raise DeviceUnavailableError(
            f"device {device!r} requested but CUDA is not available; use cpu"
        )
    return model.to(device).eval()
