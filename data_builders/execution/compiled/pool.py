"""Sandboxed compile-and-run for programs in other languages (C++, Java, JavaScript, Go).

Language-agnostic: a language module (``execution/compiled/languages/``) turns program + test into a
*driver* whose assertions are numbered cases that report themselves on a result descriptor
(``S k`` start, ``P``/``F``/``E``/``M k`` held/failed/error/memory), says how to compile it
and how to run it from case ``start`` on. This module does the rest:

* **compile**: its own sandbox (bubblewrap, no network, writes only into the build folder),
  its own CPU/memory/output limits, status ``compile_error``; builds are cached by the hash
  of the driver files and the command, so a program compiled once is reused by every run.
* **run**: one process runs every case (the JVM starts once per program); the host watches
  the CPU time and resident memory of the sandboxed process tree per case, kills the process
  group on a limit, and resumes the remaining cases in a fresh process after a crash or
  timeout, so each assertion gets its own status. Runs are inside bubblewrap (no network,
  read-only ``/``, private size-capped ``/tmp``, own PID namespace) with a seccomp filter
  that allows threads but no new processes (``fork``/``vfork``/``clone`` without
  ``CLONE_THREAD``), and rlimits (CPU, file size, core, open files; address space for
  native code).

Each run gets a fresh report token (``languages/base.py``), and a case of the form ``actual OP
expected`` reports only its value, judged here (``checks.py``); where the test computes
the expected side, the value comes from the task's reference solution, run in its own process
(``reference.py``). Other cases report their own verdict, counted per program as
``judged_in_program``. After a timeout, the processes that resume a program start beside each
other in idle workers (``run.py``). See docs/languages.md for what that means against
a hostile program.

This file is the pool (a program in, its outcomes out; ``map``; the lifecycle) that
:class:`~data_builders.execution.executor.Executor` runs every language but Python on. The
compile side and the build cache: ``build.py``; running the cases and settling each
process's reports: ``run.py``; watching one process: ``process.py``; the
sandbox command: ``sandbox.py`` (the isolation level: ``isolation.py``; the run's
seccomp filter: ``seccomp.py``); the limits:
``ForeignLimits`` in ``execution/limits.py``; Java's warm compiler: ``compile_server.py``; the reference runs that give
the expected values a test computes: ``reference.py``.
"""

from __future__ import annotations

import collections
import concurrent.futures
import os
import shutil
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from data_builders.execution.compiled.build import Build, Compiling, DeferredRemoval
from data_builders.execution.compiled.compile_server import CompileServer
from data_builders.execution.compiled.languages import Driver, Language, SplitError, get_language
from data_builders.execution.compiled.process import Command
from data_builders.execution.compiled.reference import References
from data_builders.execution.compiled.run import Running
from data_builders.execution.compiled.runner import Runner
from data_builders.execution.compiled.sandbox import sandbox_command
from data_builders.execution.isolation import COMPILED_LEVELS, plan_isolation, warn_once
from data_builders.execution.limits import ForeignLimits
from data_builders.execution.seccomp import COMPILED_RUN, export_bpf
from data_builders.execution.types import Program, ProgramResult, TestCode, TestOutcome

MAP_WINDOW_PER_WORKER = 16
"""How far ``map`` may run ahead of the oldest unyielded program, per worker.

Results come back in input order, so a slow program (a mutant that loops through every
assertion's limit: seconds) holds back every result after it, and once the window is full
the other workers stop. A program here costs ~0.1-0.5 s (compile and run), so 16 per worker
keeps the others busy for several seconds behind one such program; the cost is memory, that
many programs and results held at once (the Python executor's window is 64 per worker, for
programs of a few milliseconds)."""


BATCH_ROUNDS = 3
"""How often ``_run_batch`` builds a batch again without the members a failed build named,
before it builds the rest alone (each round drops at least one member)."""


class ToolchainMissingError(RuntimeError):
    """A language's compiler or runtime is not installed (the message says what to install)."""


