"""Running a built driver's cases for ``ForeignPool`` (``pool.py``): one process runs
every case (or one program in the language's long-lived runner); the host watches the CPU
time and resident memory of the sandboxed process tree per case (``process.py``),
kills the process group on a limit, and resumes the remaining cases in a fresh process after
a crash or timeout, so each assertion gets its own status; a value case is judged here
(``checks.py``), never in the program's process.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import dataclasses
import math
import os
import secrets
import signal
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from data_builders.execution.compiled.checks import host_cases, judge, judge_series
from data_builders.execution.compiled.languages import Language, RunnerSpec, RunSpec
from data_builders.execution.compiled.process import base_env, supervise
from data_builders.execution.compiled.runner import Runner, RunnerDiedError
from data_builders.execution.compiled.watch import End, Watch
from data_builders.execution.limits import ForeignLimits
from data_builders.execution.types import TestOutcome

# A runner's CPU rlimit: a backstop only (each program's cases are watched on their own).
RUNNER_CPU_SECONDS = 24 * 3600


class Running:
    """``ForeignPool``'s run side (a mixin: the state is the executor's, made in its
    ``__init__``; ``_sandboxed`` is its sandbox command)."""

    limits: ForeignLimits
    cache_dir: Path
    use_runners: bool
    speculative_resume: bool
    workers: int
    run_cpu_seconds: float
    processes: int
    resumes_ahead: int  # speculative resumes started (``_run_lanes``)
    resumes_ahead_kept: int  # ... and the ones whose verdicts were kept
    _local: threading.local
    _runners: set[Runner]
    _locks_lock: threading.Lock
    _occupied: int  # worker slots in use: programs being run, speculative resumes
    _lanes: concurrent.futures.ThreadPoolExecutor | None
    _sandboxed: Any

    def _run_cases(
        self,
        language: Language,
        build: Path,
        timeouts: list[float],
        start: int = 0,
        mode: str = "",
        checks: tuple[Any, ...] | None = None,
        run_args: tuple[str, ...] = (),
    ) -> list[TestOutcome]:
        """Run cases ``start..n-1`` of a built driver (earlier ones: ``not run``), case *k*
        under ``timeouts[k]`` CPU seconds; ``checks``: the driver's host-side checks;
        ``run_args``: appended to the command line (a batch member's selection)."""
        limits = self.limits
        spec = language.run_spec(limits.memory_mb, mode)
        if run_args:
            spec = dataclasses.replace(spec, argv=[*spec.argv, *run_args])
        n = len(timeouts)
        outcomes: list[TestOutcome | None] = [None] * n
        case_limits = list(timeouts)
        checks = checks if checks is not None else (None,) * n
        values, repeated = host_cases(checks)
        if start >= n:  # nothing to run: start the process anyway (start-up measurements)
            self._run_once(language, build, spec, case_limits, start, values, repeated)
        timed_out = False
        while start < n:
            # After a timeout the program is likely to time out again (a loop in the
            # candidate): where workers idle, the resumes a sequential run would make next
            # start beside this one (``_run_lanes``)
            lanes = self._take_lanes(n - start - 1) if timed_out else 0
            try:
                ends = self._run_lanes(
                    language, build, spec, case_limits, start, values, repeated, lanes
                )
            finally:
                self._free_lanes(lanes)
            first = start
            for begun, end in enumerate(ends, first):
                if end is None:  # a lane that could not run: resume from its case in turn
                    break
                start = self._settle(language, end, outcomes, case_limits, begun, checks)
                if begun > first:
                    with self._locks_lock:
                        self.resumes_ahead_kept += 1
                timed_out = timed_out or _cause(language, end)[0] == "timeout"
                if start != begun + 1:  # got past its first case, or ended: later lanes void
                    break
        return [
            o if o is not None else TestOutcome("runtime_error", detail="not run") for o in outcomes
        ]

    def _run_lanes(
        self,
        language: Language,
        build: Path,
        spec: RunSpec,
        case_limits: list[float],
        start: int,
        value_cases: frozenset[int],
        repeated: frozenset[int],
        lanes: int,
    ) -> list[End | None]:
        """The process resuming at ``start`` and, in ``lanes`` idle workers beside it, the
        ones resuming at ``start + 1 .. start + lanes``: lane *j*'s end (None: it failed).

        A speculative resume, with the verdicts of a sequential run by construction: lane
        *j* is the process a sequential run starts exactly when lane *j - 1* dies inside its
        first case (a fresh process from the next case, the same limits: ``_run_cases``
        takes lanes only after a timeout, when ``after_timeout`` has capped them already).
        ``_run_cases`` settles the lanes in order and stops at the first that got past its
        first case; the later ones were spent on cases the sequential run goes on to in
        that process. Why: a mutant that loops through its remaining assertions, each a
        limit and a restart, is a batch's longest program and holds it up with the other
        workers idle (HumanEval-X ``JavaScript/39``: nine 0.2 s timeouts in a row)."""
        if not lanes:
            return [
                self._run_once(language, build, spec, case_limits, start, value_cases, repeated)
            ]
        limits = list(case_limits)  # settled only after every lane has ended
        with self._locks_lock:
            self.resumes_ahead += lanes
        pool = self._lane_pool()
        futures = [
            pool.submit(
                self._run_once, language, build, spec, limits, start + j, value_cases, repeated
            )
            for j in range(1, lanes + 1)
        ]
        try:
            ends: list[End | None] = [
                self._run_once(language, build, spec, limits, start, value_cases, repeated)
            ]
        finally:
            concurrent.futures.wait(futures)
        for future in futures:
            ends.append(None if future.exception() is not None else future.result())
        return ends

    def _take_lanes(self, wanted: int) -> int:
        """Up to ``wanted`` idle worker slots for speculative resumes (0 with them off)."""
        if not self.speculative_resume or wanted <= 0:
            return 0
        with self._locks_lock:
            taken = max(0, min(wanted, self.workers - self._occupied))
            self._occupied += taken
        return taken

    def _free_lanes(self, lanes: int) -> None:
        if lanes:
            with self._locks_lock:
                self._occupied -= lanes

    @contextlib.contextmanager
    def _occupying(self) -> Iterator[None]:
        """One worker slot held while a program (or a batch) is compiled and run, so that
        speculative resumes use only the slots nobody else does."""
        with self._locks_lock:
            self._occupied += 1
        try:
            yield
        finally:
            with self._locks_lock:
                self._occupied -= 1

    def _lane_pool(self) -> concurrent.futures.ThreadPoolExecutor:
        """The threads speculative resumes run in (each keeps its own runners, as a worker
        thread does)."""
        with self._locks_lock:
            if self._lanes is None:
                self._lanes = concurrent.futures.ThreadPoolExecutor(
                    self.workers, thread_name_prefix="unice-foreign-lane"
                )
            return self._lanes

    def _run_once(
        self,
        language: Language,
        build: Path,
        spec: RunSpec,
        case_limits: list[float],
        start: int,
        value_cases: frozenset[int] = frozenset(),
        repeated: frozenset[int] = frozenset(),
    ) -> End:
        """One sandboxed process running the cases from ``start`` on (or one program in the
        language's runner, where it has one), with a fresh report token where the language
        takes one."""
        limits = self.limits
        token = secrets.token_hex(16) if language.token_protocol else None
        runner_spec = language.runner_spec(limits.memory_mb) if self.use_runners else None
        if runner_spec is not None:
            return self._run_in_runner(
                language, runner_spec, build, case_limits, start, token, value_cases, repeated
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
                repeated,
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
        repeated: frozenset[int] = frozenset(),
    ) -> End:
        """The cases from ``start`` on, run by this thread's runner (started when it has
        none, or when the last one died or is used up). The runtime is already up, so what
        runs before the first case is the program's and its test's own code, as what runs
        between two cases is (counted in the earlier case's phase): it gets the limit of the
        first case it runs (its calibrated limit under ``label``; the cap ``timeout`` without
        calibration), not ``load``, the allowance for starting a runtime. Why: a test that
        calls the candidate before its first assertion (``JavaScript/32`` computes a root
        first) let a looping program spend the 3 s cap there, against its cases' 0.2 s."""
        limits = self.limits
        load = min([limits.load, limits.timeout, *case_limits[start : start + 1]])
        request = language.runner_request(build, start, limits.memory_mb, limits.max_output_bytes)
        watch = Watch(limits.memory_mb + limits.runtime_overhead_mb, limits.max_wall_factor)
        for attempt in range(2):
            runner = self._thread_runner(language, spec)
            try:
                end = runner.run(request, case_limits, load, watch, token, value_cases, repeated)
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
            elif status == "series":
                status, detail = judge_series(checks[k], end.series.get(k, []), end.errors.get(k))
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
