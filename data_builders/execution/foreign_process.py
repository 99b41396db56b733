"""Running one sandboxed process for the foreign-language runner and watching it.

Split from :mod:`.foreign` (which decides what to run and what the reports mean): here a
command is started with its result pipe, its reports are read as they come, and the CPU time,
resident memory and wall time of its whole process tree (bubblewrap, the runtime and its
threads) are checked every 10 ms against the current phase's limit (loading, then each
case); the process group is killed on a limit.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from data_builders.execution.process_group import kill_group

_POLL = 0.01
_BAD = {"pass": 0, "wrong_answer": 1, "runtime_error": 2, "memory": 2, "timeout": 2, "signal": 2}
_CODES = {"P": "pass", "F": "wrong_answer", "E": "runtime_error", "M": "memory"}
# A report line longer than this (a value beyond the support code's cap) is dropped.
MAX_LINE = 8 * 1024 * 1024


@dataclass
class Command:
    argv: list[str]
    cwd: Path
    seccomp_file: Path | None


@dataclass
class Watch:
    rss_mb: int
    wall_factor: float


@dataclass
class End:
    """What one process did: reported results, where it was, how it ended."""

    results: dict[int, str]
    times: dict[int, float]
    details: dict[int, str]
    running: int | None  # a case started and not finished when the process ended
    last: int | None  # the last case that started
    returncode: int
    killed: str | None  # "timeout" / "memory" when the host killed it
    stdout: str
    stderr: str
    cpu: float = 0.0  # CPU seconds of the process tree (sampled every poll)
    values: dict[int, bytes] = field(default_factory=dict)  # V reports: serialised values
    rejected: dict[int, str] = field(default_factory=dict)  # cases whose reports were refused
    series: dict[int, list[bytes]] = field(default_factory=dict)  # a loop's values, per turn
    errors: dict[int, tuple[str, str]] = field(default_factory=dict)  # a loop's worst error


class CaseWatch:
    """The reports of one program's run and the limit of the phase it is in (loading, then
    each case), checked against its process tree's CPU, memory and wall time.

    Shared by a process of its own (:func:`supervise`) and a long-lived runner that runs
    many programs (``foreign_runner.py``): CPU is counted from ``cpu_origin``, the tree's
    CPU when this program started.
    """

    def __init__(
        self,
        case_limits: list[float],
        load_limit: float,
        watch: Watch,
        cpu_origin: float = 0.0,
        token: str | None = None,
        value_cases: frozenset[int] = frozenset(),
        repeated: frozenset[int] = frozenset(),
    ) -> None:
        self.case_limits = case_limits
        self.token = token.encode() if token is not None else None
        self.value_cases = value_cases | repeated
        self.repeated = repeated
        self.values: dict[int, bytes] = {}
        self.series: dict[int, list[bytes]] = {}
        self.errors: dict[int, tuple[str, str]] = {}
        self.rejected: dict[int, str] = {}
        self.watch = watch
        self.results: dict[int, str] = {}
        self.details: dict[int, str] = {}
        self.times: dict[int, float] = {}
        self.running: int | None = None
        self.last: int | None = None
        self.limit = load_limit
        self.phase_cpu, self.phase_wall = cpu_origin, time.monotonic()
        self._idle_since: float | None = None
        self._last_ticks = int(cpu_origin / Tree.tick)

    def report(self, line: bytes, tree: Tree) -> None:
        """Record one report line of the program (other lines are ignored).

        With a token (the token protocol, ``languages/base.py``), a line counts only when it
        carries this run's token, and the host checks what the program cannot be trusted
        with: a value case (judged here, ``foreign_checks.py``) is settled only by one ``V``
        line while it runs, after its ``S``; a pass or failure line for it, a second value,
        a value for a case not running, or a case started twice or out of order refuses
        that case's reports (``rejected``: a runtime error, never a pass).

        A *repeated* value case (an assertion in a loop, ``Check.each``) starts again on
        each turn while it is the last case started, and settles each turn with one value
        (``series``) or an error (kept beside the values: ``errors``), as an in-program case
        in a loop reports each turn."""
        event = parse_report(line, len(self.case_limits), self.token)
        if event is None:
            return
        code, k, text = event
        if self.token is not None and not self._in_order(code, k):
            return
        if k in self.repeated and code in "VEM":
            self._turn(code, k, text)
            return
        if code == "V":
            self.values[k] = text.encode() if isinstance(text, str) else text
            self.results[k] = "value"
            self.running = None
            return
        if code == "S":
            if k != self.last:
                cpu = tree.cpu()
                if self.last is not None:
                    self.times[self.last] = cpu - self.phase_cpu
                self.phase_cpu, self.phase_wall, self.last = cpu, time.monotonic(), k
                self.limit = self.case_limits[k]
            self.running = k
        elif k == self.running:
            status = _CODES[code]
            old = self.results.get(k)
            if old is None or _BAD[status] > _BAD[old]:
                self.results[k] = status
                if text:
                    self.details[k] = text
            self.running = None

    def _turn(self, code: str, k: int, text: str | bytes) -> None:
        """A repeated case's value or error (``report``)."""
        self.results[k] = "series"
        self.running = None
        if code == "V":
            self.series.setdefault(k, []).append(text.encode() if isinstance(text, str) else text)
            return
        status = _CODES[code]
        old = self.errors.get(k)
        if old is None or _BAD[status] > _BAD[old[0]]:
            self.errors[k] = (status, str(text))

    def _in_order(self, code: str, k: int) -> bool:
        """Whether a tokened report fits the run so far; if not, case ``k`` is refused."""
        value_case = k in self.value_cases
        repeated = k in self.repeated
        reason = None
        if code == "S":  # (an in-program case in a loop starts again, after later ones)
            if value_case and self.last is not None and k < self.last:
                reason = "started after a later case"
            elif value_case and not repeated and (k == self.last or k in self.results):
                reason = "started twice"
            elif repeated and k != self.last and k in self.results:
                reason = "started again after another case"
        elif code == "V":
            if not value_case:
                reason = "a value for a case judged in the program"
            elif k != self.running or (k in self.values and not repeated):
                reason = "a value outside its case, or twice"
        elif repeated and code in "EM" and k != self.running:
            reason = "an error outside its turn"
        elif value_case and code in "PF":
            reason = "a verdict for a case judged on the host"
        if reason is None:
            return True
        self.rejected.setdefault(k, f"report refused: {reason}")
        return False

    def over_limit(self, tree: Tree) -> str | None:
        """``"timeout"`` / ``"memory"`` when the current phase passed a limit, else None.

        Memory is checked first: a program that allocates without end also burns CPU, and when
        the host's watch is starved of CPU (a loaded machine) one poll can find both limits
        passed; the resident memory over its limit is then what the program did, not the CPU
        time it spent getting there."""
        now = time.monotonic()
        if self.over_memory(tree):
            return "memory"
        cpu = tree.cpu()
        if cpu - self.phase_cpu > self.limit:
            return "timeout"
        if now - self.phase_wall > self.watch.wall_factor * self.limit + 10:
            return "timeout"
        # Progress: the CPU time passed a clock tick (as /proc counts it: not every
        # nanosecond, a process blocked in a wait spends microseconds waking), or a thread
        # is runnable.
        ticks = int(cpu / tree.tick)
        if ticks > self._last_ticks or tree.runnable():
            self._idle_since, self._last_ticks = None, ticks
        elif self._idle_since is None:
            self._idle_since = now
        elif now - self._idle_since > max(self.limit, 0.5):  # blocked (sleeping, waiting)
            return "timeout"
        return None

    def over_memory(self, tree: Tree) -> bool:
        """Whether the process tree's resident memory is past the limit."""
        return tree.rss_mb() > self.watch.rss_mb

    def close_phase(self, final_cpu: float) -> None:
        """The last case's time, when the program ended before another started."""
        if self.last is not None and self.last not in self.times:
            self.times[self.last] = final_cpu - self.phase_cpu

    def end(self, returncode: int, killed: str | None, stdout: str, stderr: str, cpu: float) -> End:
        return End(
            self.results, self.times, self.details, self.running, self.last, returncode,
            killed, stdout, stderr, cpu, self.values, self.rejected, self.series, self.errors,
        )  # fmt: skip


