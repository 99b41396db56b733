"""Sandboxed compile-and-run for programs in other languages (C++, Java, JavaScript, Go).

Language-agnostic: a language module (``execution/languages/``) turns program + test into a
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

For languages with the token protocol (C++, JavaScript; ``languages/base.py``) each run gets
a fresh report token, and a case of the form ``actual OP expected`` reports only its value,
judged here (``foreign_checks.py``); other cases (and every case of Java, Go, Rust) report
their own verdict, counted per program as ``judged_in_program``. See docs/languages.md for
what that means against a hostile program. Watching one process:
``foreign_process.py``; the isolation level and seccomp filter: ``foreign_sandbox.py``;
Java's warm compiler: ``compile_server.py``.
"""

from __future__ import annotations

import collections
import concurrent.futures
import hashlib
import math
import os
import secrets
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from data_builders.execution.compile_server import CompileServer, ServerFailedError
from data_builders.execution.foreign_checks import judge
from data_builders.execution.foreign_process import Command, End, Watch, base_env, supervise
from data_builders.execution.foreign_runner import Runner, RunnerDiedError
from data_builders.execution.foreign_sandbox import plan_isolation, run_filter_bpf
from data_builders.execution.languages import (
    Language,
    Prelude,
    RunnerSpec,
    RunSpec,
    SplitError,
    get_language,
)
from data_builders.execution.types import ProgramResult, TestOutcome

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "build" / "languages.yaml"
# A runner's CPU rlimit: a backstop only (each program's cases are watched on their own).
RUNNER_CPU_SECONDS = 24 * 3600
MAP_WINDOW_PER_WORKER = 16
"""How far ``map`` may run ahead of the oldest unyielded program, per worker.

Results come back in input order, so a slow program (a mutant that loops through every
assertion's limit: seconds) holds back every result after it, and once the window is full
the other workers stop. A program here costs ~0.1-0.5 s (compile and run), so 16 per worker
keeps the others busy for several seconds behind one such program; the cost is memory, that
many programs and results held at once (the Python executor's window is 64 per worker, for
programs of a few milliseconds)."""


class ToolchainMissingError(RuntimeError):
    """A language's compiler or runtime is not installed (the message says what to install)."""


@dataclass(frozen=True)
class ForeignLimits:
    """Limits for one program (defaults: ``configs/build/languages.yaml``)."""

    timeout: float = 3.0
    load: float = 10.0
    memory_mb: int = 1024
    runtime_overhead_mb: int = 512
    max_output_bytes: int = 8 * 1024 * 1024
    tmp_size_mb: int = 64
    compile_timeout: float = 60.0
    compile_memory_mb: int = 2048
    compile_output_bytes: int = 256 * 1024 * 1024
    max_wall_factor: float = 5.0
    after_timeout: float | None = None
    # build humaneval-x: a translated assertion is kept only if the canonical solution passes
    # it within extended_reference_limit CPU s; no calibrated limit is below calibrated_floor
    extended_reference_limit: float = 0.5
    calibrated_floor: float = 0.5
    # build humaneval-x: the canonical solution runs this many times, each run on the test the
    # runs before it left; a translated assertion is kept only if it passed every run
    canonical_runs: int = 2

    @classmethod
    def from_yaml(cls, path: Path = DEFAULT_CONFIG, **overrides: Any) -> ForeignLimits:
        """The limits in ``path`` (unknown keys are an error), with ``overrides`` on top;
        a missing, malformed or mistyped file is a one-line ``LimitConfigError``."""
        from data_builders.execution.calibrate import LimitConfigError
        from data_builders.settings_file import check_known, read_mapping

        data = read_mapping(Path(path), "no such limits config", "limit settings", LimitConfigError)
        check_known(Path(path), data, (f.name for f in fields(cls)), LimitConfigError)
        data.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**data)


@dataclass
class ForeignProgram:
    """A program in ``language`` and its test code (the language's own test format).

    ``timeout`` overrides the per-assertion CPU limit for this program; ``test_timeouts``
    gives each assertion its own (one per case of the driver, e.g. calibrated from a
    reference solution's time on each, as ``build humaneval-x`` does).
    """

    language: str
    source: str
    test: str
    timeout: float | None = None
    test_timeouts: list[float] | None = None


