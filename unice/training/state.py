"""Trainer progress saved next to accelerate's state so an interrupted run resumes exactly.

``accelerate.save_state`` stores model, optimizer, scheduler (registered for checkpointing)
and every RNG; this file adds where the loop was (step, epoch, batches done in the epoch)
and the early-stopping bookkeeping.
"""

from __future__ import annotations

import hashlib
import json
import math
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

STATE_FILE = "trainer_state.json"
FINGERPRINT_FILE = "fingerprint.json"

OPERATIONAL_KEYS = {
    "trainer": (
        "resume", "progress", "num_workers", "log_every_steps", "save_every_steps",
        "num_threads", "eval_batch_size",
    ),
    "": ("output_dir", "logger", "hydra", "protocol"),
}  # fmt: skip
"""Config keys that change how a run is watched or where it writes, not what it computes:
left out of the fingerprint so a resumed run may change them. ``protocol`` is the record of
an experiment's decisions (its arms, rules and results), read by scripts and never by
training: writing down a new arm must not orphan the adopted configuration's finished run."""

NEUTRAL_MODEL_SWITCHES: dict[str, Any] = {
    "standardize_states": False,
    "codebertscore_features": False,
}
"""Model switches added after runs were saved, each with the value that computes what runs
did before it existed: left out of the fingerprint at that value, so adding a switch does not
orphan every finished run (a run that turns it on still differs)."""


@dataclass
class TrainerState:
    """Loop position and early-stopping bookkeeping."""

    global_step: int = 0
    epoch: int = 0
    batches_in_epoch: int = 0
    best_metric: float | None = None
    best_epoch: int | None = None
    bad_epochs: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)

    def improved(self, value: float, mode: str) -> bool:
        """Whether ``value`` beats the best so far (``mode`` is ``max`` or ``min``)."""
        if value is None or math.isnan(value):
            return False
        if self.best_metric is None or math.isnan(self.best_metric):
            return True
        return value > self.best_metric if mode == "max" else value < self.best_metric


def run_fingerprint(
    config: dict[str, Any], folders: list[str], splits: list[str]
) -> dict[str, str]:
    """Hashes of what a run computes: its config (less :data:`OPERATIONAL_KEYS`) and the bytes
    of its data (``train`` and ``splits`` of every folder).

    Why: ``trainer.resume=auto`` restores ``<output_dir>/last``; a rerun with another learning
    rate or a rebuilt dataset would otherwise continue the old run's optimizer and schedule
    on other data and export a model that no single configuration produced.
    """
    kept = {k: v for k, v in config.items() if k not in OPERATIONAL_KEYS[""]}
    if isinstance(kept.get("model"), dict):
        kept["model"] = {
            k: v
            for k, v in kept["model"].items()
            if k not in NEUTRAL_MODEL_SWITCHES or v != NEUTRAL_MODEL_SWITCHES[k]
        }
    if isinstance(kept.get("trainer"), dict):
        kept["trainer"] = {
            k: v for k, v in kept["trainer"].items() if k not in OPERATIONAL_KEYS["trainer"]
        }
    config_hash = hashlib.sha256(json.dumps(kept, sort_keys=True, default=str).encode())
    data_hash = hashlib.sha256()
    for folder in folders:
        for split in ["train", *splits]:
            path = Path(folder) / f"{split}.jsonl"
            data_hash.update(f"{Path(folder).name}/{split}:".encode())
            if path.is_file():
                with open(path, "rb") as handle:
                    for block in iter(lambda: handle.read(1 << 20), b""):
                        data_hash.update(block)
    return {"config": config_hash.hexdigest()[:16], "data": data_hash.hexdigest()[:16]}


def load_fingerprint(folder: Path) -> dict[str, str] | None:
    """The fingerprint saved with a state (None for a state saved without one)."""
    path = folder / FINGERPRINT_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def save_training_state(
    accelerator, folder: Path, state: TrainerState, fingerprint: dict[str, str] | None = None
) -> None:
    """Write accelerate's state + ``trainer_state.json`` (+ the run's fingerprint) to
    ``folder`` (replaced atomically)."""
    tmp = folder.with_name(folder.name + ".tmp")
    if accelerator.is_main_process and tmp.exists():
        shutil.rmtree(tmp)
    accelerator.wait_for_everyone()
    accelerator.save_state(str(tmp))
    if accelerator.is_main_process:
        (tmp / STATE_FILE).write_text(json.dumps(asdict(state), indent=2), encoding="utf-8")
        if fingerprint is not None:
            (tmp / FINGERPRINT_FILE).write_text(json.dumps(fingerprint), encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder)
        tmp.rename(folder)
    accelerator.wait_for_everyone()


def load_training_state(accelerator, folder: Path) -> TrainerState:
    """Restore accelerate's state from ``folder`` and return the loop position."""
    accelerator.load_state(str(folder))
    data = json.loads((folder / STATE_FILE).read_text(encoding="utf-8"))
    return TrainerState(**data)


def has_training_state(folder: Path) -> bool:
    """Whether ``folder`` holds a complete saved state."""
    return (folder / STATE_FILE).is_file()
