"""Compiling a driver for ``ForeignPool`` (``pool.py``): the build cache (by the hash of
the driver's files and the command; a build made once is reused by every run), a language's
shared prelude and warm compiler, and the compile sandbox (bubblewrap, no network, writes
only into the build folder, its own CPU/memory/output limits; a failure is ``compile_error``).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import queue
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data_builders.execution.compiled.compile_server import CompileServer, ServerFailedError
from data_builders.execution.compiled.languages import Language, Prelude
from data_builders.execution.compiled.process import base_env, supervise
from data_builders.execution.compiled.watch import Watch
from data_builders.execution.limits import ForeignLimits


@dataclass
class Build:
    """A compiled driver (or the compile error): its folder and the compiler's output."""

    ok: bool
    path: Path
    log: str = ""
    seconds: float = 0.0
    digest: str = ""


class DeferredRemoval:
    """Folders taken away at once and deleted by a background thread.

    A released build's folder (``ForeignPool._release``) leaves its place with a rename
    (~0.1 ms) and is deleted afterwards, off the worker thread: deleting it is milliseconds of
    waiting on the disk where the file system discards freed blocks at once (ext4 mounted
    ``discard``: ~3 ms per ``rmdir``, against ~4 ms of host CPU per JavaScript program), and a
    worker waiting there leaves its CPU idle. The trash folder is a sibling of the builds'
    folder (the same file system, so a rename), outside every sandbox's bound folders."""

    def __init__(self, parent: Path) -> None:
        self._parent = parent
        self._root: Path | None = None
        self._names = itertools.count()
        self._queue: queue.SimpleQueue[Path | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def remove(self, path: Path) -> None:
        """Take ``path`` away now (gone from its place when this returns); deleted later, or
        here where it cannot be moved aside."""
        target = self._target()
        if target is not None:
            try:
                path.rename(target)
            except OSError:
                pass
            else:
                self._queue.put(target)
                return
        shutil.rmtree(path, ignore_errors=True)

    def _target(self) -> Path | None:
        """A fresh name in the trash folder (made, with the thread, on first use: a pool with
        a persistent cache never releases a build); None when the folder cannot be made."""
        with self._lock:
            if self._root is None:
                try:
                    self._root = Path(tempfile.mkdtemp(prefix="unice-trash-", dir=self._parent))
                except OSError:
                    return None
                self._thread = threading.Thread(
                    target=self._drain, name="unice-build-trash", daemon=True
                )
                self._thread.start()
            return self._root / str(next(self._names))

    def _drain(self) -> None:
        while (path := self._queue.get()) is not None:
            shutil.rmtree(path, ignore_errors=True)

    def close(self) -> None:
        """Delete what is left and stop the thread."""
        with self._lock:
            thread, root, self._thread, self._root = self._thread, self._root, None, None
        if thread is not None:
            self._queue.put(None)
            thread.join()
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)


