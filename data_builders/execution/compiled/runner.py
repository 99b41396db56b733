"""A long-lived sandboxed runtime that runs many programs, one after another (JavaScript: one
Node process, each program in a worker thread of its own; ``languages/node_runner.js``).

Why: starting Node costs more than running a HumanEval-X program's assertions, so a harness
that starts one Node per program is at best at parity with a plain one. A runner pays the
start-up once. What a program sees does not change: its own V8 isolate, the same sandbox
(bubblewrap, seccomp, read-only ``/``), an emptied ``/tmp``, and the same limits, watched by
:class:`~data_builders.execution.compiled.watch.CaseWatch` on the runner's process tree, with
CPU counted from the program's start. A program past its time limit is stopped inside the
runner (``{"stop": true}``: its worker is terminated, the runner lives on; killed after
``STOP_GRACE`` if it does not stop). A program past its memory limit, or one that takes the
runtime down, kills the runner; the executor starts a fresh one for the remaining cases, as it
starts a fresh process in the one-process-per-program mode.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import subprocess
import tempfile
import time
from pathlib import Path

from data_builders.execution.compiled.process import Command, read_lines, start_sandboxed, tail
from data_builders.execution.compiled.watch import CaseWatch, End, Watch
from data_builders.execution.processes import Tree, kill_group

STOP_GRACE = 1.0
"""Wall seconds a runner has to stop a program past its limit before the host kills it (V8
stops a worker's isolate in milliseconds; a program blocked outside JavaScript may not stop)."""


class RunnerDiedError(RuntimeError):
    """The runner process is gone (killed at a limit, or taken down by a program)."""


class Runner:
    """One runner process and its result pipe; runs one program at a time."""

    def __init__(self, command: Command, env: dict[str, str]) -> None:
        self._dir = tempfile.TemporaryDirectory(prefix="unice-runner-")
        out_dir = Path(self._dir.name)
        self._stdout_path, self._stderr_path = out_dir / "stdout", out_dir / "stderr"
        self._read_fd, write_fd = os.pipe()
        os.set_blocking(self._read_fd, False)
        argv = [part.replace("{fd}", str(write_fd)) for part in command.argv]
        command = Command(argv, command.cwd, command.seccomp_file)
        with open(self._stdout_path, "wb") as out, open(self._stderr_path, "wb") as err:
            self.proc = start_sandboxed(command, env, out, err, write_fd, stdin=subprocess.PIPE)
        self.tree = Tree(self.proc.pid)
        self.programs = 0
        self._buffer = b""

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(
        self,
        request: dict[str, object],
        case_limits: list[float],
        load_limit: float,
        watch: Watch,
        token: str | None = None,
        value_cases: frozenset[int] = frozenset(),
        repeated: frozenset[int] = frozenset(),
    ) -> End:
        """Run one program (``request``: what the runner script reads, less the nonce) from
        its case ``start``; a program past its time limit is stopped by the runner, which
        lives on; past the memory limit (or not stopping) the runner is killed (dead after).
        ``token``: the program's report token (handed to its worker in the request)."""
        if not self.alive:
            raise RunnerDiedError("runner is not running")
        nonce = secrets.token_hex(16)
        self.programs += 1
        origin = self.tree.cpu()
        cases = CaseWatch(
            case_limits, load_limit, watch, origin, token=token, value_cases=value_cases,
            repeated=repeated,
        )  # fmt: skip
        if token is not None:
            request = {**request, "token": token}
        stderr_start = self._stderr_path.stat().st_size  # this program's errors come after
        self._send({**request, "nonce": nonce})  # if the runner died: seen below as an exit
        finished: list[bytes] | None = None
        killed = None
        exited: float | None = None
        stop_asked: float | None = None  # when the runner was asked to stop the program
        while finished is None:
            lines, self._buffer, chunk = read_lines(self._read_fd, self._buffer)
            for line in lines:
                if line.startswith(b"X " + nonce.encode() + b" "):
                    finished = line.split(b" ", 4)[2:]
                    break
                if stop_asked is None:  # nothing the program says after its limit counts
                    cases.report(line, self.tree)
            if finished is not None:
                break
            if not self.alive:
                exited = exited or time.monotonic()
                if chunk == b"" or time.monotonic() - exited > 0.5:
                    break
            if stop_asked is not None:
                if time.monotonic() - stop_asked > STOP_GRACE or cases.over_memory(self.tree):
                    kill_group(self.proc.pid)  # it did not stop: the whole runner goes
                    break
                continue
            killed = cases.over_limit(self.tree)
            if killed == "timeout" and self._send({"stop": True}):
                stop_asked = time.monotonic()  # the runner stops the program, lives on
            elif killed:
                kill_group(self.proc.pid)
                break
        cpu = max(self.tree.final_cpu - origin, 0.0)
        cases.close_phase(self.tree.final_cpu)
        stderr = tail(self._stderr_path, start=stderr_start)
        if finished is not None:
            code = int(finished[0]) if finished[0].lstrip(b"-").isdigit() else 1
            if finished[1:2] != [b"1"]:  # it is not as a fresh process would be: retire it
                self.close()
            detail = finished[2].decode(errors="replace") if len(finished) > 2 else ""
            return cases.end(code, killed, "", (stderr + detail)[-4000:], cpu)
        stdout = tail(self._stdout_path)
        self.close()  # killed at a limit, or the runtime itself ended: the process's status
        return cases.end(self.proc.returncode, killed, stdout, stderr, cpu)

    def _send(self, message: dict[str, object]) -> bool:
        """Write one request line to the runner: a program to run, or ``{"stop": true}`` (stop
        the running program's worker, so that a program past its time limit costs no new
        runner). False when it cannot be written (the runner is going)."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            return False
        return True

    def close(self) -> None:
        """Kill the runner's process group and release its pipe and files."""
        kill_group(self.proc.pid)
        with contextlib.suppress(OSError, subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        if self.proc.stdin is not None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        if self._read_fd >= 0:
            os.close(self._read_fd)
            self._read_fd = -1
        self._dir.cleanup()
