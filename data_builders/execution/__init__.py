"""Sandboxed, fast execution of untrusted Python programs against tests.

See docs/execution.md for statuses, comparison rules, isolation levels and the threat model.
"""

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
