"""Trainer progress saved next to accelerate's state so an interrupted run resumes exactly.

``accelerate.save_state`` stores model, optimizer, scheduler (registered for checkpointing)
and every RNG; this file adds where the loop was (step, epoch, batches done in the epoch)
and the early-stopping bookkeeping.
"""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

STATE_FILE = "trainer_state.json"


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


def save_training_state(accelerator, folder: Path, state: TrainerState) -> None:
    """Write accelerate's state + ``trainer_state.json`` to ``folder`` (replaced atomically)."""
    tmp = folder.with_name(folder.name + ".tmp")
    if accelerator.is_main_process and tmp.exists():
        shutil.rmtree(tmp)
    accelerator.wait_for_everyone()
    accelerator.save_state(str(tmp))
    if accelerator.is_main_process:
        (tmp / STATE_FILE).write_text(json.dumps(asdict(state), indent=2), encoding="utf-8")
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
