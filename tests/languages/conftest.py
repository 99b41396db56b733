"""Shared fixtures for the foreign-language tests: one executor (and build cache) per session.

The executor is opened for C++ and runs the other compiled languages' programs too (one pool
runs every compiled language, each program by its ``language``).

Each language's tests skip, with the reason, where its toolchain is not installed; the
sandbox level is whatever this machine offers (bubblewrap + seccomp where installed).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from data_builders.execution.compiled.languages import get_language
from data_builders.execution.executor import Executor
from data_builders.execution.limits import ForeignLimits
from data_builders.execution.types import Program, ProgramResult, TestCode

LIMITS = ForeignLimits(
    timeout=1.0, load=15.0, memory_mb=256, runtime_overhead_mb=384, tmp_size_mb=16
)


def open_executor(
    limits: ForeignLimits, tmp_path_factory: pytest.TempPathFactory, name: str
) -> Iterator[Executor]:
    """2 workers with ``limits``; builds cached in a fresh ``name`` folder while it is open."""
    builds = tmp_path_factory.mktemp(name)
    with Executor("cpp", workers=2, limits=limits, cache_dir=builds) as ex:
        yield ex


@pytest.fixture(scope="session")
def foreign(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Executor]:
    """2 workers, 1 s CPU per assertion, 256 MB; builds cached for the whole session."""
    yield from open_executor(LIMITS, tmp_path_factory, "builds")


def need(language: str) -> None:
    """Skip the calling test when ``language``'s toolchain is missing (saying what to install)."""
    missing = get_language(language).missing_toolchain()
    if missing:
        pytest.skip(missing)


def run(ex: Executor, language: str, source: str, test: str) -> ProgramResult:
    need(language)
    return ex.run(Program(source, TestCode(test), language=language))


def statuses(result: ProgramResult) -> list[str]:
    return [o.status for o in result.outcomes]
