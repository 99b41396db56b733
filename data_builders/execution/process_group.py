"""Killing a program's process group: one helper for every place that ends one.

The Python worker kills the child it forked for a program (and anything the child started)
and its import zygote; the foreign runner kills a sandboxed run, a runner or a compile server
(bubblewrap's sandbox dies with it: ``--die-with-parent``); the plain harness kills a step
that ran out of time, with whatever it started. (A worker process itself is ended through
its ``Popen``: it leads no group, and ``Popen.kill`` knows when it has been reaped.) Imports nothing the worker has not
loaded already: the Python worker imports it, and what it imports every program's fork pays
for (``tests/execution/test_worker_footprint.py``).
"""

from __future__ import annotations

import contextlib
import os
import signal


def kill_group(pid: int, and_leader: bool = False) -> None:
    """SIGKILL the process group ``pid`` leads; with ``and_leader``, ``pid`` itself too (a
    process that left its group with ``setpgid``, or one that leads no group: then it alone
    is killed). What is already gone is ignored.

    Call it before reaping ``pid``: after ``wait`` the number may belong to another process.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    if and_leader:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
