"""Sandboxed, fast execution of untrusted programs against tests.

One executor type for every language (:class:`Executor`, ``executor.py``): Python's programs
run on its pool of pre-imported workers (``python/pool.py``), the compiled languages' on the
foreign pool (``compiled/pool.py``), either on Ray (``ray/backend.py``). See docs/execution.md for
statuses, comparison rules, isolation levels and the threat model, docs/languages.md for the
compiled languages.
Every public name is imported lazily: worker processes import this package (for their own
submodules), and each module they import makes every per-program fork dearer — the data
model needs ``dataclasses`` and ``inspect``, the pool needs ``threading``, none of which a
worker uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from data_builders.execution.executor import Executor, ExecutorUnavailableError
    from data_builders.execution.types import (
        MISSING,
        STATUSES,
        AssertionTest,
        CallTest,
        ExecutionLimits,
        Program,
        ProgramResult,
        StdioTest,
        Test,
        TestOutcome,
    )

__all__ = [
    "MISSING",
    "STATUSES",
    "AssertionTest",
    "CallTest",
    "ExecutionLimits",
    "Executor",
    "ExecutorUnavailableError",
    "Program",
    "ProgramResult",
    "StdioTest",
    "Test",
    "TestOutcome",
]

_HOMES = {name: "executor" if name.startswith("Executor") else "types" for name in __all__}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