class Compiling:
    """``ForeignPool``'s compile side (a mixin: the state is the executor's, made in its
    ``__init__``; ``_sandboxed`` is its sandbox command)."""

    limits: ForeignLimits
    cache_dir: Path
    shared_cache_dir: Path
    use_compile_servers: bool
    compiles: int
    compile_seconds: float
    _locks: dict[str, threading.Lock]
    _locks_lock: threading.Lock
    _builds: dict[str, Build]
    _users: dict[str, int]
    _servers: dict[str, CompileServer]
    _server_warnings: set[str]
    _sandboxed: Any

    def _build(
        self,
        language: Language,
        files: dict[str, str],
        mode: str = "",
        prelude: Prelude | None = None,
    ) -> Build:
        argv = language.compile_argv(Path("."), mode)
        digest = hashlib.sha256(
            repr((language.name, sorted(files.items()), argv, prelude)).encode()
        ).hexdigest()
        with self._locks_lock:
            lock = self._locks.setdefault(digest, threading.Lock())
        with lock:
            with self._locks_lock:
                self._users[digest] = self._users.get(digest, 0) + 1
            if digest in self._builds:
                return self._builds[digest]
            path = self.cache_dir / language.name / digest[:32]
            marker = path / ".unice-build-ok"
            failed = path / ".unice-build-failed"
            if marker.exists():
                build = Build(True, path)
            elif failed.exists():
                build = Build(False, path, failed.read_text(errors="replace"))
            else:
                readonly: list[Path] = []
                if prelude is not None:  # (the shared cache may be under the sandbox's own /tmp)
                    readonly.append(self._prelude(language, prelude))
                    argv = language.compile_argv(path, mode, readonly[0])
                build = self._compile(language, files, path, argv, readonly)
                (marker if build.ok else failed).write_text(build.log)
            build.digest = digest
            self._builds[digest] = build
            return build

    def _compile(
        self,
        language: Language,
        files: dict[str, str],
        path: Path,
        argv: list[str] | None,
        readonly: list[Path] | None = None,
    ) -> Build:
        """Write ``files`` into ``path`` and compile them there (``readonly``: folders the
        compiler reads besides the system's)."""
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
        for name, text in files.items():
            (path / name).write_text(text)
        if argv is None:
            return Build(True, path)
        server = self._server(language)
        if server is not None:
            started = time.monotonic()
            try:
                ok, log, _ = server.compile(path)
            except ServerFailedError as exc:
                if str(exc) not in self._server_warnings:  # each distinct failure said once
                    self._server_warnings.add(str(exc))
                    print(
                        f"warning: {language.name} compile server failed"
                        f" ({' '.join(str(exc).split())}); using {argv[0]}",
                        file=sys.stderr,
                    )
            else:
                seconds = time.monotonic() - started
                self.compiles += 1
                self.compile_seconds += seconds
                return Build(ok, path, log[-4000:], seconds)
        if not language.shared_cache_env:
            return self._compile_in_sandbox(language, path, argv, None, readonly=readonly)
        shared = self.shared_cache_dir / language.name
        shared.mkdir(parents=True, exist_ok=True)
        warm = shared / ".unice-warm"
        if warm.exists():
            return self._compile_in_sandbox(language, path, argv, shared, readonly=readonly)
        # The first build fills the shared cache (Go: the standard library and testify, about
        # a CPU-minute): one build at a time, under ten times the compile limit.
        with self._locks_lock:
            lock = self._locks.setdefault(f"warm-{language.name}", threading.Lock())
        with lock:
            cold = not warm.exists()
            factor = 10.0 if cold else 1.0
            build = self._compile_in_sandbox(language, path, argv, shared, factor, readonly)
            if cold and build.ok:
                warm.write_text("")
            return build

    def _prelude(self, language: Language, prelude: Prelude) -> Path:
        """The shared folder holding ``prelude`` (its text, and its compiled form where
        precompiling worked), made once per distinct prelude and reused by every later
        program, executor and process on this machine."""
        argv = language.prelude_argv(prelude)
        key = hashlib.sha256(repr((language.name, prelude, argv)).encode()).hexdigest()[:24]
        folder = self.shared_cache_dir / language.name / "prelude" / key
        if (folder / ".unice-prelude-done").exists():
            return folder
        with self._locks_lock:
            lock = self._locks.setdefault(f"prelude-{key}", threading.Lock())
        with lock:
            if (folder / ".unice-prelude-done").exists():
                return folder
            # Made aside and renamed into place, so another process never reads half of it.
            staging = folder.with_name(f"{key}.tmp-{os.getpid()}-{threading.get_ident()}")
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            (staging / prelude.name).write_text(prelude.text)
            log = ""
            if argv is not None:
                build = self._compile_in_sandbox(language, staging, argv, None)
                log = build.log
                if not build.ok:  # the text alone still compiles exactly as before, slower
                    for item in staging.iterdir():
                        if item.name != prelude.name:  # (a file, or a folder it left)
                            shutil.rmtree(item) if item.is_dir() else item.unlink()
            (staging / ".unice-prelude-done").write_text(log)
            try:
                staging.rename(folder)
            except OSError:  # another process made it first: same content, keep theirs
                shutil.rmtree(staging, ignore_errors=True)
            return folder

    def _server(self, language: Language) -> CompileServer | None:
        """The language's compile server (started on first use), or None."""
        spec = language.compile_server
        if spec is None or not self.use_compile_servers:
            return None
        with self._locks_lock:
            if language.name not in self._servers:
                digest = hashlib.sha256(repr(sorted(spec.files.items())).encode()).hexdigest()[:16]
                home = self.shared_cache_dir / f"{language.name}-server-{digest}"
                builds = self.cache_dir / language.name
                builds.mkdir(parents=True, exist_ok=True)
                self._servers[language.name] = CompileServer(
                    spec, home, builds, self._sandboxed, self.limits
                )
            return self._servers[language.name]

    def _compile_in_sandbox(
        self,
        language: Language,
        path: Path,
        argv: list[str],
        shared: Path | None,
        limit_factor: float = 1.0,
        readonly: list[Path] | None = None,
    ) -> Build:
        limits = self.limits
        cpu_limit = limits.compile_timeout * limit_factor
        env = base_env()
        env.update(language.compile_env(path))
        binds = [path]
        if shared is not None and language.shared_cache_env:
            env[language.shared_cache_env] = str(shared)
            binds.append(shared)
        # Compilers' scratch files go to disk, not the sandbox's small /tmp tmpfs (sized for
        # programs): Go building the standard library into a cold cache writes more than it.
        scratch = path / ".compile-tmp"
        scratch.mkdir(exist_ok=True)
        env["TMPDIR"] = str(scratch)
        rlimits = {
            "cpu": math.ceil(cpu_limit) + 1,
            "fsize": limits.compile_output_bytes,
            "core": 0,
            "nofile": 1024,
        }
        if language.compiler_address_space_limit:
            rlimits["as"] = limits.compile_memory_mb * 1024 * 1024
        command = self._sandboxed(
            argv, rlimits, writable=binds, readonly=readonly or [], cwd=path, seccomp=False
        )
        started = time.monotonic()
        watch = Watch(limits.compile_memory_mb, limits.max_wall_factor)
        end = supervise(command, env, path, None, watch, [cpu_limit], cpu_limit)
        seconds = time.monotonic() - started
        shutil.rmtree(scratch, ignore_errors=True)
        self.compiles += 1
        self.compile_seconds += seconds
        log = end.stderr + end.stdout
        if end.killed:
            log = (
                f"compile {end.killed} (limits: {cpu_limit} s CPU, {limits.compile_memory_mb} MB)\n"
                + log
            )
        return Build(end.killed is None and end.returncode == 0, path, log[-4000:], seconds)
