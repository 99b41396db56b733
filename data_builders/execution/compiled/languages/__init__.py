"""One module per language; the runner (``execution/compiled/pool.py``) knows none of them by name.

``python`` is not here: Python programs run on the executor's own fast path (persistent
pre-imported workers, the import zygote, host-side judging), see docs/execution.md.
"""

from __future__ import annotations

import importlib

from data_builders.execution.compiled.languages.base import (
    Batch,
    Driver,
    Language,
    Prelude,
    RunnerSpec,
    RunSpec,
    SplitError,
)

_MODULES = {
    "cpp": ("cpp", "Cpp"),
    "java": ("java", "Java"),
    "js": ("js", "JavaScript"),
    "go": ("go", "Go"),
    "rust": ("rust", "Rust"),
}
ALIASES = {
    "c++": "cpp",
    "javascript": "js",
    "node": "js",
    "golang": "go",
    "go_test.go": "go",
    "rs": "rust",
}
LANGUAGES: tuple[str, ...] = tuple(_MODULES)

__all__ = [
    "ALIASES",
    "LANGUAGES",
    "Batch",
    "Driver",
    "Language",
    "Prelude",
    "RunnerSpec",
    "RunSpec",
    "SplitError",
    "get_language",
]


def get_language(name: str) -> Language:
    """The language module for ``name`` (case-insensitive, aliases allowed)."""
    key = ALIASES.get(name.lower(), name.lower())
    if key not in _MODULES:
        raise ValueError(f"unknown language {name!r} (known: {', '.join(LANGUAGES)})")
    module, cls = _MODULES[key]
    return getattr(importlib.import_module(f"{__name__}.{module}"), cls)()
