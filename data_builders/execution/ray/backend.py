"""Run programs on a Ray cluster: chunks handed to actors that each own a local pool.

This is the pool behind :class:`~data_builders.execution.executor.Executor` with
``backend="ray"`` (for every language). Why actors wrapping the local executor, not one Ray
task per program: a program costs milliseconds, a Ray task about a millisecond of overhead
plus a fresh process's imports; and everything that makes labels trustworthy and fast (the
sandbox, persistent pre-imported workers, the import zygote, per-test CPU limits) already
lives in the local pools (``pools.py``). So each actor holds one local pool with a worker per
CPU it was given, and receives programs in chunks.

What the caller sees is the local executor's contract: ``map`` yields results in input order
(``label`` and ``build`` write them through their usual resumable output), ``run`` runs one
program. Ordering lives in the driver: chunks are numbered, results are held until every
earlier chunk has come back, and each chunk's results are yielded exactly once. When an
actor dies (its node lost, its process killed), its unfinished chunks are handed to the other
actors (and to a replacement actor, once Ray has placed it): a chunk is never yielded twice,
because only a finished chunk's results are kept and only the first is used.

Each actor runs ``chunks_per_actor`` chunks at once on its one pool, so its workers pick
up the next chunk while the current one's slowest program finishes, instead of idling.

This file holds the actor and the executor (its actors' lifecycle: placing, readiness,
replacing a lost one, closing); one ``map``'s chunks (reading ahead, handing out, ordering,
retrying): ``schedule.py``.

Programs in other languages (C++, Java, JavaScript, Go, Rust) go the same way: each actor's
local pool is the ``language``'s (for a compiled one, a worker thread per CPU, its
own build cache, compile server and runners) and the chunks hold
:class:`~data_builders.execution.types.Program` objects in that language.
"""

from __future__ import annotations

import contextlib
import math
import os
import socket
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any

from data_builders.errors import UserError
from data_builders.execution.limits import ExecutorLimits
from data_builders.execution.pools import open_local_pool
from data_builders.execution.ray.schedule import Schedule
from data_builders.execution.types import ExecutionLimits, Program, ProgramResult

INSTALL_HINT = "pip install 'ray==2.60.0' (or pip install -e '.[cluster]')"
CLOSE_SECONDS = 10.0  # an actor's executor gets this long to close before the actor is killed


class ChunkRunner:
    """The actor: the local pool of ``language`` (what ``Executor(language)`` runs on) on its
    node, labelling chunks of programs.

    ``die_on_chunk`` is a test hook: the actor's process exits (as on a lost node) when it is
    handed its ``die_on_chunk``-th chunk, before returning anything for it.
    """

    def __init__(
        self,
        workers: int,
        limits: ExecutorLimits,
        isolation: str = "auto",
        die_on_chunk: int | None = None,
        language: str = "python",
    ) -> None:
        self._executor = open_local_pool(language, workers, limits, isolation, {})
        # concurrent map calls share the pool that the first map creates: create it now
        for _ in self._executor.map([]):
            pass
        self._die_on_chunk = die_on_chunk
        self._chunks = 0
        self._lock = threading.Lock()

    def ready(self) -> dict[str, Any]:
        """Start-up is done (workers up): the isolation level and where the actor runs."""
        return {
            "isolation": self._executor.isolation,
            "workers": self._executor.n_workers,
            "host": socket.gethostname(),
            "pid": os.getpid(),
        }

    def run_chunk(self, programs: list[Program]) -> list[ProgramResult]:
        """The programs' results, in order."""
        with self._lock:
            self._chunks += 1
            dying = self._die_on_chunk is not None and self._chunks >= self._die_on_chunk
        if dying:
            os._exit(1)
        return list(self._executor.map(programs))

    def close(self) -> None:
        self._executor.close()


def _default_limits(language: str) -> ExecutorLimits:
    if language == "python":
        return ExecutionLimits()
    from data_builders.execution.limits import ForeignLimits

    return ForeignLimits.from_yaml()


