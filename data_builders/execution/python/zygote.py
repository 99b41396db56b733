"""A per-worker import zygote: programs that import heavy libraries fork from a warm copy.

Why: importing numpy, pandas, matplotlib, scikit-learn or torch costs a program 0.05-1 s of
CPU inside the sandbox — longer than everything else it does. In LLM generations these
imports are rare but expensive (HumanEval, CodeGen-16B: 2% of programs import one, and their
imports are ~70% of the whole labelling time). Preloading them in every worker would make
every fork dearer (torch alone: 0.8 ms -> 6.7 ms per program). Instead each worker forks,
on the first program that needs one, a *zygote*: a copy of itself that imports the heavy
modules programs ask for (only names from an allowlist of installed, trusted libraries,
read statically from the program's import statements) and runs such programs' jobs exactly
as the worker would — one forked, confined child per program. Each library is imported at
most once per worker instead of once per program.

What stays the same for the program: the same child code, sandbox, limits and results.
Two differences, both documented in docs/execution.md: (1) the library's import-time
state is the zygote's, shared by every program that forks from it (what it sets up on
first use is still the program's own); (2) RLIMIT_AS counts the address space of every preloaded library, so a
child's cap is raised by the size of the libraries it did not ask for (measured when the
zygote imported them): its headroom is what it would have had importing its own.

Protocol (worker <-> zygote, JSON lines over two pipes): the worker sends
``{"job": ..., "modules": [...]}``; the zygote writes the job's messages — the same lines a
worker sends the host — then ``{"idle": true}`` once its scratch is clean. The worker
forwards every line but the last to the host. If the zygote dies mid-job (a crash on
import, or a program that killed it where seccomp is unavailable), the worker finishes the
job itself from the first test without a result.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import signal
from typing import TYPE_CHECKING, Any

from data_builders.execution.processes import kill_group
from data_builders.execution.python.child import write_all

if TYPE_CHECKING:
    from typing import Protocol

    class Worker(Protocol):
        """What the zygote needs of its worker (:class:`.worker.Worker`), named here so this
        module does not import the worker that imports it."""

        out_fd: int
        scratch: str

        def become_zygote(self, result_fd: int) -> None: ...
        def run_job(self, job: dict[str, Any]) -> None: ...
        def send(self, message: dict[str, Any]) -> None: ...


_MAX_DEATHS = 3
"""After this many zygote deaths a worker stops using one (it runs heavy programs itself)."""


def heavy_imports(source: str, allowed: frozenset[str]) -> list[str]:
    """Modules from ``allowed`` (top-level names) that the program's import statements name.

    A static read of ``import a.b, c as d`` and ``from a.b import c`` lines, at any
    indentation: cheap, and only a hint — an import it misses (``__import__("numpy")``) is
    simply done by the program itself, as without a zygote.
    """
    if not any(name in source for name in allowed):
        return []
    found: list[str] = []
    for raw in source.splitlines():
        line = raw.strip()
        if line.startswith("from "):
            parts = line.split()
            names = [parts[1]] if len(parts) > 1 else []
        elif line.startswith("import "):
            names = [item.split()[0] for item in line[7:].split("#")[0].split(",") if item.split()]
        else:
            continue
        for name in names:
            name = name.rstrip(";")
            top = name.split(".")[0]
            if top in allowed and name.replace(".", "").isidentifier() and name not in found:
                found.append(name)
    return found


def _address_space_mb() -> float:
    with open("/proc/self/statm", "rb") as handle:
        pages = int(handle.read().split()[0])
    return pages * os.sysconf("SC_PAGE_SIZE") / (1024 * 1024)


class ImportZygote:
    """The worker's handle on its zygote: fork it lazily, hand it jobs, forward its lines."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.pid = 0
        self.deaths = 0
        self._to_zygote = -1
        self._from_zygote = -1

    @property
    def usable(self) -> bool:
        return self.deaths < _MAX_DEATHS

    def run(self, job: dict[str, Any], modules: list[str]) -> tuple[int, int, bool]:
        """Run ``job`` in the zygote; (next test without a result, timeouts seen, done sent).

        ``next`` equals the number of tests when the zygote finished the job.
        """
        if not self.pid:
            self._start()
        next_index, timeouts, done_sent = job.get("start", 0), 0, False
        try:
            request = json.dumps({"job": job, "modules": modules}) + "\n"
            write_all(self._to_zygote, request.encode())
        except OSError:
            self._buried()
            return next_index, timeouts, done_sent
        buffer = b""
        while True:
            chunk = os.read(self._from_zygote, 1 << 20)
            if not chunk:  # the zygote died: the worker takes over from next_index
                self._buried()
                return next_index, timeouts, done_sent
            *lines, buffer = (buffer + chunk).split(b"\n")
            forward = []
            for line in lines:
                message = json.loads(line)
                if message.get("idle"):
                    if forward:
                        write_all(self.worker.out_fd, b"\n".join(forward) + b"\n")
                    return len(job["tests"]), timeouts, done_sent
                if "k" in message:
                    next_index = message["k"] + 1
                    timeouts += message.get("s") == "timeout"
                done_sent = done_sent or bool(message.get("done"))
                forward.append(line)
            if forward:
                write_all(self.worker.out_fd, b"\n".join(forward) + b"\n")

    def _start(self) -> None:
        job_read, job_write = os.pipe()
        result_read, result_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the zygote
            os.close(job_write)
            os.close(result_read)
            _zygote_main(self.worker, job_read, result_write)
        os.close(job_read)
        os.close(result_write)
        self.pid, self._to_zygote, self._from_zygote = pid, job_write, result_read

    def _buried(self) -> None:
        """The zygote is gone (or broke its pipe): reap it and forget it."""
        self.deaths += 1
        self.close()

    def close(self) -> None:
        if not self.pid:
            return
        for fd in (self._to_zygote, self._from_zygote):
            os.close(fd)
        kill_group(self.pid, and_leader=True)  # it leads no group: it alone is killed
        os.waitpid(self.pid, 0)
        self.pid, self._to_zygote, self._from_zygote = 0, -1, -1


