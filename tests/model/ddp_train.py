"""Run by ``test_ddp.py`` under ``accelerate launch --cpu --num_processes N``: train once.

Usage: ``ddp_train.py PLAN.json``; the plan is a list of runs ``{"config": YAML, "record":
JSON, "interrupt_at": STEP or null}`` done one after the other in the same processes (one
launch, one start-up). Each process writes ``<record>.rank<R>``: the logged loss of every
optimizer step and how often this process exported a checkpoint or built a logger, so the
test can check that only the main process writes checkpoints and logs.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from omegaconf import OmegaConf

import unice.training.loop as loop


class Interrupted(RuntimeError):
    """A simulated crash (the resume test kills the run at a given step)."""


def run(config: Path, record_path: Path, interrupt_at: int | None) -> None:
    """Train as ``config`` says and write what this process saw to ``record_path.rank<R>``."""
    rank = int(os.environ.get("RANK", "0"))
    record: dict = {"rank": rank, "losses": {}, "exports": 0, "loggers": 0}
    real_export, real_make_logger = loop.export_checkpoint, loop.make_logger

    def export(*args, **kwargs):
        record["exports"] += 1
        return real_export(*args, **kwargs)

    def make_logger(*args, **kwargs):
        record["loggers"] += 1
        return real_make_logger(*args, **kwargs)

    def on_step(step: int, logs: dict) -> None:
        record["losses"][step] = logs["train/loss"]
        if step == interrupt_at:
            raise Interrupted(f"simulated crash at step {step}")

    loop.export_checkpoint, loop.make_logger = export, make_logger
    try:
        result = loop.train(OmegaConf.load(config), on_step=on_step)
        record["global_step"] = result["global_step"]
    except Interrupted:
        record["interrupted"] = True
    finally:
        loop.export_checkpoint, loop.make_logger = real_export, real_make_logger
    Path(f"{record_path}.rank{rank}").write_text(json.dumps(record), encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("plan", type=Path)
    plan = json.loads(parser.parse_args().plan.read_text(encoding="utf-8"))
    for job in plan:
        run(Path(job["config"]), Path(job["record"]), job.get("interrupt_at"))


if __name__ == "__main__":
    main()