def read_lines(read_fd: int, buffer: bytes) -> tuple[list[bytes], bytes, bytes | None]:
    """Complete lines available on ``read_fd`` (waiting up to one poll), the rest kept for
    next time, and what was read: None when nothing was ready, ``b""`` when the descriptor
    was readable but empty (its writers closed it)."""
    ready, _, _ = select.select([read_fd], [], [], _POLL)
    if not ready:
        return [], buffer, None
    try:
        chunk = os.read(read_fd, 65536)
    except BlockingIOError:
        chunk = b""
    *lines, rest = (buffer + chunk).split(b"\n")
    if len(rest) > MAX_LINE:  # no line is that long: drop it (its tail is then no report)
        rest = b""
    return lines, rest, chunk


def supervise(
    command: Command,
    env: dict[str, str],
    out_dir: Path,
    write_fd: int | None,
    watch: Watch,
    case_limits: list[float],
    load_limit: float,
    read_fd: int | None = None,
    start: int = 0,
    token: str | None = None,
    value_cases: frozenset[int] = frozenset(),
    repeated: frozenset[int] = frozenset(),
) -> End:
    """Run ``command``, read its case reports, enforce per-case CPU/memory/wall limits.

    ``token``: the run's report token, written to the program's stdin (its support code
    reads it before any of the program's own code runs) and required on every report."""
    stdout_path, stderr_path = out_dir / ".unice-stdout", out_dir / ".unice-stderr"
    killed: str | None = None
    buffer = b""
    cases = CaseWatch(
        case_limits, load_limit, watch, token=token, value_cases=value_cases, repeated=repeated
    )
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        stdin = subprocess.DEVNULL if token is None else subprocess.PIPE
        proc = start_sandboxed(command, env, out, err, write_fd, stdin=stdin)
        if token is not None:
            assert proc.stdin is not None
            with contextlib.suppress(OSError):
                proc.stdin.write(token.encode() + b"\n")
            with contextlib.suppress(OSError):
                proc.stdin.close()
        tree = Tree(proc.pid)
        exited: float | None = None
        try:
            while True:
                if read_fd is not None:
                    lines, buffer, chunk = read_lines(read_fd, buffer)
                    for line in lines:
                        cases.report(line, tree)
                    if chunk == b"" and proc.poll() is not None:
                        break
                    if chunk is None and proc.poll() is not None:
                        exited = exited or time.monotonic()
                        if time.monotonic() - exited > 0.5:  # something still holds the pipe
                            break
                else:
                    time.sleep(_POLL)
                    if proc.poll() is not None:
                        break
                killed = cases.over_limit(tree)
                if killed:
                    kill_group(proc.pid)
                    break
        finally:
            kill_group(proc.pid)
            proc.wait()
            if read_fd is not None:
                os.close(read_fd)
        cases.close_phase(tree.final_cpu)
    return cases.end(proc.returncode, killed, tail(stdout_path), tail(stderr_path), tree.final_cpu)


