"""Which executor runs the programs: the local pool, or actors on a Ray cluster.

``label`` and ``build`` only ever call ``map`` (results in input order) and ``run`` on an
executor, and write what comes back through their one resumable output path (``build``'s
progress store, ``label``'s output file). So the choice of backend is made here, once, and
nothing downstream knows which one it got: a Ray run and a local run produce their rows by
the same code. Settings live in ``configs/build/executor.yaml``; flags override them.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from data_builders.errors import UserError
from data_builders.settings_file import check_known, read_mapping

if TYPE_CHECKING:
    from data_builders.execution.executor import Executor
    from data_builders.execution.limits import ExecutorLimits

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "build" / "executor.yaml"
KINDS = ("local", "ray")


@dataclass(frozen=True)
class ExecutorSettings:
    """The keys of ``configs/build/executor.yaml`` (see the comments there)."""

    executor: str = "local"
    ray_address: str | None = None
    ray_num_cpus: int | None = None
    ray_cpus_per_actor: int | None = None
    ray_chunk_size: int = 64
    ray_chunks_per_actor: int = 2
    ray_chunk_retries: int = 3
    ray_placement_timeout: float = 120.0

    def __post_init__(self) -> None:
        if self.executor not in KINDS:
            raise UserError(f"executor {self.executor!r}: choose one of {', '.join(KINDS)}")
        for name in ("ray_num_cpus", "ray_cpus_per_actor"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise UserError(f"{name} must be null or a whole number >= 1, got {value!r}")
        for name in ("ray_chunk_size", "ray_chunks_per_actor"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise UserError(f"{name} must be a whole number >= 1, got {getattr(self, name)!r}")
        if not isinstance(self.ray_chunk_retries, int) or self.ray_chunk_retries < 0:
            raise UserError(f"ray_chunk_retries must be >= 0, got {self.ray_chunk_retries!r}")
        if not self.ray_placement_timeout > 0:
            raise UserError("ray_placement_timeout must be positive seconds")


def load_settings(path: Path | None = None, **overrides: Any) -> ExecutorSettings:
    """The settings file (default ``configs/build/executor.yaml``) with non-None overrides."""
    source = path or DEFAULT_CONFIG
    raw = read_mapping(
        source, "no such executor config (pass an existing --executor-config)", "executor settings"
    )
    check_known(source, raw, (f.name for f in dataclasses.fields(ExecutorSettings)))
    raw.update({key: value for key, value in overrides.items() if value is not None})
    return ExecutorSettings(**raw)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``--executor``/``--ray-address``/``--executor-config`` flags of label and build."""
    parser.add_argument(
        "--executor",
        choices=KINDS,
        default=None,
        help="where programs run: here (local) or on a Ray cluster (ray); default from"
        " configs/build/executor.yaml (local)",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDR",
        help="with --executor ray: the cluster to join (HOST:PORT of `ray start --head`, or"
        " auto); default: start a local Ray on this machine",
    )
    parser.add_argument(
        "--executor-config",
        type=Path,
        default=None,
        help="executor settings YAML (default: configs/build/executor.yaml)",
    )


def settings_from_args(args: argparse.Namespace) -> ExecutorSettings:
    """The settings file named by the flags, overridden by ``--executor``/``--ray-address``."""
    settings = load_settings(
        args.executor_config, executor=args.executor, ray_address=args.ray_address
    )
    if settings.executor == "ray" and getattr(args, "workers", None) is not None:
        raise UserError(
            "--workers sets the local executor's workers; with --executor ray each actor runs one"
            " worker per CPU it holds (ray_cpus_per_actor in configs/build/executor.yaml)"
        )
    if settings.executor == "local" and args.ray_address is not None:
        raise UserError("--ray-address needs --executor ray (or executor: ray in the config)")
    return settings


def open_executor(
    language: str = "python",
    limits: ExecutorLimits | None = None,
    backend: str | None = None,
    *,
    workers: int | None = None,
    settings: ExecutorSettings | None = None,
) -> Executor:
    """The :class:`~data_builders.execution.executor.Executor` (context-managed, ``map``/
    ``run``/``close``) for programs in ``language``, here or on Ray.

    Usage: ``open_executor("cpp", limits, "local")``, ``open_executor("python", limits,
    settings=settings_from_args(args), workers=args.workers)``.

    Args:
        language: ``"python"`` or a compiled language (``"cpp"``, ``"java"``, ``"js"``,
            ``"go"``, ``"rust"``; aliases allowed). The foreign pool runs programs of any
            compiled language, so a file that mixes them passes any one of its languages.
        limits: an ``ExecutionLimits`` for Python, a ``ForeignLimits`` for every other
            language; None: the language's defaults.
        backend: ``"local"`` or ``"ray"``; None: ``settings.executor`` (``"local"`` without
            settings).
        workers: the local backend's programs at once (None: one per CPU); ignored with Ray,
            where each actor runs one worker per CPU it holds.
        settings: the Ray options (``ray_address``, ``ray_num_cpus``, chunking, ...; the keys
            of ``configs/build/executor.yaml``); None: the defaults of :class:`ExecutorSettings`.
    """
    from data_builders.execution.executor import Executor

    check_language(language)
    settings = settings or ExecutorSettings()
    backend = settings.executor if backend is None else backend
    if backend not in KINDS:
        raise UserError(f"executor {backend!r}: choose one of {', '.join(KINDS)}")
    if backend == "local":
        return Executor(language, workers=workers, limits=limits)
    return Executor(
        language,
        limits=limits,
        backend="ray",
        address=settings.ray_address,
        num_cpus=settings.ray_num_cpus,
        cpus_per_actor=settings.ray_cpus_per_actor,
        chunk_size=settings.ray_chunk_size,
        chunks_per_actor=settings.ray_chunks_per_actor,
        chunk_retries=settings.ray_chunk_retries,
        placement_timeout=settings.ray_placement_timeout,
    )


def check_language(language: str) -> None:
    """A one-line error for a language no executor runs."""
    from data_builders.execution.executor import canonical_language

    try:
        canonical_language(language)
    except ValueError as exc:
        raise UserError(str(exc)) from None


@contextlib.contextmanager
def executor_session(settings: ExecutorSettings) -> Iterator[None]:
    """One Ray session for every executor opened inside it.

    Why: ``build`` opens two executors in turn (reference runs and labelling need different
    limits), and each Ray executor would otherwise start a local Ray and shut it down, paying
    Ray's start-up twice. Executors opened inside join this session and leave it running; it is
    shut down here, if it was started here. The local pool needs no session.
    """
    if settings.executor != "ray":
        yield
        return
    from data_builders.execution.ray.backend import connect, import_ray

    started = connect(settings.ray_address, settings.ray_num_cpus)
    try:
        yield
    finally:
        if started:
            import_ray().shutdown()
