"""A long-lived compiler in the sandbox, for languages whose compiler is slow to start (javac).

Why: ``javac`` is a JVM program; started once per program it costs ~1 CPU-second, nearly
all of it start-up and JIT warm-up, against ~0.15 s per program for one warm compiler
(measured by hand on 20 HumanEval-X Java programs: 3.3 CPU-s for 20 compiles through one
server, 6.5 CPU-s for 5 with the command line). The server reads one build folder per line
and compiles the sources in it (into ``classes/``), answering ``ok N`` or ``error N`` and N
bytes of diagnostics. It runs in bubblewrap (no network, read-only ``/``; writable: the
language's build folders only), is supervised per request (CPU and resident memory, as a
compile), and is killed and restarted after a request that breaks a limit; that program
gets ``compile_error``. Compiling runs none of the program's code (annotation processing
is off).
"""

from __future__ import annotations

import contextlib
import os
import select
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from data_builders.execution.compiled.process import Command, base_env, start_sandboxed
from data_builders.execution.limits import ForeignLimits
from data_builders.execution.processes import Tree, kill_group, wall_backstop


@dataclass(frozen=True)
class ServerSpec:
    """A compile server: its sources, how to build them once, how to start it.

    ``build_argv``/``run_argv`` use ``{dir}`` for the server's own folder.
    """

    files: dict[str, str]
    build_argv: list[str]
    run_argv: list[str]


class ServerFailedError(RuntimeError):
    """The server could not be built or started (the caller falls back to the command line)."""


class CompileServer:
    """One server process for one language, one request at a time."""

    def __init__(
        self,
        spec: ServerSpec,
        home: Path,
        builds: Path,
        sandbox: Callable[..., Command],
        limits: ForeignLimits,
    ) -> None:
        """``sandbox(argv, rlimits, cwd, writable, readonly)`` wraps a command like the
        runner's other compiles; ``home`` holds the server's own build."""
        self.spec, self.home, self.builds = spec, home, builds
        self._sandbox, self._limits = sandbox, limits
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        self.restarts = 0
        self.broken: str | None = None  # the server cannot be built: never try again

    def _ensure_built(self) -> None:
        marker = self.home / ".unice-server-ok"
        if marker.exists():
            return
        self.home.mkdir(parents=True, exist_ok=True)
        for name, text in self.spec.files.items():
            (self.home / name).write_text(text)
        argv = [a.format(dir=self.home) for a in self.spec.build_argv]
        proc = subprocess.run(
            argv, cwd=self.home, capture_output=True, text=True, timeout=300, check=False
        )
        if proc.returncode != 0:
            self.broken = f"building the compile server failed: {proc.stderr[-500:]}"
            raise ServerFailedError(self.broken)
        marker.write_text("")

    def _start(self) -> subprocess.Popen[bytes]:
        self._ensure_built()
        argv = [a.format(dir=self.home) for a in self.spec.run_argv]
        command = self._sandbox(
            argv,
            {"core": 0, "nofile": 4096},
            cwd=self.builds,
            writable=[self.builds],
            readonly=[self.home],
        )
        return start_sandboxed(
            command, base_env(), subprocess.PIPE, subprocess.DEVNULL, None, stdin=subprocess.PIPE
        )

    def compile(self, build: Path) -> tuple[bool, str, str | None]:
        """(ok, diagnostics, limit broken or None) for the sources in ``build``."""
        with self._lock:
            if self.broken:
                raise ServerFailedError(self.broken)
            if self._proc is None or self._proc.poll() is not None:
                self._proc = self._start()
            proc = self._proc
            assert proc.stdin is not None and proc.stdout is not None
            tree = Tree(proc.pid)
            cpu0, wall0 = tree.cpu(), time.monotonic()
            limit = self._limits.compile_timeout
            try:
                proc.stdin.write(f"{build}\n".encode())
                proc.stdin.flush()
            except OSError:
                self._stop()
                raise ServerFailedError("the compile server is gone") from None
            fd = proc.stdout.fileno()
            buffer = b""
            broken = None
            while b"\n" not in buffer:
                ready, _, _ = select.select([fd], [], [], 0.01)
                if ready:
                    chunk = os.read(fd, 65536)
                    if not chunk:
                        self._stop()
                        raise ServerFailedError("the compile server ended")
                    buffer += chunk
                    continue
                if tree.cpu() - cpu0 > limit:
                    broken = "timeout"
                elif tree.rss_mb() > self._limits.compile_memory_mb + 512:
                    broken = "memory"
                elif time.monotonic() - wall0 > wall_backstop(limit, self._limits.max_wall_factor):
                    broken = "timeout"
                if broken:
                    self._stop()
                    return False, f"compile {broken} (limit {limit} s CPU)", broken
            head, _, rest = buffer.partition(b"\n")
            status, size = head.decode().split()
            while len(rest) < int(size):
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                rest += chunk
            return status == "ok", rest.decode(errors="replace"), None

    def _stop(self) -> None:
        if self._proc is not None:
            kill_group(self._proc.pid)
            self._proc.wait()
            self._proc = None
            self.restarts += 1

    def close(self) -> None:
        with self._lock:
            if self._proc is not None:
                with contextlib.suppress(OSError):
                    self._proc.stdin.close()  # type: ignore[union-attr]
                self._stop()
