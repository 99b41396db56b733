"""What runs an :class:`~data_builders.execution.executor.Executor`'s programs: its *pool*.

Every pool has ``run(program)``, a lazy ``map(programs)`` (results in input order, the input
read a bounded window ahead), ``close()``, ``isolation``, ``n_workers`` and ``limits``. The
local ones, by language: Python's :class:`~data_builders.execution.python.pool.PythonPool`,
every compiled language's :class:`~data_builders.execution.compiled.pool.ForeignPool`. (Ray's
:class:`~data_builders.execution.ray.backend.RayPool` holds one local pool per actor.)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Protocol

from data_builders.execution.limits import ExecutorLimits, ForeignLimits
from data_builders.execution.types import ExecutionLimits, Program, ProgramResult


class Pool(Protocol):
    """What runs an executor's programs (one per language family and backend)."""

    limits: ExecutorLimits
    isolation: str

    @property
    def n_workers(self) -> int: ...

    def run(self, program: Program) -> ProgramResult: ...

    def map(self, programs: Iterable[Program]) -> Iterator[ProgramResult]: ...

    def close(self) -> None: ...


def open_local_pool(
    language: str,
    workers: int | None,
    limits: ExecutorLimits | None,
    isolation: str,
    options: dict[str, Any],
) -> Pool:
    """The pool on this machine for ``language`` (``"python"`` or a compiled language's
    canonical name); ``options``: the pool's own settings. A TypeError names limits of the
    other family (an ``ExecutionLimits`` for C++, a ``ForeignLimits`` for Python)."""
    if language == "python":
        from data_builders.execution.python.pool import PythonPool

        if limits is not None and not isinstance(limits, ExecutionLimits):
            raise TypeError(_wrong_limits(language, limits, "ExecutionLimits"))
        return PythonPool(workers=workers, limits=limits, isolation=isolation, **options)
    from data_builders.execution.compiled.pool import ForeignPool

    if limits is not None and not isinstance(limits, ForeignLimits):
        raise TypeError(_wrong_limits(language, limits, "ForeignLimits"))
    return ForeignPool(workers=workers, limits=limits, isolation=isolation, **options)


def _wrong_limits(language: str, limits: object, wanted: str) -> str:
    return (
        f"{language} programs run under a {wanted}, not a {type(limits).__name__}"
        " (Limits.executor_limits(language) gives the right one)"
    )
