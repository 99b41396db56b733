"""Metric logging: wandb (offline unless ``WANDB_API_KEY`` is set) or nothing.

Why not import wandb at module level: the public release did, so the tool failed wherever
wandb was missing or unconfigured. Here it is imported only when ``logger=wandb``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from unice.errors import TrainingConfigError


class RunLogger:
    """Logs nothing; the base of :class:`WandbLogger`."""

    def log(self, metrics: Mapping[str, float], step: int) -> None:
        """Record ``metrics`` at optimizer step ``step``."""

    def finish(self) -> None:
        """Flush and close the run."""


class WandbLogger(RunLogger):
    """A wandb run; ``mode`` defaults to offline when no API key is configured."""

    def __init__(self, project: str, name: str | None, config: dict[str, Any], mode: str | None):
        import wandb

        if mode is None:
            mode = os.environ.get("WANDB_MODE") or (
                "online" if os.environ.get("WANDB_API_KEY") else "offline"
            )
        self._run = wandb.init(project=project, name=name, config=config, mode=mode)

    def log(self, metrics: Mapping[str, float], step: int) -> None:
        self._run.log(dict(metrics), step=step)

    def finish(self) -> None:
        self._run.finish()


def make_logger(cfg: Mapping[str, Any] | None, run_config: dict[str, Any]) -> RunLogger:
    """Build the logger named by ``cfg['name']`` (``none`` or ``wandb``)."""
    name = (cfg or {}).get("name", "none")
    if name == "none":
        return RunLogger()
    if name == "wandb":
        return WandbLogger(
            project=cfg.get("project", "unice"),
            name=cfg.get("run_name"),
            config=run_config,
            mode=cfg.get("mode"),
        )
    raise TrainingConfigError(f"logger={name!r} is not allowed; choose one of none, wandb")