class ForeignPool(Compiling, Running, References):
    """Compile and run foreign-language programs, one status per assertion: the pool behind
    :class:`~data_builders.execution.executor.Executor` for every language but Python (it
    runs programs of any of them, each by its ``Program.language``).

    Args:
        workers: programs run at once (threads; each program is its own processes).
        limits: resource limits (default: ``configs/build/limits.yaml``'s ``compiled``).
        isolation: ``"auto"`` (bubblewrap + seccomp when available, else rlimits with a
            warning), ``"bwrap+seccomp"`` (``ExecutorUnavailableError`` if unavailable) or
            ``"rlimits"``.
        cache_dir: where builds are kept, by hash (default: a temporary folder removed on
            ``close``); a persistent folder lets later runs reuse builds.
        shared_cache_dir: the compiler caches a language may share between programs (Go's
            compiled standard library and testify: ~1 CPU-minute to build once), default
            ``$XDG_CACHE_HOME/unice/shared-build``; writable by the compile sandbox only.
        compile_servers: compile with one long-lived compiler per language where the
            language has one (Java: ``compile_server.py``); False runs the command line
            for every program.
        runners: run programs in one long-lived runner per worker thread where the
            language has one (JavaScript: ``runner.py``); False starts a process
            per program, as an isolation without bubblewrap always does (a runner empties
            ``/tmp`` between programs: the sandbox's, never the machine's).
        compile_batches: ``map`` compiles consecutive programs of a language that allows it
            (Rust: ``compile_batch``) as one build, each run alone from it; False builds every
            program alone. The verdicts are the same either way (``_run_batch``).
        speculative_resume: once a program has timed out on a case, the fresh processes that
            resume it after its next cases start beside each other in the workers that idle
            (``foreign_run.Running._run_lanes``); False resumes one at a time. The verdicts
            are the same either way.
    """

    def __init__(
        self,
        workers: int | None = None,
        limits: ForeignLimits | None = None,
        isolation: str = "auto",
        cache_dir: Path | None = None,
        shared_cache_dir: Path | None = None,
        compile_servers: bool = True,
        runners: bool = True,
        compile_batches: bool = True,
        speculative_resume: bool = True,
    ) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.limits = limits or ForeignLimits.from_yaml()
        self._own_cache = cache_dir is None
        self.cache_dir = Path(cache_dir or tempfile.mkdtemp(prefix="unice-builds-"))
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self._trash = DeferredRemoval(self.cache_dir.parent)  # released builds (_release)
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        self.shared_cache_dir = Path(shared_cache_dir or Path(xdg) / "unice" / "shared-build")
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self._reference_cache: dict[str, dict[int, Any]] = {}  # foreign_reference.References
        self._reference_locks: dict[str, threading.Lock] = {}
        self._builds: dict[str, Build] = {}
        self._users: dict[str, int] = {}
        plan = plan_isolation(isolation, COMPILED_LEVELS)
        if plan.missing:
            warn_once(f"foreign programs run with rlimits only: {'; '.join(plan.missing)}")
        self.isolation = plan.level
        self._bpf_path: Path | None = None
        if plan.seccomp:
            self._bpf_path = self.cache_dir / "run-filter.bpf"
            self._bpf_path.write_bytes(export_bpf(COMPILED_RUN))
        self.use_compile_servers = compile_servers
        # A runner empties /tmp and /dev/shm after each program: only where they are the
        # sandbox's own (bubblewrap); with rlimits alone every program gets a process of its own
        self.use_runners = runners and self.isolation.startswith("bwrap")
        self.use_compile_batches = compile_batches
        self.speculative_resume = speculative_resume
        self._occupied = 0  # worker slots in use (foreign_run.Running._take_lanes)
        self._lanes: concurrent.futures.ThreadPoolExecutor | None = None
        self._local = threading.local()  # each worker thread's runners, by language
        self._runners: set[Runner] = set()
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._servers: dict[str, CompileServer] = {}
        self._server_warnings: set[str] = set()
        self.compile_seconds = 0.0  # wall seconds spent compiling
        self.compiles = 0
        self.run_cpu_seconds = 0.0  # CPU seconds of the run processes (sampled, see Tree)
        self.processes = 0
        self.resumes_ahead = 0  # speculative resumes started, and kept (foreign_run._run_lanes)
        self.resumes_ahead_kept = 0

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._lanes is not None:
            self._lanes.shutdown(wait=True)
            self._lanes = None
        for server in self._servers.values():
            server.close()
        with self._locks_lock:
            runners, self._runners = list(self._runners), set()
        for runner in runners:
            runner.close()
        self._trash.close()
        if self._own_cache:
            shutil.rmtree(self.cache_dir, ignore_errors=True)

    # -- public API -------------------------------------------------------------------
    def run(self, program: Program) -> ProgramResult:
        """Compile (or reuse) and run ``program`` (``program.tests``: the language's own
        test code, one :class:`TestCode`); one outcome per assertion."""
        language = self._language(program)
        with self._occupying():
            return self._run_alone(language, program, self._driver(language, program))

    def _run_alone(
        self, language: Language, program: Program, driver: Driver | None
    ) -> ProgramResult:
        """``program`` built on its own from its ``driver`` and run."""
        if driver is None:
            # A test with no assertion this language recognises (HumanEval-X's Rust/32 test
            # is commented out): no test, so pass_ratio 0 and not passed, as for a Python
            # program without tests; label says which tasks.
            return ProgramResult([], self.isolation, 0)
        build = self._build(language, driver.files, driver.mode, driver.prelude)
        try:
            return self._result(language, program, driver, build)
        finally:
            self._release(build)

    @staticmethod
    def _language(program: Program) -> Language:
        """``program``'s language module; a TypeError for a program with test objects (a
        Python program: the Python executor's), before its language is looked up."""
        if not isinstance(program.tests, TestCode):
            raise TypeError(
                f"a {program.language!r} program with test objects runs on the Python executor;"
                " here Program.tests is the language's own test code (a TestCode)"
            )
        return get_language(program.language)

    def _driver(self, language: Language, program: Program) -> Driver | None:
        """``program``'s driver (None: its test has no assertion the language recognises);
        an error for a missing toolchain."""
        missing = language.missing_toolchain()
        if missing:
            raise ToolchainMissingError(missing)
        try:
            driver = self._reference_driver(language, program)
            assert isinstance(program.tests, TestCode)  # _language checked it
            return driver or language.driver(program.source, program.tests.text)
        except (SplitError, ValueError):
            return None

    def _result(
        self,
        language: Language,
        program: Program,
        driver: Driver,
        build: Build,
        run_args: tuple[str, ...] = (),
    ) -> ProgramResult:
        """``program``'s outcomes from its build (``run_args``: what selects its cases in a
        batch's shared binary)."""
        in_program = driver.judged_in_program
        if not build.ok:
            detail = build.log[-2000:]
            outcomes = [TestOutcome("compile_error", detail=detail) for _ in range(driver.n_cases)]
            return ProgramResult(outcomes, self.isolation, in_program)
        timeout = program.timeout if program.timeout is not None else self.limits.timeout
        timeouts = program.test_timeouts or [timeout] * driver.n_cases
        if len(timeouts) != driver.n_cases:
            raise ValueError(
                f"{len(timeouts)} test_timeouts for a test of {driver.n_cases} assertions"
            )
        outcomes = self._run_cases(
            language,
            build.path,
            timeouts,
            mode=driver.mode,
            checks=driver.checks,
            run_args=run_args,
        )
        return ProgramResult(outcomes, self.isolation, in_program)

    def _run_batch(self, programs: list[Program]) -> list[ProgramResult]:
        """Programs of one language compiled as one build where the language allows
        (``Language.batch``: Rust), each then run alone from the shared binary.

        A failed batch build is never a member's verdict: the members the compiler's log
        names are built alone, the others as a batch again (``BATCH_ROUNDS`` times at most),
        and whatever is left, including every member of a build the compiler did not finish,
        is built alone. So each verdict is the one its own build gives, found faster."""
        with self._occupying():
            language = self._language(programs[0])
            drivers = [self._driver(self._language(p), p) for p in programs]
            results: list[ProgramResult | None] = [None] * len(programs)
            members = {i: d for i, d in enumerate(drivers) if d is not None and d.shareable}
            for _ in range(BATCH_ROUNDS):
                if len(members) < 2:
                    break
                batch = language.batch(list(members.values()))
                shared = batch.driver
                build = self._build(language, shared.files, shared.mode, shared.prelude)
                try:
                    if build.ok:
                        for (i, driver), run_args in zip(
                            members.items(), batch.run_args, strict=True
                        ):
                            results[i] = self._result(
                                language, programs[i], driver, build, run_args
                            )
                        break
                    culprits = language.batch_culprits(build.log, len(members))
                finally:
                    self._release(build)
                if not culprits:
                    break
                members = {i: d for j, (i, d) in enumerate(members.items()) if j not in culprits}
            return [
                result if result is not None else self._run_alone(language, program, driver)
                for result, program, driver in zip(results, programs, drivers, strict=True)
            ]

    def _release(self, build: Build) -> None:
        """A temporary cache keeps a build only while a program uses it (a Go test binary is
        several MB; a labelling job builds thousands); a persistent ``cache_dir`` keeps all.

        The folder is taken away under the build's own lock: the same program arriving
        meanwhile (a duplicate sample) waits in ``_build`` and builds it again, instead of
        finding the finished marker of a folder about to vanish and running a program that is
        gone (``Cannot find module .../main.js``, a runtime error for a correct program). It
        leaves by a rename and is deleted in the background (:class:`DeferredRemoval`: a
        worker does not wait on the disk)."""
        with self._locks_lock:
            lock = self._locks.setdefault(build.digest, threading.Lock())
        with lock:
            with self._locks_lock:
                self._users[build.digest] -= 1
                if not self._own_cache or self._users[build.digest] > 0:
                    return
                del self._users[build.digest]
                self._builds.pop(build.digest, None)
            self._trash.remove(build.path)

    @property
    def n_workers(self) -> int:
        """Programs run at once (``Executor.n_workers``)."""
        return self.workers

    def map(self, programs: Iterable[Program]) -> Iterator[ProgramResult]:
        """Results in input order, ``workers`` programs at a time.

        ``programs`` is read lazily: at most ``MAP_WINDOW_PER_WORKER * workers`` programs are
        submitted and not yet yielded, so a long input (a generator of a labelling job's
        programs) is never all in memory, and a map stopped early runs little beyond it.
        Consecutive programs of a language that compiles several in one build (Rust) go to
        a worker together (``_run_batch``)."""
        pool = self._thread_pool()
        window = MAP_WINDOW_PER_WORKER * self.workers
        pending: collections.deque[concurrent.futures.Future[list[ProgramResult]]] = (
            collections.deque()
        )
        held = 0
        try:
            for group in self._groups(programs):
                if len(group) == 1:
                    pending.append(pool.submit(lambda p: [self.run(p)], group[0]))
                else:
                    pending.append(pool.submit(self._run_batch, group))
                held += len(group)
                while held >= window:
                    results = pending.popleft().result()
                    held -= len(results)
                    yield from results
            while pending:
                yield from pending.popleft().result()
        finally:  # a map stopped early does not run the programs nobody will read
            for future in pending:
                future.cancel()
            concurrent.futures.wait(pending)

    def _groups(self, programs: Iterable[Program]) -> Iterator[list[Program]]:
        """``programs`` in order, as runs of up to ``compile_batch`` consecutive programs of
        one language that batches its builds, and single programs otherwise."""
        group: list[Program] = []
        for program in programs:
            size = self._batch_size(program.language)
            if group and (program.language != group[0].language or len(group) >= size):
                yield group
                group = []
            if size > 1:
                group.append(program)
            else:
                yield [program]
        if group:
            yield group

    def _batch_size(self, language: str) -> int:
        """How many programs of ``language`` one build may hold here (1: none batched)."""
        if not self.use_compile_batches:
            return 1
        try:
            return max(1, get_language(language).compile_batch)
        except ValueError:  # an unknown language: ``run`` says so
            return 1

    def _thread_pool(self) -> concurrent.futures.ThreadPoolExecutor:
        """The executor's worker threads, kept across ``map`` calls so that each keeps its
        runners (a build maps chunk after chunk) instead of leaving them idle."""
        with self._locks_lock:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    self.workers, thread_name_prefix="unice-foreign"
                )
            return self._pool

    # -- sandbox ----------------------------------------------------------------------
    def _sandboxed(
        self,
        argv: list[str],
        rlimits: dict[str, int],
        cwd: Path,
        writable: list[Path] = (),  # type: ignore[assignment]
        readonly: list[Path] = (),  # type: ignore[assignment]
        seccomp: bool = True,
    ) -> Command:
        return sandbox_command(
            argv,
            rlimits,
            cwd,
            self.isolation,
            self.limits.tmp_size_mb,
            self._bpf_path,
            writable=writable,
            readonly=readonly,
            seccomp=seccomp,
        )