def _zygote_main(worker: Worker, job_fd: int, result_fd: int) -> None:
    """The zygote's loop: import what each job asks for, run it as a worker, say idle."""
    code = 0
    try:
        _die_with_worker()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)  # library import chatter (font caches, warnings) is not the host's
        os.close(null)
        worker.become_zygote(result_fd)
        os.chdir(worker.scratch)  # imports read config from the cwd (matplotlibrc): ours, wiped
        sizes: dict[str, float] = {}
        with os.fdopen(job_fd, "rb") as requests:
            for line in requests:
                request = json.loads(line)
                wanted = request["modules"]
                for name in wanted:
                    if name not in sizes:
                        before = _address_space_mb()
                        # a failed import is the program's to report, when it tries
                        with contextlib.suppress(Exception):
                            importlib.import_module(name)
                        sizes[name] = max(0.0, _address_space_mb() - before)
                job = request["job"]
                unasked = sum(size for name, size in sizes.items() if name not in wanted)
                job["memory_mb"] = int(job["memory_mb"] + unasked)
                worker.run_job(job)
                worker.send({"idle": True})
    except BaseException:  # noqa: BLE001 - any failure: the worker takes the job over
        code = 70
    os._exit(code)


ZYGOTE_NAME = b"unice-zygote"
"""The zygote's process name (``/proc/PID/comm``, what ``ps`` and ``top`` show); its
program children inherit it."""
_PR_SET_NAME = 15


def _die_with_worker() -> None:
    """The zygote must not outlive its worker (inside bubblewrap the namespace sees to it too),
    and is named so that it can be told from its worker."""
    from data_builders.execution.python.child import _LIBC, _PR_SET_PDEATHSIG

    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        _LIBC.prctl(_PR_SET_NAME, ZYGOTE_NAME)
