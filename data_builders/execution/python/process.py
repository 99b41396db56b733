"""Host-side handle on one worker process: launch (from a long-lived thread), talk, respawn.

Jobs and their messages are scheduled by :mod:`.lanes`; this module only starts, feeds,
reads and replaces one worker.

Why a launcher thread: bubblewrap's ``--die-with-parent`` uses PR_SET_PDEATHSIG, which fires
when the *thread* that forked bwrap exits — launching from a short-lived thread (a pool
thread, a test's thread) would kill the sandbox under our feet. One daemon thread that lives
as long as the interpreter launches every worker.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import queue
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from data_builders.execution.sandbox import bwrap_command

PACKAGE_ROOT = str(Path(__file__).resolve().parents[3])
_STARTUP_TIMEOUT = 120.0


class WorkerError(RuntimeError):
    """A worker could not be started or broke its protocol."""


class _Launcher:
    """A daemon thread that runs every Popen, so the launching thread never exits early."""

    def __init__(self) -> None:
        self._requests: queue.Queue[tuple[Any, concurrent.futures.Future[Any]]] = queue.Queue()
        self._thread = threading.Thread(
            target=self._loop, name="unice-worker-launcher", daemon=True
        )
        self._thread.start()

    def _loop(self) -> None:
        while True:
            call, future = self._requests.get()
            try:
                future.set_result(call())
            except BaseException as exc:  # noqa: BLE001 - handed to the caller
                future.set_exception(exc)

    def run(self, call: Any) -> Any:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._requests.put((call, future))
        return future.result()


_LAUNCHER: _Launcher | None = None
_LAUNCHER_LOCK = threading.Lock()


def _launcher() -> _Launcher:
    global _LAUNCHER
    with _LAUNCHER_LOCK:
        if _LAUNCHER is None:
            _LAUNCHER = _Launcher()
        return _LAUNCHER


def scratch_parent() -> str | None:
    """Where rlimits-mode scratch dirs go: /dev/shm (tmpfs) when usable, since truncating
    files on a disk filesystem costs ~0.7 ms each here; else the default temp dir."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def _environment(scratch: str) -> dict[str, str]:
    """A small, explicit environment: fixed hash seed (set iteration order is reproducible),
    one BLAS/OpenMP thread (thread buffers break ``import numpy`` under RLIMIT_AS)."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "HOME": scratch,
        "TMPDIR": scratch,
        "PYTHONPATH": PACKAGE_ROOT,
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONSAFEPATH": "1",  # never the working directory on sys.path (see worker.main)
        "PYTHONIOENCODING": "utf-8",
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "NUMEXPR_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",  # no display in the sandbox: never probe for one
    }


class WorkerProcess:
    """One worker: ``send`` a job, ``read`` its messages, ``restart`` it after it dies."""

    def __init__(
        self,
        use_bwrap: bool,
        use_seccomp: bool,
        preload: tuple[str, ...],
        shared_imports: tuple[str, ...] = (),
    ) -> None:
        self.use_bwrap = use_bwrap
        self.use_seccomp = use_seccomp
        self.preload = preload
        self.shared_imports = shared_imports
        self.seccomp_active = False
        self.proc: subprocess.Popen[bytes] | None = None
        self.host_scratch: str | None = None
        self._buffer = b""
        self._eof = False
        self.start()

    def start(self) -> None:
        if self.use_bwrap:
            scratch, self.host_scratch = "/tmp/unice-scratch", None
        else:
            self.host_scratch = tempfile.mkdtemp(prefix="unice-exec-", dir=scratch_parent())
            scratch = self.host_scratch
        command = [sys.executable, "-s", "-m", "data_builders.execution.python.worker"]
        if self.use_bwrap:
            command = [*bwrap_command(), *command]
        self.proc = _launcher().run(
            lambda: subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=_environment(scratch),
                cwd=self.host_scratch or "/",
                close_fds=True,
            )
        )
        self._buffer = b""
        self._eof = False
        config = {
            "scratch": scratch,
            "seccomp": self.use_seccomp,
            "preload": list(self.preload),
            "shared_imports": list(self.shared_imports),
            "pid_namespace": self.use_bwrap,
            "private_dirs": ["/tmp", "/dev/shm"] if self.use_bwrap else [],
        }
        self._write(config)
        ready = self._read(time.monotonic() + _STARTUP_TIMEOUT)
        if ready is None or not ready.get("ready"):
            self.kill()
            raise WorkerError(f"the execution worker did not start (command: {' '.join(command)})")
        self.seccomp_active = bool(ready.get("seccomp"))

    def _write(self, message: dict[str, Any]) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def _read(self, deadline: float) -> dict[str, Any] | None:
        """The next message, or None on EOF or when the deadline passes."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                self._eof = True
                return None
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def alive(self) -> bool:
        return not self._eof and self.proc is not None and self.proc.poll() is None

    def send(self, payload: bytes) -> bool:
        """Write one encoded job; False when the worker is gone (the caller restarts it)."""
        if self.proc is None or self.proc.stdin is None:
            return False
        try:
            self.proc.stdin.write(payload)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return False
        return True

    def read(self, deadline: float) -> dict[str, Any] | None:
        """The worker's next message; None on EOF, a malformed line, or past the deadline."""
        try:
            return self._read(deadline)
        except (ValueError, UnicodeDecodeError):  # pragma: no cover - the worker is ours
            return None

    def restart(self) -> None:
        self.kill()
        self.start()

    def kill(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            for stream in (self.proc.stdin, self.proc.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
            self.proc = None
        if self.host_scratch:
            shutil.rmtree(self.host_scratch, ignore_errors=True)
            self.host_scratch = None

    def close(self, timeout: float = 5.0) -> None:
        """Ask the worker to exit (EOF on its stdin), kill it if it does not."""
        if self.proc is not None and self.proc.poll() is None:
            try:
                assert self.proc.stdin is not None
                self.proc.stdin.close()
                self.proc.wait(timeout=timeout)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
