"""Shared fixtures for the executor tests: one sandboxed pool for the whole folder.

Hostile programs use short limits (1 s CPU per test) so the folder stays fast.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from data_builders.execution import ExecutionLimits, Executor


@pytest.fixture(scope="session")
def executor() -> Iterator[Executor]:
    """The best isolation this machine offers, 2 workers, 1 s CPU per test, 1 GiB memory."""
    with Executor(workers=2, limits=ExecutionLimits(timeout=1.0, memory_mb=1024)) as ex:
        yield ex
