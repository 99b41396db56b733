"""Python's way to run programs: a pool of sandboxed workers that label programs test by test.

This is the pool behind :class:`~data_builders.execution.executor.Executor` for
``language="python"`` (the one executor type; open it with ``Executor("python", ...)`` or
``open_executor``)::

    with Executor("python", workers=2) as ex:
        result = ex.run(Program(source, [CallTest([1, 2], 3)], entry_point="add"))
        for result in ex.map(programs, progress="label"):
            ...

Each worker is a fresh interpreter (inside bubblewrap when it works) that forks one child per
program; see worker.py for supervision and sandbox.py for isolation. The host never runs
program code: it builds jobs, compares return values / stdout against expectations (the child
never sees them) and assembles :class:`ProgramResult` objects.
"""

from __future__ import annotations

import os
import queue
import threading
import weakref
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from data_builders.execution.compare import call_matches, stdout_matches
from data_builders.execution.isolation import (
    ExecutorUnavailableError,
    plan_isolation,
    warn_once,
)
from data_builders.execution.python.lanes import Feed, Lanes
from data_builders.execution.python.process import WorkerError, WorkerProcess
from data_builders.execution.types import (
    STATUSES,
    AssertionTest,
    CallTest,
    ExecutionLimits,
    Program,
    ProgramResult,
    StdioTest,
    TestOutcome,
)
from data_builders.execution.values import (
    ValueCodecError,
    decode_value,
    encode_value,
    short_repr,
)

DEFAULT_PRELOAD = (
    "ast", "bisect", "collections", "copy", "functools", "heapq", "io", "itertools", "json",
    "math", "operator", "re", "string", "sys", "typing",
)  # fmt: skip
"""Modules imported once per worker, so children start with them loaded (fork shares them).

Each costs every program a little (a bigger worker is dearer to fork) and saves the programs
that import it their import: kept are the modules generated code commonly imports (``typing``
alone is in 13% of HumanEval generations). Left out: ``decimal``, ``fractions``, ``datetime``,
``hashlib``, ``cmath``, ``array`` (under 0.3% of HumanEval/MBPP programs; together +0.08 ms on
every fork), ``random``/``statistics`` (``random``'s at-fork reseed costs 0.1 ms per
program; the worker imports it without that hook) and anything importing ``threading``.
"""

DEFAULT_SHARED_IMPORTS = (
    "numpy", "scipy", "pandas", "matplotlib", "seaborn", "sklearn", "torch", "tensorflow",
    "sympy", "networkx", "PIL", "cv2", "requests", "bs4",
)  # fmt: skip
"""Heavy libraries a program's imports are served from a per-worker zygote (zygote.py):
imported once per worker, not once per program. Only those installed here are used.
The ones that matter most in HumanEval generations (CodeGen-16B, 16,400 samples): numpy 126,
matplotlib 68, torch 44, pandas 41, sklearn 29, requests 28, scipy 20 programs; each import
costs 0.05-1 s inside the sandbox."""

MAP_WINDOW_PER_WORKER = 64
"""How far ``map`` may run ahead of the oldest unfinished program, per worker.

Why this large: results are yielded in input order, so one slow program holds back every
result after it; once the window is full, the other workers stop. With 4 per worker, 2
workers labelled the HumanEval canonical solutions at 464 programs/s, with 64 at 531
(``python benchmarks/executor_vs_humaneval.py --real 0 --window 4``, then without
``--window``). The cost is memory: that many programs and results held at once."""


def installed(modules: tuple[str, ...]) -> tuple[str, ...]:
    """The top-level modules of ``modules`` that this interpreter can import (not imported)."""
    import importlib.util

    found = []
    for name in modules:
        try:
            if importlib.util.find_spec(name) is not None:
                found.append(name)
        except (ImportError, ValueError):
            continue
    return tuple(found)


