"""Command-line glue for ``evaluate.py`` that hydra alone cannot express.

``configs/data/`` is train.py's config group, so hydra reads ``data=...`` as a group choice and
refuses a path. The documented command is ``python evaluate.py data=DIR_OR_JSONL``; we map that
argument to the ``dataset`` key before hydra parses the command line.
"""

from __future__ import annotations

from collections.abc import Sequence

DATA_KEY = "dataset"


def normalize_overrides(args: Sequence[str]) -> list[str]:
    """``data=X`` -> ``dataset=X``; every other argument unchanged."""
    return [f"{DATA_KEY}={arg[len('data=') :]}" if arg.startswith("data=") else arg for arg in args]
