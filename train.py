"""Train a UniCE (CodeScore) model: ``python train.py +experiment={apps,mbpp,humaneval,demo}``.

Thin hydra entry point; the logic lives in :func:`unice.training.train`. Several GPUs or
machines: ``accelerate launch train.py +experiment=apps``.
"""

from __future__ import annotations

import sys

import hydra
from omegaconf import DictConfig

from data_builders.errors import UserError
from unice.errors import UniCEError


@hydra.main(config_path="configs", config_name="train", version_base="1.3")
def main(cfg: DictConfig) -> float | None:
    """Run training; user errors print one line and exit 2.

    Only the project's user-error classes are caught: a ``ValueError`` from torch or
    transformers is a bug and keeps its traceback.
    """
    from unice.training import train

    try:
        metrics = train(cfg)
    except (UniCEError, UserError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)
    monitor = cfg.trainer.monitor
    return metrics.get(f"best/{monitor}")


def _refuse_retired_overrides() -> None:
    """A retired model switch on the command line (``model.fault_head=true``) stops in one line
    naming the commit with its code, not in hydra's "not in struct"."""
    from unice.training.settings import refuse_retired_overrides

    try:
        refuse_retired_overrides(sys.argv[1:])
    except UniCEError as exc:
        print(f"error: {exc}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    _refuse_retired_overrides()
    main()