def build_job(program: Program, limits: ExecutionLimits, job_id: int = 0) -> dict[str, Any]:
    """The worker's job for ``program`` under ``limits`` (what travels to the sandbox: no
    expected values)."""
    mode = program.kind()  # first: it refuses a program in another language
    timeout = float(program.timeout if program.timeout is not None else limits.timeout)
    tests = [_encode_test(t) for t in program.tests]
    if program.test_timeouts is not None:
        if len(program.test_timeouts) != len(tests):
            raise ValueError(
                f"Program.test_timeouts has {len(program.test_timeouts)} limits for "
                f"{len(tests)} tests: give one per test"
            )
        for test, limit in zip(tests, program.test_timeouts, strict=True):
            if not limit > 0:
                raise ValueError(f"Program.test_timeouts must be positive seconds, got {limit!r}")
            test["timeout"] = float(limit)
    return {
        "id": job_id,
        "mode": mode,
        "source": program.source,
        "setup": program.setup,
        "entry_point": program.entry_point,
        "tests": tests,
        "start": 0,
        "timeout": timeout,
        "memory_mb": limits.memory_mb,
        "max_output": limits.max_output_bytes,
        "nofile": limits.nofile,
        "max_wall_factor": limits.max_wall_factor,
        "max_timeouts": limits.max_timeouts,
        "after_timeout": limits.after_timeout,
    }


def _encode_test(test: Any) -> dict[str, Any]:
    if isinstance(test, CallTest):
        try:
            encoded = {"kind": "call", "args": encode_value(list(test.args))}
        except ValueCodecError as exc:
            raise ValueError(f"CallTest arguments must be plain builtin values: {exc}") from None
        if test.compare in ("truthy", "falsy"):
            encoded["truth"] = True  # the child reports bool(value): no expected value leaves
        return encoded
    if isinstance(test, AssertionTest):
        return {"kind": "assert", "source": test.source}
    return {"kind": "stdio", "stdin": test.stdin}


class PythonPool:
    """A pool of persistent sandboxed workers (Python's pool behind :class:`Executor`).

    Args:
        workers: worker processes (default: one per CPU core available to us).
        limits: default resource limits (``Program.timeout`` overrides the time limit).
        isolation: ``"auto"`` (best available; warns once, loudly, when falling back) or one
            of ``"bwrap+seccomp"``, ``"bwrap"``, ``"seccomp"``, ``"rlimits"`` (exactly that
            level, or :class:`ExecutorUnavailableError`).
        preload: modules each worker imports once before forking children.
        shared_imports: heavy libraries (top-level names) that programs importing them get
            from a per-worker import zygote instead of importing themselves; ``()`` turns
            the zygote off. Names not installed here are ignored.
    """

    def __init__(
        self,
        workers: int | None = None,
        limits: ExecutionLimits | None = None,
        isolation: str = "auto",
        preload: tuple[str, ...] = DEFAULT_PRELOAD,
        shared_imports: tuple[str, ...] = DEFAULT_SHARED_IMPORTS,
    ) -> None:
        for name, value in (("preload", preload), ("shared_imports", shared_imports)):
            if isinstance(value, str):
                raise ValueError(f"{name} is a tuple of module names, not one string: ({value!r},)")
        self.limits = limits or ExecutionLimits()
        self.n_workers = max(1, workers or len(os.sched_getaffinity(0)))
        plan = plan_isolation(isolation)
        use_bwrap, use_seccomp = plan.bwrap, plan.seccomp
        self._idle: queue.Queue[WorkerProcess] = queue.Queue()
        self._workers: list[WorkerProcess] = []
        # a pool that is never closed still stops its workers at interpreter exit
        self._finalizer = weakref.finalize(self, _stop_workers, self._workers)
        self._job_ids = iter(range(1 << 62))
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._feeds: weakref.WeakSet[Feed] = weakref.WeakSet()  # maps not yet finished
        shared = installed(shared_imports)
        try:
            for _ in range(self.n_workers):
                worker = WorkerProcess(use_bwrap, use_seccomp, preload, shared)
                self._workers.append(worker)
                self._idle.put(worker)
        except WorkerError:
            self.close()
            raise
        seccomp_active = all(w.seccomp_active for w in self._workers)
        if use_seccomp and not seccomp_active and isolation != "auto":
            self.close()
            raise ExecutorUnavailableError("the kernel refused the seccomp filter")
        self.isolation = (
            "+".join(name for name, on in (("bwrap", use_bwrap), ("seccomp", seccomp_active)) if on)
            or "rlimits"
        )
        # programs importing heavy libraries all go to one worker, whose zygote imports
        # each library once for the pool (lanes.py)
        self._heavy = frozenset(shared)
        router = self._workers[0] if self._heavy and self.n_workers > 1 else None
        self._lanes = Lanes(self._idle, _outcome, self.isolation, self._patience, router)
        if self.isolation != "bwrap+seccomp" and isolation == "auto":
            refused = ["seccomp filter refused"] if use_seccomp and not seccomp_active else []
            warn_once(
                f"programs run with isolation {self.isolation!r} only "
                f"({'; '.join([*plan.missing, *refused])}). Without bubblewrap a program can read "
                "and write your files and use the network; without seccomp it can fork and "
                "signal other processes. Install bubblewrap and pyseccomp for the full sandbox."
            )

    # -- lifetime -------------------------------------------------------------------------
    def close(self) -> None:
        """Stop every worker and remove their scratch directories.

        A ``map`` still being consumed (or abandoned unclosed) is stopped first: its lanes
        finish the programs in flight and hand out no more."""
        for feed in list(self._feeds):
            feed.close()
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        self._finalizer()

    # -- running --------------------------------------------------------------------------
    def _job(self, program: Program) -> dict[str, Any]:
        with self._lock:
            job_id = next(self._job_ids)
        return build_job(program, self.limits, job_id)

    def _imports_heavy(self, program: Program) -> bool:
        """Whether the program's imports name a library served by the import zygote."""
        from data_builders.execution.python.zygote import heavy_imports

        return bool(self._heavy) and bool(heavy_imports(program.source, self._heavy))

    def _patience(self, job: dict[str, Any]) -> float:
        """Seconds without any message after which a worker is taken for stuck."""
        longest = max([job["timeout"], *(t.get("timeout", 0.0) for t in job["tests"])])
        return (self.limits.max_wall_factor + 2) * longest + 60.0

    def run(self, program: Program) -> ProgramResult:
        """Run one program against its tests; thread-safe (blocks for an idle worker)."""
        if not self._workers:
            raise RuntimeError("this Executor is closed")
        feed = Feed([program], self._job, window=1)
        self._lanes.drive(feed)  # in this thread, on one worker
        return next(feed.results())

    def map(self, programs: Iterable[Program]) -> Iterator[ProgramResult]:
        """Run many programs on all workers; results come back in input order.

        Each worker gets a lane (:mod:`.lanes`): a thread that runs programs on it.
        ``programs``: any iterable (consumed lazily, a bounded window at a time)."""
        if not self._workers:
            raise RuntimeError("this Executor is closed")
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.n_workers, thread_name_prefix="unice-exec")
        window = MAP_WINDOW_PER_WORKER * self.n_workers
        feed = Feed(
            programs, self._job, window=window, lanes=self.n_workers, prefers=self._imports_heavy
        )
        self._feeds.add(feed)
        for _ in range(self.n_workers):
            self._pool.submit(self._lanes.drive, feed)
        yield from feed.results()


