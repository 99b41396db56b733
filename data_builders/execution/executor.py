"""The executor: one type that runs programs in every language, here or on a Ray cluster.

Usage::

    with Executor("python", workers=2) as ex:
        result = ex.run(Program(source, [CallTest([1, 2], 3)], entry_point="add"))
        for result in ex.map(programs, progress="label"):
            ...

    with Executor("cpp", workers=2) as ex:  # Program(source, test_code, language="cpp")
        ...

``label``, ``build`` and the rest open one through
:func:`~data_builders.execution.backend.open_executor` (the settings file picks local or
Ray). What differs per language and backend is the *pool* behind it, which the executor
picks once, when it opens:

* Python, here: :class:`~data_builders.execution.python.pool.PythonPool` (persistent
  pre-imported workers that fork a child per program, the import zygote, host-side
  judging); options ``preload``, ``shared_imports``.
* C++, Java, JavaScript, Go, Rust, here: :class:`~data_builders.execution.compiled.pool.ForeignPool`
  (compile in a sandbox, run every case in one sandboxed process; it runs programs of any of
  these languages, each by its ``Program.language``); options ``cache_dir``,
  ``shared_cache_dir``, ``compile_servers``, ``runners``.
* any language on Ray (``backend="ray"``): :class:`~data_builders.execution.ray.backend.RayPool`
  (actors that each hold a local ``Executor`` of the language); options ``address``,
  ``num_cpus``, ``cpus_per_actor``, ``chunk_size``, ``chunks_per_actor``, ``chunk_retries``,
  ``placement_timeout``, ``die_on_chunk``.

Every pool (``pools.py``) has ``run(program)``, a lazy ``map(programs)`` (results in input
order, the input read a bounded window ahead), ``close()``, ``isolation``, ``n_workers`` and
``limits``; the executor adds the progress bar, the context manager and the closed state, so callers see the
same executor whatever runs their programs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from data_builders.execution.isolation import ExecutorUnavailableError
from data_builders.execution.pools import Pool, open_local_pool
from data_builders.execution.types import Program, ProgramResult

if TYPE_CHECKING:
    from data_builders.execution.limits import ExecutorLimits

__all__ = ["BACKENDS", "Executor", "ExecutorUnavailableError", "Pool", "canonical_language"]

BACKENDS = ("local", "ray")


def canonical_language(language: str) -> str:
    """``"python"``, or the name of the compiled language that ``language`` names (aliases and
    any case allowed: ``"C++"`` -> ``"cpp"``); ValueError for a language no pool runs."""
    if language == "python":
        return language
    from data_builders.execution.compiled.languages import ALIASES, LANGUAGES

    key = ALIASES.get(language.lower(), language.lower())
    if key not in LANGUAGES:
        raise ValueError(
            f"no executor for language {language!r} (supported: python, {', '.join(LANGUAGES)})"
        )
    return key


class Executor:
    """Runs :class:`Program` objects in ``language`` on a pool of sandboxed workers.

    Args:
        language: ``"python"`` or a compiled language (``"cpp"``, ``"java"``, ``"js"``,
            ``"go"``, ``"rust"``; aliases such as ``"C++"`` allowed).
        workers: programs run at once, here (default: one per CPU); not with Ray, where each
            actor runs one worker per CPU it holds.
        limits: resource limits (Python: an ``ExecutionLimits``; another language: a
            ``ForeignLimits``; default: the language's defaults).
        isolation: ``"auto"`` (the best available, warning when it falls back) or the exact
            level (see docs/execution.md and docs/languages.md).
        backend: ``"local"`` (this machine) or ``"ray"`` (actors on a Ray cluster).
        **options: the pool's own settings (see the module docstring).
    """

    def __init__(
        self,
        language: str = "python",
        *,
        workers: int | None = None,
        limits: ExecutorLimits | None = None,
        isolation: str = "auto",
        backend: str = "local",
        **options: Any,
    ) -> None:
        self.language = canonical_language(language)
        if backend not in BACKENDS:
            raise ValueError(f"backend {backend!r}: choose one of {', '.join(BACKENDS)}")
        self.backend = backend
        self.pool: Pool = _open_pool(self.language, workers, limits, isolation, backend, options)
        self._closed = False

    # -- what the pool is -------------------------------------------------------------------
    @property
    def limits(self) -> ExecutorLimits:
        return self.pool.limits

    @property
    def isolation(self) -> str:
        """The isolation level the programs run under (Ray: every actor's, or ``mixed:...``)."""
        return self.pool.isolation

    @property
    def n_workers(self) -> int:
        """Programs run at once (on Ray: over every actor)."""
        return self.pool.n_workers

    # -- running ----------------------------------------------------------------------------
    def run(self, program: Program) -> ProgramResult:
        """Run one program against its tests (thread-safe)."""
        self._check_open()
        return self.pool.run(program)

    def map(
        self, programs: Iterable[Program], progress: str | None = None
    ) -> Iterator[ProgramResult]:
        """Results of ``programs`` in input order.

        A generator: nothing runs before the first result is asked for; then ``programs``
        (any iterable) is read lazily, at most a bounded window of programs ahead of the
        result last yielded, so a long input is never all in memory, and a map stopped early
        (closed, or its executor closed) runs little beyond it.

        Args:
            programs: the programs (with a length, the progress bar shows a total).
            progress: a label for a progress bar on stderr, or None for no bar.
        """
        from tqdm.auto import tqdm

        self._check_open()
        total = len(programs) if hasattr(programs, "__len__") else None  # type: ignore[arg-type]
        bar = tqdm(
            total=total, desc=progress, unit="prog", file=sys.stderr, disable=progress is None
        )
        try:
            for result in self.pool.map(programs):
                yield result
                bar.update(1)
        finally:
            bar.close()

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("this Executor is closed")

    # -- lifetime ---------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the pool (its workers, build folders, runners, actors); idempotent."""
        if not self._closed:
            self._closed = True
            self.pool.close()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _open_pool(
    language: str,
    workers: int | None,
    limits: ExecutorLimits | None,
    isolation: str,
    backend: str,
    options: dict[str, Any],
) -> Pool:
    if backend == "ray":
        if workers is not None:
            raise ValueError(
                "workers is the local backend's setting; on Ray each actor runs one worker per"
                " CPU it holds (cpus_per_actor)"
            )
        from data_builders.execution.ray.backend import RayPool

        return RayPool(language=language, limits=limits, isolation=isolation, **options)
    return open_local_pool(language, workers, limits, isolation, options)
