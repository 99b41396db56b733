"""Killing a program's process group: one helper for every place that ends one.

The Python worker kills the child it forked for a program (and anything the child started);
the foreign runner kills a sandboxed run, a runner or a compile server (bubblewrap's
sandbox dies with it: ``--die-with-parent``). Imports nothing the worker has not
loaded already: the Python worker imports it, and what it imports every program's fork pays
for (``tests/execution/test_worker_footprint.py``).
"""

from __future__ import annotations

import contextlib
import os
import signal


def kill_group(pid: int, and_leader: bool = False) -> None:
    """SIGKILL the process group ``pid`` leads; with ``and_leader``, ``pid`` itself too (a
    process that left its group with ``setpgid``). What is already gone is ignored.

    Call it before reaping ``pid``: after ``wait`` the number may belong to another process.
    """
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
    if and_leader:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
