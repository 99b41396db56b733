"""The forked child's entry point: confine, then run the job in its mode.

Why a module of its own: the function mode lives in :mod:`.function_child` and the
standard-input mode in :mod:`.stdio_child`, both built on :mod:`.child`; dispatching between
them from ``child`` itself made the modules import each other. The worker imports all three
before forking, so a child imports nothing here.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

from data_builders.execution.python.child import Channel, confine
from data_builders.execution.python.function_child import Requests, run_function_job
from data_builders.execution.python.stdio_child import run_stdio_job


def child_main(
    job: dict[str, Any],
    start: int,
    scratch: str,
    result_fd: int,
    seccomp: Any,
    request_fd: int = -1,
) -> None:
    """Entry point after fork; never returns (``os._exit``)."""
    code = 0
    try:
        confine(job, scratch, result_fd, seccomp, request_fd)
        channel = Channel(result_fd)
        if job["mode"] == "stdio":
            run_stdio_job(job, start, channel)
        else:
            requests = Requests(request_fd) if request_fd >= 0 else None
            run_function_job(job, start, channel, requests)
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
    except BaseException:  # noqa: BLE001 - whatever happens, the child must exit here
        code = 70
    os._exit(code)
