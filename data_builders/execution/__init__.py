"""Sandboxed, fast execution of untrusted Python programs against tests.

See docs/execution.md for statuses, comparison rules, isolation levels and the threat model.
``Executor`` is imported lazily so that worker processes, which import this package, stay
small (fewer pages to copy on every fork).
"""

from typing import Any

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


def __getattr__(name: str) -> Any:
    if name in ("Executor", "ExecutorUnavailableError"):
        from data_builders.execution import executor

        return getattr(executor, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
