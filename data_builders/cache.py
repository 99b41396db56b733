"""Where UniCE keeps reusable caches (extended test suites, LLM-judge replies).

One rule for every tool, read at call time so an environment change (or a test's
monkeypatch) takes effect: ``$UNICE_CACHE_DIR/<name>``, else
``$XDG_CACHE_HOME/unice/<name>``, else ``~/.cache/unice/<name>``.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir(name: str) -> Path:
    """The cache folder for ``name`` (e.g. ``"extension"``, ``"ice_score"``); not created."""
    if os.environ.get("UNICE_CACHE_DIR"):
        return Path(os.environ["UNICE_CACHE_DIR"]) / name
    root = os.environ.get("XDG_CACHE_HOME")
    base = Path(root) if root else Path.home() / ".cache"
    return base / "unice" / name
