"""A program's processes, for both language families: ending them, measuring them, and the
wall-clock backstop on them.

What the two families share is here, once: killing a process group (the Python worker ends
the child it forked for a program and its import zygote; the compiled languages' pool ends a
sandboxed run, a runner or a compile server, and bubblewrap's sandbox dies with it:
``--die-with-parent``; the plain harness ends a step that ran out of time); reading a
process's CPU time and state from ``/proc`` (the Python worker's stall check, and the process
tree below); the CPU time and resident memory of a whole process tree (bubblewrap, the
runtime, its threads and children: what a compiled program's limits count, read by
``compiled/watch.py``, ``compiled/runner.py`` and ``compiled/compile_server.py``); and the
absolute wall-clock backstop every limit has (:func:`wall_backstop`).

What stays with each family, and why: *when* a limit is passed. A Python child stops itself
at its CPU limit (a SIGPROF timer in the child, ``python/child.py``), so the worker only
checks on a child that has gone quiet (``python/worker_supervision.py``: stuck in C code,
blocked, or past the backstop); a JVM, Node or a compiled binary has no such hook, so the
host polls the process tree every 10 ms against the current case's limit
(``compiled/watch.py``), and reads the reports each family's own wire format carries (JSON
lines from the Python child, tokened ``S``/``P``/``F``/``E``/``M``/``V`` lines from a
compiled program's support code: changing either changes what runs in the sandbox).

Imports nothing the Python worker has not loaded already: the worker imports it, and what
it imports every program's fork pays for (``tests/execution/test_worker_footprint.py``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

WALL_SLACK = 10.0
"""Seconds added to ``factor x limit`` in :func:`wall_backstop`: a short limit on a loaded
machine still gets time to be scheduled."""

TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")
"""``/proc``'s unit of CPU time (clock ticks per second)."""


def kill_group(pid: int, and_leader: bool = False) -> None:
    """SIGKILL the process group ``pid`` leads; with ``and_leader``, ``pid`` itself too (a
    process that left its group with ``setpgid``, or one that leads no group: then it alone
    is killed). What is already gone is ignored. (A Python worker process itself is ended
    through its ``Popen``: it leads no group, and ``Popen.kill`` knows when it is reaped.)

    Call it before reaping ``pid``: after ``wait`` the number may belong to another process.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    if and_leader:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


def wall_backstop(limit: float, factor: float) -> float:
    """The absolute wall-clock limit of a phase whose CPU limit is ``limit`` seconds:
    ``factor x limit + 10 s`` (``max_wall_factor`` in both families' limits). CPU time is what
    a limit counts (labels must not depend on machine load); this catches a program that
    sleeps or blocks without end, in either family."""
    return factor * limit + WALL_SLACK


def proc_stat(path: str) -> tuple[float, bool] | None:
    """CPU seconds (user + system) and whether it is runnable (state ``R``: running or
    waiting for a CPU), from a ``/proc/PID/stat`` or ``/proc/PID/task/TID/stat`` file; None
    when it cannot be read (the process is gone)."""
    try:
        with open(path, "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / TICKS_PER_SECOND, fields[0] == b"R"
    except (OSError, ValueError, IndexError):
        return None


def process_cpu_clock(pid: int) -> int:
    """The clock id of process ``pid``'s CPU time (``clock_getcpuclockid``): Linux's
    ``MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED)``, as glibc computes it; the whole thread
    group's time, as ``/proc/PID/stat``'s utime + stime, in nanoseconds."""
    return ((~pid) << 3) | 2


class Tree:
    """CPU time and resident memory of a process and its descendants (``/proc``, and each
    process's CPU-time clock): what a compiled program's limits count."""

    ticks_per_second = TICKS_PER_SECOND
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
        stat = proc_stat(f"/proc/{pid}/stat")
        return 0.0 if stat is None else stat[0]

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
        """Whether a thread of the tree is runnable (running or waiting for a CPU)."""
        for pid in self._members():
            with contextlib.suppress(OSError):
                for task in os.listdir(f"/proc/{pid}/task"):
                    stat = proc_stat(f"/proc/{pid}/task/{task}/stat")
                    if stat is None:  # the thread is gone: on to the next process
                        break
                    if stat[1]:
                        return True
        return False
