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
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

_POLL = 0.01
_BAD = {"pass": 0, "wrong_answer": 1, "runtime_error": 2, "memory": 2, "timeout": 2, "signal": 2}
_CODES = {"P": "pass", "F": "wrong_answer", "E": "runtime_error", "M": "memory"}


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
) -> End:
    """Run ``command``, read its case reports, enforce per-case CPU/memory/wall limits."""
    stdout_path, stderr_path = out_dir / ".unice-stdout", out_dir / ".unice-stderr"
    pass_fds: list[int] = []
    seccomp_fd = None
    argv = command.argv
    if command.seccomp_file is not None:
        seccomp_fd = os.open(command.seccomp_file, os.O_RDONLY)
        pass_fds.append(seccomp_fd)
        argv = [a.replace("{seccomp_fd}", str(seccomp_fd)) for a in argv]
    if write_fd is not None:
        pass_fds.append(write_fd)
    results: dict[int, str] = {}
    details: dict[int, str] = {}
    times: dict[int, float] = {}
    running: int | None = None
    last: int | None = None
    killed: str | None = None
    buffer = b""
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        try:
            proc = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, cwd=command.cwd, env=env,
                pass_fds=pass_fds, start_new_session=True,
            )  # fmt: skip
        finally:
            if seccomp_fd is not None:
                os.close(seccomp_fd)
            if write_fd is not None:
                os.close(write_fd)
        tree = Tree(proc.pid)
        phase_cpu, phase_wall = 0.0, time.monotonic()
        limit = load_limit
        idle_since: float | None = None
        last_cpu = 0.0
        exited: float | None = None
        try:
            while True:
                if read_fd is not None:
                    ready, _, _ = select.select([read_fd], [], [], _POLL)
                    if ready:
                        try:
                            chunk = os.read(read_fd, 65536)
                        except BlockingIOError:
                            chunk = b""
                        buffer += chunk
                        *lines, buffer = buffer.split(b"\n")
                        for line in lines:
                            event = parse_report(line, len(case_limits))
                            if event is None:
                                continue
                            code, k, text = event
                            if code == "S":
                                if k != last:
                                    cpu = tree.cpu()
                                    if last is not None:
                                        times[last] = cpu - phase_cpu
                                    phase_cpu, phase_wall, last = cpu, time.monotonic(), k
                                    limit = case_limits[k]
                                running = k
                            elif k == running:
                                status = _CODES[code]
                                old = results.get(k)
                                if old is None or _BAD[status] > _BAD[old]:
                                    results[k] = status
                                    if text:
                                        details[k] = text
                                running = None
                        if not chunk and proc.poll() is not None:
                            break
                    elif proc.poll() is not None:
                        exited = exited or time.monotonic()
                        if time.monotonic() - exited > 0.5:  # something still holds the pipe
                            break
                else:
                    time.sleep(_POLL)
                if proc.poll() is not None and read_fd is None:
                    break
                now = time.monotonic()
                cpu = tree.cpu()
                if cpu - phase_cpu > limit:
                    killed = "timeout"
                elif tree.rss_mb() > watch.rss_mb:
                    killed = "memory"
                elif now - phase_wall > watch.wall_factor * limit + 10:
                    killed = "timeout"
                else:
                    if cpu > last_cpu or tree.runnable():
                        idle_since, last_cpu = None, cpu
                    elif idle_since is None:
                        idle_since = now
                    elif now - idle_since > max(limit, 0.5):  # blocked (sleeping, waiting)
                        killed = "timeout"
                if killed:
                    kill_group(proc)
                    break
        finally:
            kill_group(proc)
            proc.wait()
            if read_fd is not None:
                os.close(read_fd)
        if last is not None and last not in times:
            times[last] = tree.final_cpu - phase_cpu
    return End(
        results, times, details, running, last, proc.returncode, killed,
        tail(stdout_path), tail(stderr_path), tree.final_cpu,
    )  # fmt: skip


def parse_report(line: bytes, n: int) -> tuple[str, int, str] | None:
    """``(code, case, detail)`` of a report line (``E k message``: the error's text)."""
    parts = line.split(maxsplit=2)
    if len(parts) < 2 or parts[0] not in (b"S", b"P", b"F", b"E", b"M"):
        return None
    try:
        k = int(parts[1])
    except ValueError:
        return None
    detail = parts[2].decode(errors="replace")[:300] if len(parts) > 2 else ""
    return (parts[0].decode(), k, detail) if 0 <= k < n else None


class Tree:
    """CPU time and resident memory of a process and its descendants, from /proc."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._pids: list[int] = [pid]
        self._scanned = 0.0
        self.final_cpu = 0.0
        self._tick = os.sysconf("SC_CLK_TCK")
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
        total = 0.0
        for pid in self._members():
            with (
                contextlib.suppress(OSError, ValueError, IndexError),
                open(f"/proc/{pid}/stat") as handle,
            ):
                fields_ = handle.read().rsplit(")", 1)[1].split()
                total += (int(fields_[11]) + int(fields_[12])) / self._tick
        self.final_cpu = max(self.final_cpu, total)
        return total

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


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill the whole process group (bubblewrap's sandbox dies with it: die-with-parent)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def tail(path: Path, size: int = 4000) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(max(0, os.path.getsize(path) - size))
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