def _stop_workers(workers: list[WorkerProcess]) -> None:
    for worker in workers:
        worker.close()
    workers.clear()


def _outcome(test: Any, message: dict[str, Any]) -> TestOutcome:
    """Turn a worker message into a TestOutcome, comparing in the host where needed."""
    try:
        status, detail = message["s"], str(message.get("d", ""))[:2000]
        seconds = float(message.get("t", 0.0))
    except (KeyError, TypeError, ValueError):
        return TestOutcome("runtime_error", 0.0, None, "malformed result from the sandbox")
    if status == "pass" and not isinstance(test, AssertionTest):
        # only the host decides that a call/stdin test passed: a "pass" from the sandbox
        # means the program wrote to its result channel itself
        return TestOutcome("runtime_error", seconds, None, "forged result on the result channel")
    if status not in STATUSES and status != "ok":
        return TestOutcome("runtime_error", seconds, None, f"unknown status {status!r:.40}")
    if status != "ok":
        return TestOutcome(status, seconds, None, detail)
    if isinstance(test, CallTest):
        try:
            value = decode_value(message.get("o"))
        except ValueCodecError as exc:
            return TestOutcome("wrong_answer", seconds, None, f"undecodable return value: {exc}")
        if test.capture:
            return TestOutcome("pass", seconds, value)
        if call_matches(test, value):
            return TestOutcome("pass", seconds)
        return TestOutcome("wrong_answer", seconds, None, f"returned {short_repr(value)}")
    if isinstance(test, StdioTest):
        text = message.get("o") if isinstance(message.get("o"), str) else ""
        if test.expected is None:
            return TestOutcome("pass", seconds, text)
        if stdout_matches(text, test.expected):
            return TestOutcome("pass", seconds)
        return TestOutcome("wrong_answer", seconds, None, f"stdout differs: {text[:200]!r}")
    return TestOutcome("runtime_error", seconds, None, f"unexpected 'ok' for {type(test).__name__}")
