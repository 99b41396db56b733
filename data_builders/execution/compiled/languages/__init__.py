"""One module per language; the runner (``execution/compiled/pool.py``) knows none of them by name.

Which languages there are, their aliases and toolchains come from the one language table
(:mod:`data_builders.languages`): a compiled language there has its module here, named as the
language (``cpp.py``), holding its one :class:`Language` subclass.

``python`` is not here: Python programs run on the executor's own fast path (persistent
pre-imported workers, the import zygote, host-side judging), see docs/execution.md.
"""

from __future__ import annotations

import functools
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
from data_builders.languages import ALIASES as _ALL_ALIASES
from data_builders.languages import COMPILED

LANGUAGES: tuple[str, ...] = COMPILED
ALIASES: dict[str, str] = {k: v for k, v in _ALL_ALIASES.items() if v in LANGUAGES}

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
    if key not in LANGUAGES:
        raise ValueError(f"unknown language {name!r} (known: {', '.join(LANGUAGES)})")
    return _language_class(key)()


@functools.cache
def _language_class(name: str) -> type[Language]:
    """The :class:`Language` subclass of module ``name`` whose ``name`` is ``name``."""
    module = importlib.import_module(f"{__name__}.{name}")
    found = [
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, Language) and value.name == name
    ]
    if len(found) != 1:
        raise ImportError(f"{module.__name__} defines {len(found)} Language classes named {name!r}")
    return found[0]
