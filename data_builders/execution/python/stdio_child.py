"""The forked child's standard-input mode: each test runs the program as ``__main__``.

Split from :mod:`data_builders.execution.python.child` (which confines the child; function programs:
:mod:`.function_child`); the worker imports this module before forking, so children never
import it.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import os
import sys
from typing import Any

from data_builders.execution.python.child import (
    STDIO_PROGRAM_FRAMES,
    Channel,
    compile_source,
    describe,
    run_guarded,
    test_limit,
)


def run_stdio_job(job: dict[str, Any], start: int, channel: Channel) -> None:
    """Run a standard-input program as ``__main__`` once per test, fresh globals each time."""
    tests = job["tests"]
    timed_out = job.get("_timeouts", 0) > 0
    try:
        code = compile_source(job["source"], "main.py")
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError) as exc:
        channel.send({"k": -1, "s": "compile_error", "d": describe(exc)})
        return
    channel.send({"k": -1, "s": "ok", "d": ""})
    files = StdioFiles()
    for index in range(start, len(tests)):
        files.prepare(tests[index]["stdin"])
        namespace = {"__name__": "__main__", "__builtins__": builtins, "__file__": "main.py"}
        status, detail, _, used = run_guarded(
            functools.partial(_exec_main, code, namespace),
            test_limit(job, index, timed_out),
            program_frames=STDIO_PROGRAM_FRAMES,  # each test is a fresh run of the program
        )
        timed_out |= status == "timeout"
        message = {"k": index, "s": status, "t": used, "d": detail}
        if status == "ok":
            message["o"] = files.stdout(job["max_output"])
        channel.send(message)


class StdioFiles:
    """Real files behind fds 0/1/2, opened once per child and reset per test.

    Keeping our own descriptors (pointed at by 0/1/2 with ``dup2`` before each test) and our
    own text wrappers (rewound / flushed, not recreated) costs a few syscalls per test and
    survives a program that closes or replaces its standard streams. Buffered output left
    by a failed test is flushed *before* the files are truncated, so it can never leak into
    the next test's stdout; a wrapper that cannot be flushed is kept referenced (never
    garbage-collected, hence never flushed later) and replaced. The files live in the scratch
    dir, so the worker can still read ``stdout`` after ``os._exit(0)``.
    """

    def __init__(self) -> None:
        flags = os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW  # scratch is wiped, but be sure
        self.fds = {
            0: os.open("stdin", os.O_RDWR | flags, 0o600),
            1: os.open("stdout", os.O_WRONLY | os.O_APPEND | flags, 0o600),
            2: os.open("stderr", os.O_WRONLY | os.O_APPEND | flags, 0o600),
        }
        self.out_reader = os.open("stdout", os.O_RDONLY | os.O_NOFOLLOW)
        self.streams: dict[int, Any] = {}
        self._graveyard: list[Any] = []

    def _stream(self, fd: int) -> Any:
        stream = self.streams.get(fd)
        try:
            if stream is None or stream.closed:
                raise ValueError("no usable stream")
            if fd == 0:
                stream.seek(0)  # drops read-ahead from the previous test
            else:
                stream.flush()  # leftovers go to the old contents, truncated below
            return stream
        except (OSError, ValueError):
            if stream is not None:
                self._graveyard.append(stream)
            mode = "r" if fd == 0 else "w"
            stream = open(fd, mode, encoding="utf-8", closefd=False)  # noqa: SIM115
            self.streams[fd] = stream
            return stream

    def prepare(self, stdin_text: str) -> None:
        streams = [self._stream(fd) for fd in (1, 2)]
        data = stdin_text.encode("utf-8")
        stdin_fd = self.fds[0]
        os.ftruncate(stdin_fd, 0)
        written = 0
        while written < len(data):
            written += os.pwrite(stdin_fd, data[written:], written)
        for fd, own in self.fds.items():
            if fd:
                os.ftruncate(own, 0)
            os.dup2(own, fd)
        os.lseek(0, 0, os.SEEK_SET)
        sys.stdin = self._stream(0)
        sys.stdout, sys.stderr = streams

    def stdout(self, limit: int) -> str:
        """This test's stdout (at most ``limit`` bytes, invalid UTF-8 replaced)."""
        with contextlib.suppress(OSError, ValueError):
            self.streams[1].flush()  # our own wrapper: no program code runs here
        return os.pread(self.out_reader, limit, 0).decode("utf-8", errors="replace")


def _exec_main(code: Any, namespace: dict[str, Any]) -> None:
    """Run as ``__main__``; like the interpreter at exit, wait for non-daemon threads
    (competitive programs often run ``main`` in a thread with a bigger stack)."""
    try:
        try:
            exec(code, namespace)  # noqa: S102 - sandboxed child
            if "threading" in sys.modules:
                _join_threads(sys.modules["threading"])
        finally:  # as at interpreter exit, still on the test's clock:
            for stream in (sys.stdout, sys.stderr):  # flush whatever sys.stdout now is,
                with contextlib.suppress(Exception):
                    stream.flush()
            sys.stdin = sys.stdout = sys.stderr = None  # then free the program's objects
            namespace.clear()  # (their finalizers may close our streams: checked later)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise RuntimeError(f"exited with status {exc.code!r}") from None


def _join_threads(threading: Any) -> None:
    main = threading.main_thread()
    for thread in threading.enumerate():
        if thread is not main and not thread.daemon:
            thread.join()


def read_stdout(limit: int, path: str = "stdout") -> str:
    """The captured stdout text (at most ``limit`` bytes, invalid UTF-8 replaced)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return ""
    try:
        return os.pread(fd, limit, 0).decode("utf-8", errors="replace")
    except OSError:
        return ""
    finally:
        os.close(fd)