@dataclass
class _Build:
    ok: bool
    path: Path
    log: str = ""
    seconds: float = 0.0
    digest: str = ""


class ForeignExecutor:
    """Compile and run foreign-language programs, one status per assertion.

    Args:
        workers: programs run at once (threads; each program is its own processes).
        limits: resource limits (default: ``configs/build/languages.yaml``).
        isolation: ``"auto"`` (bubblewrap + seccomp when available, else rlimits with a
            warning), ``"bwrap+seccomp"`` (fail if unavailable) or ``"rlimits"``.
        cache_dir: where builds are kept, by hash (default: a temporary folder removed on
            ``close``); a persistent folder lets later runs reuse builds.
        shared_cache_dir: the compiler caches a language may share between programs (Go's
            compiled standard library and testify: ~1 CPU-minute to build once), default
            ``$XDG_CACHE_HOME/unice/shared-build``; writable by the compile sandbox only.
        compile_servers: compile with one long-lived compiler per language where the
            language has one (Java: ``compile_server.py``); False runs the command line
            for every program.
        runners: run programs in one long-lived runner per worker thread where the
            language has one (JavaScript: ``foreign_runner.py``); False starts a process
            per program.
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
    ) -> None:
        self.workers = workers or os.cpu_count() or 1
        self.limits = limits or ForeignLimits.from_yaml()
        self._own_cache = cache_dir is None
        self.cache_dir = Path(cache_dir or tempfile.mkdtemp(prefix="unice-builds-"))
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        self.shared_cache_dir = Path(shared_cache_dir or Path(xdg) / "unice" / "shared-build")
        self._locks: dict[str, threading.Lock] = {}
        self._locks_lock = threading.Lock()
        self._builds: dict[str, _Build] = {}
        self._users: dict[str, int] = {}
        self.isolation = plan_isolation(isolation)
        self._bpf_path: Path | None = None
        if "seccomp" in self.isolation:
            self._bpf_path = self.cache_dir / "run-filter.bpf"
            self._bpf_path.write_bytes(run_filter_bpf())
        self.use_compile_servers = compile_servers
        self.use_runners = runners
        self._local = threading.local()  # each worker thread's runners, by language
        self._runners: set[Runner] = set()
        self._pool: concurrent.futures.ThreadPoolExecutor | None = None
        self._servers: dict[str, CompileServer] = {}
        self._server_warnings: set[str] = set()
        self.compile_seconds = 0.0  # wall seconds spent compiling
        self.compiles = 0
        self.run_cpu_seconds = 0.0  # CPU seconds of the run processes (sampled, see Tree)
        self.processes = 0

    def __enter__(self) -> ForeignExecutor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        for server in self._servers.values():
            server.close()
        with self._locks_lock:
            runners, self._runners = list(self._runners), set()
        for runner in runners:
            runner.close()
        if self._own_cache:
            shutil.rmtree(self.cache_dir, ignore_errors=True)

    # -- public API -------------------------------------------------------------------
    def run(self, program: ForeignProgram) -> ProgramResult:
        """Compile (or reuse) and run ``program``; one outcome per assertion."""
        language = get_language(program.language)
        missing = language.missing_toolchain()
        if missing:
            raise ToolchainMissingError(missing)
        try:
            driver = language.driver(program.source, program.test)
        except (SplitError, ValueError):
            # A test with no assertion this language recognises (HumanEval-X's Rust/32 test
            # is commented out): no test, so pass_ratio 0 and not passed, as for a Python
            # program without tests; label says which tasks.
            return ProgramResult([], self.isolation, 0)
        build = self._build(language, driver.files, driver.mode, driver.prelude)
        in_program = driver.judged_in_program
        try:
            if not build.ok:
                detail = build.log[-2000:]
                outcomes = [
                    TestOutcome("compile_error", detail=detail) for _ in range(driver.n_cases)
                ]
                return ProgramResult(outcomes, self.isolation, in_program)
            timeout = program.timeout if program.timeout is not None else self.limits.timeout
            timeouts = program.test_timeouts or [timeout] * driver.n_cases
            if len(timeouts) != driver.n_cases:
                raise ValueError(
                    f"{len(timeouts)} test_timeouts for a test of {driver.n_cases} assertions"
                )
            return ProgramResult(
                self._run_cases(
                    language, build.path, timeouts, mode=driver.mode, checks=driver.checks
                ),
                self.isolation,
                in_program,
            )
        finally:
            self._release(build)

    def _release(self, build: _Build) -> None:
        """A temporary cache keeps a build only while a program uses it (a Go test binary is
        several MB; a labelling job builds thousands); a persistent ``cache_dir`` keeps all."""
        with self._locks_lock:
            self._users[build.digest] -= 1
            if not self._own_cache or self._users[build.digest] > 0:
                return
            del self._users[build.digest]
            self._builds.pop(build.digest, None)
        shutil.rmtree(build.path, ignore_errors=True)

    @property
    def n_workers(self) -> int:
        """Programs run at once (the Python executor's name for it)."""
        return self.workers

    def map(
        self, programs: Iterable[ForeignProgram], progress: str | None = None
    ) -> Iterator[ProgramResult]:
        """Results in input order, ``workers`` programs at a time (``progress``: a label for
        a progress bar on stderr).

        ``programs`` is read lazily: at most ``MAP_WINDOW_PER_WORKER * workers`` programs are
        submitted and not yet yielded, so a long input (a generator of a labelling job's
        programs) is never all in memory, and a map stopped early runs little beyond it."""
        from tqdm import tqdm

        total = len(programs) if hasattr(programs, "__len__") else None  # type: ignore[arg-type]
        bar = tqdm(
            total=total, desc=progress, unit="prog", file=sys.stderr, disable=progress is None
        )
        pool = self._thread_pool()
        window = MAP_WINDOW_PER_WORKER * self.workers
        pending: collections.deque[concurrent.futures.Future[ProgramResult]] = collections.deque()
        try:
            for program in programs:
                pending.append(pool.submit(self.run, program))
                if len(pending) >= window:
                    yield pending.popleft().result()
                    bar.update(1)
            while pending:
                yield pending.popleft().result()
                bar.update(1)
        finally:  # a map stopped early does not run the programs nobody will read
            for future in pending:
                future.cancel()
            concurrent.futures.wait(pending)
            bar.close()

    def _thread_pool(self) -> concurrent.futures.ThreadPoolExecutor:
        """The executor's worker threads, kept across ``map`` calls so that each keeps its
        runners (a build maps chunk after chunk) instead of leaving them idle."""
        with self._locks_lock:
            if self._pool is None:
                self._pool = concurrent.futures.ThreadPoolExecutor(
                    self.workers, thread_name_prefix="unice-foreign"
                )
            return self._pool

    # -- compile ----------------------------------------------------------------------
    def _build(
        self,
        language: Language,
        files: dict[str, str],
        mode: str = "",
        prelude: Prelude | None = None,
    ) -> _Build:
        argv = language.compile_argv(Path("."), mode)
        digest = hashlib.sha256(
            repr((language.name, sorted(files.items()), argv, prelude)).encode()
        ).hexdigest()
        with self._locks_lock:
            lock = self._locks.setdefault(digest, threading.Lock())
        with lock:
            with self._locks_lock:
                self._users[digest] = self._users.get(digest, 0) + 1
            if digest in self._builds:
                return self._builds[digest]
            path = self.cache_dir / language.name / digest[:32]
            marker = path / ".unice-build-ok"
            failed = path / ".unice-build-failed"
            if marker.exists():
                build = _Build(True, path)
            elif failed.exists():
                build = _Build(False, path, failed.read_text(errors="replace"))
            else:
                readonly: list[Path] = []
                if prelude is not None:  # (the shared cache may be under the sandbox's own /tmp)
                    readonly.append(self._prelude(language, prelude))
                    argv = language.compile_argv(path, mode, readonly[0])
                build = self._compile(language, files, path, argv, readonly)
                (marker if build.ok else failed).write_text(build.log)
            build.digest = digest
            self._builds[digest] = build
            return build

    def _compile(
        self,
        language: Language,
        files: dict[str, str],
        path: Path,
        argv: list[str] | None,
        readonly: list[Path] | None = None,
    ) -> _Build:
        """Write ``files`` into ``path`` and compile them there (``readonly``: folders the
        compiler reads besides the system's)."""
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        for name, text in files.items():
            (path / name).write_text(text)
        if argv is None:
            return _Build(True, path)
        server = self._server(language)
        if server is not None:
            started = time.monotonic()
            try:
                ok, log, _ = server.compile(path)
            except ServerFailedError as exc:
                if str(exc) not in self._server_warnings:  # each distinct failure said once
                    self._server_warnings.add(str(exc))
                    print(
                        f"warning: {language.name} compile server failed"
                        f" ({' '.join(str(exc).split())}); using {argv[0]}",
                        file=sys.stderr,
                    )
            else:
                seconds = time.monotonic() - started
                self.compiles += 1
                self.compile_seconds += seconds
                return _Build(ok, path, log[-4000:], seconds)
        if not language.shared_cache_env:
            return self._compile_in_sandbox(language, path, argv, None, readonly=readonly)
        shared = self.shared_cache_dir / language.name
        shared.mkdir(parents=True, exist_ok=True)
        warm = shared / ".unice-warm"
        if warm.exists():
            return self._compile_in_sandbox(language, path, argv, shared, readonly=readonly)
        # The first build fills the shared cache (Go: the standard library and testify, about
        # a CPU-minute): one build at a time, under ten times the compile limit.
        with self._locks_lock:
            lock = self._locks.setdefault(f"warm-{language.name}", threading.Lock())
        with lock:
            cold = not warm.exists()
            factor = 10.0 if cold else 1.0
            build = self._compile_in_sandbox(language, path, argv, shared, factor, readonly)
            if cold and build.ok:
                warm.write_text("")
            return build

    def _prelude(self, language: Language, prelude: Prelude) -> Path:
        """The shared folder holding ``prelude`` (its text, and its compiled form where
        precompiling worked), made once per distinct prelude and reused by every later
        program, executor and process on this machine."""
        argv = language.prelude_argv(prelude)
        key = hashlib.sha256(repr((language.name, prelude, argv)).encode()).hexdigest()[:24]
        folder = self.shared_cache_dir / language.name / "prelude" / key
        if (folder / ".unice-prelude-done").exists():
            return folder
        with self._locks_lock:
            lock = self._locks.setdefault(f"prelude-{key}", threading.Lock())
        with lock:
            if (folder / ".unice-prelude-done").exists():
                return folder
            # Made aside and renamed into place, so another process never reads half of it.
            staging = folder.with_name(f"{key}.tmp-{os.getpid()}-{threading.get_ident()}")
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            (staging / prelude.name).write_text(prelude.text)
            log = ""
            if argv is not None:
                build = self._compile_in_sandbox(language, staging, argv, None)
                log = build.log
                if not build.ok:  # the text alone still compiles exactly as before, slower
                    for item in staging.iterdir():
                        if item.name != prelude.name:  # (a file, or a folder it left)
                            shutil.rmtree(item) if item.is_dir() else item.unlink()
            (staging / ".unice-prelude-done").write_text(log)
            try:
                staging.rename(folder)
            except OSError:  # another process made it first: same content, keep theirs
                shutil.rmtree(staging, ignore_errors=True)
            return folder

    def _server(self, language: Language) -> CompileServer | None:
        """The language's compile server (started on first use), or None."""
        spec = language.compile_server
        if spec is None or not self.use_compile_servers:
            return None
        with self._locks_lock:
            if language.name not in self._servers:
                digest = hashlib.sha256(repr(sorted(spec.files.items())).encode()).hexdigest()[:16]
                home = self.shared_cache_dir / f"{language.name}-server-{digest}"
                builds = self.cache_dir / language.name
                builds.mkdir(parents=True, exist_ok=True)
                self._servers[language.name] = CompileServer(
                    spec, home, builds, self._sandboxed, self.limits
                )
            return self._servers[language.name]

    def _compile_in_sandbox(
        self,
        language: Language,
        path: Path,
        argv: list[str],
        shared: Path | None,
        limit_factor: float = 1.0,
        readonly: list[Path] | None = None,
    ) -> _Build:
        limits = self.limits
        cpu_limit = limits.compile_timeout * limit_factor
        env = base_env()
        env.update(language.compile_env(path))
        binds = [path]
        if shared is not None and language.shared_cache_env:
            env[language.shared_cache_env] = str(shared)
            binds.append(shared)
        # Compilers' scratch files go to disk, not the sandbox's small /tmp tmpfs (sized for
        # programs): Go building the standard library into a cold cache writes more than it.
        scratch = path / ".compile-tmp"
        scratch.mkdir(exist_ok=True)
        env["TMPDIR"] = str(scratch)
        rlimits = {
            "cpu": math.ceil(cpu_limit) + 1,
            "fsize": limits.compile_output_bytes,
            "core": 0,
            "nofile": 1024,
        }
        if language.compiler_address_space_limit:
            rlimits["as"] = limits.compile_memory_mb * 1024 * 1024
        command = self._sandboxed(
            argv, rlimits, writable=binds, readonly=readonly or [], cwd=path, seccomp=False
        )
        started = time.monotonic()
        watch = Watch(limits.compile_memory_mb, limits.max_wall_factor)
        end = supervise(command, env, path, None, watch, [cpu_limit], cpu_limit)
        seconds = time.monotonic() - started
        shutil.rmtree(scratch, ignore_errors=True)
        self.compiles += 1
        self.compile_seconds += seconds
        log = end.stderr + end.stdout
        if end.killed:
            log = (
                f"compile {end.killed} (limits: {cpu_limit} s CPU, {limits.compile_memory_mb} MB)\n"
                + log
            )
        return _Build(end.killed is None and end.returncode == 0, path, log[-4000:], seconds)

    # -- run --------------------------------------------------------------------------
    def _run_cases(
        self,
        language: Language,
        build: Path,
        timeouts: list[float],
        start: int = 0,
        mode: str = "",
        checks: tuple[Any, ...] | None = None,
    ) -> list[TestOutcome]:
        """Run cases ``start..n-1`` of a built driver (earlier ones: ``not run``), case *k*
        under ``timeouts[k]`` CPU seconds; ``checks``: the driver's host-side checks."""
        limits = self.limits
        spec = language.run_spec(limits.memory_mb, mode)
        n = len(timeouts)
        outcomes: list[TestOutcome | None] = [None] * n
        case_limits = list(timeouts)
        checks = checks if checks is not None else (None,) * n
        values = frozenset(k for k, check in enumerate(checks) if check is not None)
        if start >= n:  # nothing to run: start the process anyway (start-up measurements)
            self._run_once(language, build, spec, case_limits, start, values)
        while start < n:
            end = self._run_once(language, build, spec, case_limits, start, values)
            start = self._settle(language, end, outcomes, case_limits, start, checks)
        return [
            o if o is not None else TestOutcome("runtime_error", detail="not run") for o in outcomes
        ]

    def _run_once(
        self,
        language: Language,
        build: Path,
        spec: RunSpec,
        case_limits: list[float],
        start: int,
        value_cases: frozenset[int] = frozenset(),
    ) -> End:
        """One sandboxed process running the cases from ``start`` on (or one program in the
        language's runner, where it has one), with a fresh report token where the language
        takes one."""
        limits = self.limits
        token = secrets.token_hex(16) if language.token_protocol else None
        runner_spec = language.runner_spec(limits.memory_mb) if self.use_runners else None
        if runner_spec is not None:
            return self._run_in_runner(
                language, runner_spec, build, case_limits, start, token, value_cases
            )
        read_fd, write_fd = os.pipe()
        os.set_blocking(read_fd, False)
        values = {"build": str(build), "start": str(start), "fd": str(write_fd)}
        argv = [part.format(**values) for part in spec.argv]
        env = base_env()
        env.update({key: value.format(**values) for key, value in spec.env.items()})
        remaining = case_limits[start:]
        rlimits = {
            "cpu": math.ceil(limits.load + sum(remaining)) + 1,
            "fsize": limits.max_output_bytes,
            "core": 0,
            "nofile": 1024,
        }
        if spec.address_space_limit:
            rlimits["as"] = limits.memory_mb * 1024 * 1024
        rss_mb = limits.memory_mb + (0 if spec.address_space_limit else limits.runtime_overhead_mb)
        with tempfile.TemporaryDirectory(prefix="unice-run-") as scratch:
            command = self._sandboxed(
                argv, rlimits, readonly=[build], cwd=Path(scratch), seccomp=True
            )
            watch = Watch(rss_mb, limits.max_wall_factor)
            end = supervise(
                command,
                env,
                Path(scratch),
                write_fd,
                watch,
                case_limits,
                limits.load,
                read_fd,
                start,
                token,
                value_cases,
            )
        with self._locks_lock:
            self.run_cpu_seconds += end.cpu
            self.processes += 1
        return end

    def _run_in_runner(
        self,
        language: Language,
        spec: RunnerSpec,
        build: Path,
        case_limits: list[float],
        start: int,
        token: str | None = None,
        value_cases: frozenset[int] = frozenset(),
    ) -> End:
        """The cases from ``start`` on, run by this thread's runner (started when it has
        none, or when the last one died or is used up). The runtime is already up, so what
        runs before the first case is the program's and its test's own code: it gets an
        assertion's cap (``timeout``), not ``load``, the allowance for starting a runtime."""
        limits = self.limits
        load = min(limits.load, limits.timeout)
        request = language.runner_request(build, start, limits.memory_mb, limits.max_output_bytes)
        watch = Watch(limits.memory_mb + limits.runtime_overhead_mb, limits.max_wall_factor)
        for attempt in range(2):
            runner = self._thread_runner(language, spec)
            try:
                end = runner.run(request, case_limits, load, watch, token, value_cases)
                break
            except RunnerDiedError:  # it ended between programs (it asks to be replaced so)
                self._drop_runner(runner)
                if attempt:
                    raise
        retired = not runner.alive  # killed at a limit, taken down, or asked to be replaced
        if retired:
            self._drop_runner(runner)
        with self._locks_lock:
            self.run_cpu_seconds += end.cpu
            self.processes += int(retired)
        return end

    def _thread_runner(self, language: Language, spec: RunnerSpec) -> Runner:
        runners = self._local.__dict__.setdefault("runners", {})
        runner = runners.get(language.name)
        if runner is not None and (not runner.alive or runner.programs >= spec.max_programs):
            self._drop_runner(runner)
            runner = None
        if runner is None:
            readonly = [self.cache_dir, *(Path(p) for p in spec.read_only)]
            keep = ":".join(str(path) for path in readonly)  # bound folders: never emptied
            argv = [a.replace("{keep}", keep) for a in spec.argv]
            rlimits = {
                "cpu": RUNNER_CPU_SECONDS,
                "fsize": self.limits.max_output_bytes,
                "core": 0,
                "nofile": 1024,
            }
            command = self._sandboxed(
                argv, rlimits, readonly=readonly, cwd=Path(tempfile.gettempdir())
            )
            env = base_env()
            env.update(spec.env)
            runner = Runner(command, env)
            runners[language.name] = runner
            with self._locks_lock:
                self._runners.add(runner)
        return runner

    def _drop_runner(self, runner: Runner) -> None:
        runner.close()
        runners = self._local.__dict__.get("runners", {})
        for name, held in list(runners.items()):
            if held is runner:
                del runners[name]
        with self._locks_lock:
            self._runners.discard(runner)

    def _settle(
        self,
        language: Language,
        end: End,
        outcomes: list[TestOutcome | None],
        case_limits: list[float],
        start: int,
        checks: tuple[Any, ...] = (),
    ) -> int:
        """Record one process's reports (a value case judged here, a refused one a runtime
        error); return the case to resume from (len: done)."""
        n = len(outcomes)
        for k, status in end.results.items():
            if (old := outcomes[k]) is not None and old.detail.startswith("report refused"):
                continue  # refused in an earlier process of this program: stays refused
            detail = end.details.get(k, "")
            if status == "value":
                status, detail = judge(checks[k], end.values[k])
            outcomes[k] = TestOutcome(status, time=end.times.get(k, 0.0), detail=detail)
        for k, reason in end.rejected.items():
            outcomes[k] = TestOutcome("runtime_error", time=end.times.get(k, 0.0), detail=reason)
        cause, detail = _cause(language, end)
        if cause == "timeout" and self.limits.after_timeout is not None:
            for k in range(n):
                case_limits[k] = min(case_limits[k], self.limits.after_timeout)
        if end.running is not None:  # died inside a case: that case fails, the rest resume
            outcomes[end.running] = TestOutcome(
                cause, time=end.times.get(end.running, 0.0), detail=detail
            )
            return end.running + 1
        if end.killed is None and end.returncode == 0 and end.last is not None:
            # A clean exit: cases the test never reached (a loop of zero turns) fail.
            for k in range(start, n):
                if outcomes[k] is None:
                    outcomes[k] = TestOutcome("runtime_error", detail="assertion not reached")
            return n
        # Ended outside any case (loading, or code between cases): every case not yet
        # reported gets the cause, as a Python program that fails to load does.
        if end.last is None and end.killed is None:
            cause = language.load_status(end.returncode, end.stderr) or cause
        first = start if end.last is None else end.last + 1
        for k in range(first, n):
            if outcomes[k] is None:
                outcomes[k] = TestOutcome(cause, detail=detail)
        for k in range(start, n):
            if outcomes[k] is None:
                outcomes[k] = TestOutcome("runtime_error", detail="assertion not reached")
        return n

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
        # The host's PATH finds the tool (a toolchain outside /usr/bin, e.g. under ~/.cargo).
        argv = [shutil.which(argv[0]) or argv[0], *argv[1:]] if "/" not in argv[0] else argv
        prlimit = ["prlimit", *(f"--{name}={value}" for name, value in rlimits.items()), "--"]
        if not self.isolation.startswith("bwrap"):
            return Command([*prlimit, *argv], cwd, None)
        bwrap = [
            "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
            "--size", str(self.limits.tmp_size_mb * 1024 * 1024), "--tmpfs", "/tmp",
            "--dev", "/dev", "--size", str(self.limits.tmp_size_mb * 1024 * 1024), "--tmpfs", "/dev/shm",
            "--remount-ro", "/dev", "--proc", "/proc", "--cap-drop", "ALL",
        ]  # fmt: skip
        for path in writable:
            bwrap += ["--bind", str(path), str(path)]
        for path in readonly:
            bwrap += ["--ro-bind", str(path), str(path)]
        inner_cwd = cwd if writable else Path("/tmp")
        bwrap += ["--chdir", str(inner_cwd)]
        seccomp_file = None
        if seccomp and self._bpf_path is not None:
            seccomp_file = self._bpf_path
            bwrap += ["--seccomp", "{seccomp_fd}"]
        return Command([*prlimit, *bwrap, "--", *argv], cwd, seccomp_file)


def _cause(language: Language, end: End) -> tuple[str, str]:
    """The status of a process that ended (or was killed) before finishing, and why."""
    if end.killed:
        return end.killed, f"killed: {end.killed} limit"
    code = end.returncode
    if end.running is not None:
        status = language.crash_status(code, end.stderr)
        if status:
            return status, end.stderr[-300:]
    signum = -code if code < 0 else code - 128 if code > 128 else 0
    if signum == signal.SIGXCPU:
        return "timeout", "CPU limit (SIGXCPU)"
    if signum == signal.SIGXFSZ:
        return "runtime_error", "output beyond the cap (SIGXFSZ)"
    if signum:
        return "signal", f"killed by signal {signum}"
    if code:
        return "runtime_error", f"exit status {code}: {end.stderr[-300:]}"
    return "runtime_error", "the program ended its process"