def start_sandboxed(
    command: Command,
    env: dict[str, str],
    out: IO[bytes],
    err: IO[bytes],
    write_fd: int | None,
    stdin: int | None,
) -> subprocess.Popen[bytes]:
    """Start ``command`` in its own session with the seccomp filter's and the result
    descriptor's fds passed down (and closed here: the child holds them now)."""
    pass_fds: list[int] = []
    seccomp_fd = None
    argv = command.argv
    if command.seccomp_file is not None:
        seccomp_fd = os.open(command.seccomp_file, os.O_RDONLY)
        pass_fds.append(seccomp_fd)
        argv = [a.replace("{seccomp_fd}", str(seccomp_fd)) for a in argv]
    if write_fd is not None:
        pass_fds.append(write_fd)
    try:
        return subprocess.Popen(
            argv, stdin=stdin, stdout=out, stderr=err, cwd=command.cwd, env=env,
            pass_fds=pass_fds, start_new_session=True,
        )  # fmt: skip
    finally:
        if seccomp_fd is not None:
            os.close(seccomp_fd)
        if write_fd is not None:
            os.close(write_fd)


def parse_report(
    line: bytes, n: int, token: bytes | None = None
) -> tuple[str, int, str | bytes] | None:
    """``(code, case, detail)`` of a report line (``E k message``: the error's text).

    With ``token``: ``code k token [rest]``, and a line with any other token is no report;
    ``V k token value`` keeps the whole value (bytes)."""
    if token is None:
        parts = line.split(maxsplit=2)
        rest = parts[2] if len(parts) > 2 else b""
    else:
        parts = line.split(b" ", 3)
        if len(parts) < 3 or parts[2] != token:
            return None
        rest = parts[3] if len(parts) > 3 else b""
    codes = (
        (b"S", b"P", b"F", b"E", b"M") if token is None else (b"S", b"P", b"F", b"E", b"M", b"V")
    )
    if len(parts) < 2 or parts[0] not in codes:
        return None
    try:
        k = int(parts[1])
    except ValueError:
        return None
    if not 0 <= k < n:
        return None
    if parts[0] == b"V":
        return "V", k, rest
    return parts[0].decode(), k, rest.decode(errors="replace")[:300]


