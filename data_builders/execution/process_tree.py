"""CPU time and resident memory of a process and all its descendants.

Why a module of its own: every sandboxed run is a tree (bubblewrap, the runtime, its
threads and children), and what a limit counts is the whole tree's. The foreign runner's
watch (``compiled/watch.py``), the long-lived runner (``compiled/runner.py``) and the warm
compile server (``compiled/compile_server.py``) all read it; none of them needs the others.
"""

from __future__ import annotations

import contextlib
import os
import time


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
