"""Running one sandboxed process for the foreign-language runner and watching it.

Split from :mod:`.pool` (which decides what to run and what the reports mean): here a
command is started with its result pipe, its reports are read as they come, and the CPU time,
resident memory and wall time of its whole process tree (bubblewrap, the runtime and its
threads) are checked every 10 ms against the current phase's limit (loading, then each
case); the process group is killed on a limit. Which reports count and when a phase is over
its limit: ``watch.py``; the tree's CPU time and memory, and killing its group: the
families' shared ``processes.py``.
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from data_builders.execution.compiled.watch import CaseWatch, End, Watch
from data_builders.execution.processes import Tree, kill_group

_POLL = 0.01
# A report line longer than this (a value beyond the support code's cap) is dropped.
MAX_LINE = 8 * 1024 * 1024


@dataclass
class Command:
    argv: list[str]
    cwd: Path
    seccomp_file: Path | None


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
    out: IO[bytes] | int,
    err: IO[bytes] | int,
    write_fd: int | None,
    stdin: int | None,
) -> subprocess.Popen[bytes]:
    """Start ``command`` in its own session with the seccomp filter's and the result
    descriptor's fds passed down (and closed here: the child holds them now). Every sandboxed
    process of the compiled languages starts here: a run, a runner, a compile server."""
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