def import_ray() -> Any:
    """The ``ray`` module, or a one-line error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise UserError(
            f"--executor ray needs Ray, which is not installed here: {INSTALL_HINT}"
        ) from None
    return ray


def _check_reachable(address: str) -> None:
    """Fail fast, in one line, when nothing listens at ``HOST:PORT`` (Ray itself retries
    for a long while before giving up)."""
    if address in ("auto", "local"):
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    try:
        with socket.create_connection((host or "127.0.0.1", int(port)), timeout=5):
            return
    except (OSError, ValueError):
        pass
    raise UserError(
        f"no Ray cluster at --ray-address {address}: start one there with `ray start --head`"
        " (it prints the address to pass), or leave --ray-address out to start a local Ray"
    )


def connect(address: str | None, num_cpus: int | None) -> bool:
    """Join the cluster at ``address``, or start a local one; True when started here."""
    ray = import_ray()
    if ray.is_initialized():
        return False  # the caller's session (tests share one)
    import logging

    quiet = {"include_dashboard": False, "log_to_driver": False, "logging_level": logging.WARNING}
    if address is None:
        cpus = num_cpus or len(os.sched_getaffinity(0))
        ray.init(address="local", num_cpus=cpus, **quiet)
        return True
    _check_reachable(address)
    try:
        ray.init(address=address, **quiet)
    except ConnectionError as exc:
        raise UserError(
            f"could not join the Ray cluster at --ray-address {address} ({exc}); start one with"
            " `ray start --head`, or leave --ray-address out to start a local Ray"
        ) from None
    return False


def _lost_errors(ray: Any) -> tuple[type[BaseException], ...]:
    """Errors that mean the actor (its process or node) is gone, not that a program failed."""
    names = ("RayActorError", "WorkerCrashedError", "NodeDiedError", "ObjectLostError")
    return tuple(getattr(ray.exceptions, name) for name in names if hasattr(ray.exceptions, name))


class RayPool:
    """The pool behind ``Executor(language, backend="ray")``: ``map``, ``run``, ``close``,
    ``isolation``, ``n_workers`` over actors on a Ray cluster.

    Args:
        limits: resource limits every actor's executor applies (as ``Executor(limits=...)``;
            default: the language's defaults).
        address: ``None`` starts a local Ray with ``num_cpus`` CPUs; ``"auto"`` or
            ``HOST:PORT`` joins a running cluster. An already initialised Ray is used as is.
        cpus_per_actor: each actor holds this many CPUs and runs that many workers; None:
            one actor per node holding all its CPUs.
        chunk_size: programs per chunk (smaller when a list is too short to give every
            actor ``chunks_per_actor`` chunks).
        chunks_per_actor: chunks each actor runs at once.
        chunk_retries: how often a chunk whose actor died is handed out again.
        placement_timeout: seconds without any live actor before giving up.
        die_on_chunk: test hook, see :class:`ChunkRunner` (given to the first actor only).
        language: the actors' executors' language (``Executor``'s ``language``).
    """

    def __init__(
        self,
        limits: ExecutorLimits | None = None,
        address: str | None = None,
        num_cpus: int | None = None,
        cpus_per_actor: int | None = None,
        chunk_size: int = 64,
        chunks_per_actor: int = 2,
        chunk_retries: int = 3,
        placement_timeout: float = 120.0,
        isolation: str = "auto",
        die_on_chunk: int | None = None,
        language: str = "python",
    ) -> None:
        started = time.monotonic()
        self._ray = import_ray()
        self.language = language
        self.limits = limits or _default_limits(language)
        self._chunk_size, self._depth = chunk_size, chunks_per_actor
        self._chunk_retries, self._placement_timeout = chunk_retries, placement_timeout
        self._isolation = isolation
        self._started = connect(address, num_cpus)
        self.connect_seconds = time.monotonic() - started  # of startup_seconds: Ray itself
        self._lost = _lost_errors(self._ray)
        self._actors: list[Any] = []  # live and ready
        self._placing: dict[Any, tuple[Any, int, str | None]] = {}  # ready ref -> actor, cpus, node
        self._specs: dict[Any, tuple[int, str | None]] = {}  # actor -> (cpus, node)
        self.replaced = 0
        try:
            plan = self._plan(cpus_per_actor)
            for i, (cpus, node) in enumerate(plan):
                self._spawn(cpus, node, die_on_chunk if i == 0 else None)
            infos = self._await_ready(len(plan))
        except self._lost as exc:  # the actor's __init__ failed: say why in one line
            self.close()
            cause = str(getattr(exc, "cause", None) or exc).strip().splitlines() or ["?"]
            raise UserError(f"a Ray actor could not start its executor: {cause[-1]}") from None
        except BaseException:
            self.close()
            raise
        self.startup_seconds = time.monotonic() - started  # Ray and every actor up
        self.n_workers = sum(info["workers"] for info in infos)
        levels = sorted({info["isolation"] for info in infos})
        self.isolation = levels[0] if len(levels) == 1 else "mixed:" + ",".join(levels)
        if self.isolation != "bwrap+seccomp":
            print(
                f"warning: Ray actors run programs with isolation {self.isolation!r} only:"
                " install bubblewrap and pyseccomp on every node for the full sandbox",
                file=sys.stderr,
            )

    # -- actors -------------------------------------------------------------------------
    def _plan(self, cpus_per_actor: int | None) -> list[tuple[int, str | None]]:
        """(CPUs, node id) per actor: ``cpus_per_actor`` slices of every alive node."""
        plan = []
        for node in self._ray.nodes():
            cpus = int(node.get("Resources", {}).get("CPU", 0))
            if not node.get("Alive") or cpus < 1:
                continue
            size = min(cpus_per_actor or cpus, cpus)
            plan += [(size, node["NodeID"])] * (cpus // size)
        if not plan:
            raise UserError(
                "the Ray cluster has no CPUs to run programs on: start a node with"
                " `ray start --address HEAD:PORT --num-cpus N`"
            )
        return plan

    def _spawn(self, cpus: int, node: str | None, die_on_chunk: int | None = None) -> None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        options: dict[str, Any] = {"num_cpus": cpus, "max_concurrency": self._depth + 1}
        if node is not None:  # soft: a replacement for a lost node's actor goes elsewhere
            options["scheduling_strategy"] = NodeAffinitySchedulingStrategy(node, soft=True)
        actor = (
            self._ray.remote(ChunkRunner)
            .options(**options)
            .remote(cpus, self.limits, self._isolation, die_on_chunk, self.language)
        )
        self._placing[actor.ready.remote()] = (actor, cpus, node)

    def _await_ready(self, count: int) -> list[dict[str, Any]]:
        """Wait for the first ``count`` actors to start; their ``ready`` infos."""
        refs = list(self._placing)
        done, pending = self._ray.wait(refs, num_returns=count, timeout=self._placement_timeout)
        if pending:
            raise UserError(
                f"only {len(done)} of {count} Ray actors started within"
                f" {self._placement_timeout:.0f} s; check `ray status` for free CPUs"
            )
        return [self._admit(ref) for ref in done]

    def _admit(self, ref: Any) -> dict[str, Any]:
        actor, cpus, node = self._placing.pop(ref)
        info = self._ray.get(ref)
        self._actors.append(actor)
        self._specs[actor] = (cpus, node)
        return info

    def _lose(self, actor: Any) -> None:
        """An actor died: forget it and ask Ray for a replacement with the same shape."""
        if actor not in self._specs:
            return  # already handled (several of its chunks failed)
        self._actors.remove(actor)
        cpus, node = self._specs.pop(actor)
        self._ray.kill(actor, no_restart=True)
        self.replaced += 1
        self._spawn(cpus, node)

    # -- running --------------------------------------------------------------------------
    def map(self, programs: Iterable[Program]) -> Iterator[ProgramResult]:
        """Results of ``programs`` in input order (the input is read a bounded stretch ahead).

        ``programs``: any iterable of programs; with a length, chunks shrink so that every
        actor gets work even on short lists."""
        if not self._actors and not self._placing:
            raise RuntimeError("this Executor is closed")
        total = len(programs) if hasattr(programs, "__len__") else None  # type: ignore[arg-type]
        size = self._chunk_size
        if total:
            slots = max(1, len(self._actors)) * self._depth
            size = max(1, min(size, math.ceil(total / slots)))
        for results in Schedule(self, iter(programs), size).chunks():
            yield from results

    def run(self, program: Program) -> ProgramResult:
        """Run one program on some actor."""
        return next(iter(self.map([program])))

    # -- lifetime -------------------------------------------------------------------------
    def close(self) -> None:
        """Stop the actors (their executors with them), and the local Ray if started here.

        Live actors first close their executors (a foreign executor's temporary build folder,
        runners and compile servers), for at most ``CLOSE_SECONDS``; then every actor is
        killed."""
        if self._actors:
            with contextlib.suppress(Exception):  # gone, or its node lost
                closing = [actor.close.remote() for actor in self._actors]
                self._ray.wait(closing, num_returns=len(closing), timeout=CLOSE_SECONDS)
        for actor in [*self._actors, *(a for a, _, _ in self._placing.values())]:
            with contextlib.suppress(Exception):  # already gone
                self._ray.kill(actor, no_restart=True)
        self._actors.clear()
        self._placing.clear()
        if self._started and self._ray.is_initialized():
            self._ray.shutdown()
            self._started = False