def process_cpu_clock(pid: int) -> int:
    """The clock id of process ``pid``'s CPU time (``clock_getcpuclockid``): Linux's
    ``MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)``, as glibc computes it; the whole thread
    group's time, as ``/proc/PID/stat``'s utime + stime, in nanoseconds."""
    return ((~pid) << 3) | 2


class Tree:
    """CPU time and resident memory of a process and its descendants (``/proc``, and each
    process's CPU-time clock)."""

    ticks_per_second = os.sysconf("SC_CLK_TCK")
    tick = 1.0 / ticks_per_second
    """Seconds of one clock tick (``/proc``'s unit): CPU time passing one says a process is not
    blocked (``CaseWatch.over_limit``)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._pids: list[int] = [pid]
        self._scanned = 0.0
        self.final_cpu = 0.0
        self._page = os.sysconf("SC_PAGE_SIZE")

    def _members(self) -> list[int]:
        now = time.monotonic()
        if now - self._scanned > 0.05:
            self._scanned = now
            found, todo = [], [self.pid]
            while todo:
                pid = todo.pop()
                found.append(pid)
                with contextlib.suppress(OSError):
                    for task in os.listdir(f"/proc/{pid}/task"):
                        with open(f"/proc/{pid}/task/{task}/children") as handle:
                            todo.extend(int(c) for c in handle.read().split())
            self._pids = found
        return self._pids

    def cpu(self) -> float:
        """CPU seconds of the tree's processes (all their threads, exited ones included).

        Read from each process's CPU-time clock (one system call, nanoseconds), not from
        ``/proc/PID/stat`` (open, read, parse: ~50x the cost, and counted in 10 ms clock
        ticks, so a limit was seen up to a tick late); ``/proc`` where the clock cannot be
        read (a process exiting)."""
        total = 0.0
        for pid in self._members():
            try:
                total += time.clock_gettime(process_cpu_clock(pid))
            except OSError:
                total += self._proc_cpu(pid)
        self.final_cpu = max(self.final_cpu, total)
        return total

    def _proc_cpu(self, pid: int) -> float:
        """``pid``'s CPU seconds from ``/proc`` (in clock ticks; 0 when it is gone)."""
        with (
            contextlib.suppress(OSError, ValueError, IndexError),
            open(f"/proc/{pid}/stat") as handle,
        ):
            fields_ = handle.read().rsplit(")", 1)[1].split()
            return (int(fields_[11]) + int(fields_[12])) / self.ticks_per_second
        return 0.0

    def rss_mb(self) -> float:
        total = 0
        for pid in self._members():
            with (
                contextlib.suppress(OSError, ValueError, IndexError),
                open(f"/proc/{pid}/statm") as handle,
            ):
                total += int(handle.read().split()[1])
        return total * self._page / (1024 * 1024)

    def runnable(self) -> bool:
        for pid in self._members():
            with contextlib.suppress(OSError):
                for task in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{task}/stat") as handle:
                        if handle.read().rsplit(")", 1)[1].split()[0] == "R":
                            return True
        return False


def tail(path: Path, size: int = 4000, start: int = 0) -> str:
    """The last ``size`` bytes of ``path`` written after byte ``start`` ("" if unreadable)."""
    try:
        with open(path, "rb") as handle:
            handle.seek(max(start, os.path.getsize(path) - size))
            return handle.read().decode(errors="replace")
    except OSError:
        return ""


def base_env() -> dict[str, str]:
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "TMPDIR": "/tmp",
    }
