"""Supervising one child of the worker (``worker.py``): its progress and stalls, and the link
to it.

:class:`Supervision` follows one child's tests: it validates each result line the child
writes (``accept``), judges an assertion test in the worker (``_judge``, with :mod:`.judge`:
the test body runs here, never in the child), and decides when the child is stalled — on
CPU use, so a child starved of CPU by a loaded machine gets more wall time, up to an absolute
backstop. :class:`ChildLink` reads the child's result pipe and carries the judge's calls to
the child and its replies back.

What the compiled languages share with it (killing a process group, reading ``/proc``, the
wall-clock backstop) is ``processes.py``; what stays here and not in one watch with theirs
(``compiled/watch.py``): the child stops itself at its CPU limit (SIGPROF), so it is only
looked at when it has gone quiet, and its results are JSON lines, not their tokened reports.
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from collections import deque
from typing import Any

from data_builders.execution.processes import proc_stat, wall_backstop
from data_builders.execution.python.child import Timeout, test_limit
from data_builders.execution.python.judge import ChildGone, judge, setup_namespace
from data_builders.execution.statuses import STATUSES

_CHECK_INTERVAL = 0.25
CHILD_STATUSES = frozenset(STATUSES) | {"ok", "serve"}


class Supervision:
    """Progress and stall detection for one child."""

    def __init__(self, job: dict[str, Any], start: int) -> None:
        self.job = job
        self.timeout = float(job["timeout"])
        self.next_index = start
        self.loaded = False
        self.kill_reason: tuple[str, str] | None = None
        self.protocol_error = ""
        self.max_line = 4 * job["max_output"] + 4096
        self.backstop = wall_backstop(self.timeout, job["max_wall_factor"])
        self.cpu_at_start = 0.0  # a forked child's CPU clock starts at zero
        self.link: ChildLink | None = None
        self.scope: dict[str, Any] | None = None  # the test setup's names, for the judge
        self._reset()

    def _reset(self) -> None:
        """A new test starts now, with the child's CPU clock at ``cpu_at_start``."""
        job = self.job
        if self.loaded and self.next_index < len(job["tests"]):
            self.timeout = float(test_limit(job, self.next_index, job["_timeouts"] > 0))
        self.backstop = wall_backstop(self.timeout, job["max_wall_factor"])
        self.test_started = time.monotonic()
        self.last_check = self.test_started
        self.last_cpu = self.cpu_at_start
        self.checked = False
        self.blocked = 0.0

    def next_wakeup(self) -> float:
        now = time.monotonic()
        if not self.checked:  # a healthy test reports before this: no /proc reads at all
            return self.test_started + self.timeout - now
        return self.last_check + min(_CHECK_INTERVAL, self.timeout) - now

    def stalled(self, pid: int) -> bool:
        """Called when no message came in time: kill if blocked long or past the backstop."""
        now = time.monotonic()
        reading = proc_stat(f"/proc/{pid}/stat")
        if reading is None:
            return False  # exiting; the pidfd will fire
        cpu, runnable = reading
        if cpu - self.cpu_at_start >= self.timeout + _CHECK_INTERVAL:
            # SIGPROF did not stop it: stuck in C code (or the handler was replaced)
            self.kill_reason = ("timeout", "CPU time limit exceeded (stopped by the worker)")
            return True
        # mostly idle since the last look and not waiting for a CPU: blocked (sleep, wait).
        # A runnable child is only starved by a busy machine: with limits of 0.1 s and a
        # niced worker next to a training job, it may get under 10% of a CPU.
        if not runnable and cpu - self.last_cpu < 0.1 * (now - self.last_check):
            self.blocked += now - self.last_check
        self.last_cpu, self.last_check, self.checked = cpu, now, True
        if self.blocked >= self.timeout or now - self.test_started >= self.backstop:
            self.kill_reason = (
                "timeout",
                "wall-clock backstop: the program stopped making progress",
            )
            return True
        return False

    def accept(self, line: bytes) -> bytes | None:
        """Validate one child line (untrusted: the program runs in that process);
        the line for the host when it is the next test's result, else None.

        An assertion test is never the child's to report: its ``serve`` line starts the
        test's body here (:mod:`.judge`), and the worker writes the result."""
        try:
            message = json.loads(line)
            index, status = message["k"], message["s"]
            cpu = float(message.get("c", self.cpu_at_start))
            if type(index) is not int or status not in CHILD_STATUSES:
                raise ValueError(line[:100])
        except (ValueError, KeyError, TypeError, RecursionError, OverflowError):
            self.protocol_error = "malformed result line"
            return None
        self.cpu_at_start = cpu
        self._reset()
        if index == -1 and not self.loaded:
            if status == "ok":
                self.loaded = True
                self._reset()  # the first test's own limit
                return None
            if status == "serve":
                self.protocol_error = "status 'serve' before the program loaded"
                return None
            self.kill_reason = (status, str(message.get("d", ""))[:500])
            return None
        if self.out_of_timeouts():
            return None  # results after the limit are ignored: labelled "not run" instead
        if index != self.next_index or index >= len(self.job["tests"]):
            self.protocol_error = f"result for test {index} while expecting {self.next_index}"
            return None
        test = self.job["tests"][index]
        if (status == "serve") != (test["kind"] == "assert"):
            # only the worker decides an assertion test (and only for those does it listen)
            self.protocol_error = f"status {status!r:.20} for a {test['kind']} test"
            return None
        if status == "serve":
            verdict = self._judge(test["source"], cpu)
            if verdict is None:  # the child died, stalled or cheated: labelled as a crash
                return None
            status, detail, used = verdict
            line = json.dumps({"k": index, "s": status, "t": used, "d": detail}).encode()
        self.job["_timeouts"] += status == "timeout"
        self.next_index += 1
        self._reset()  # the next test's limit (capped once the program has timed out)
        return line

    def _judge(self, source: str, cpu: float) -> tuple[str, str, float] | None:
        """Run an assertion test's body here against the child (:mod:`.judge`); (status,
        detail, child CPU seconds). The child answers calls only; if it dies, stalls or
        breaks the protocol, the link is marked gone and the worker labels the test."""
        link = self.link
        if self.scope is None:
            self.scope = setup_namespace(self.job["setup"])
        link.cpu = cpu
        signal.setitimer(signal.ITIMER_PROF, 2 * max(self.timeout, 0.05) + 1.0)
        try:
            status, detail = judge(source, self.scope, link.ask, bool(self.job.get("entry_point")))
        except ChildGone as exc:
            link.gone = True
            if self.kill_reason is None and not link.eof:
                self.protocol_error = self.protocol_error or str(exc)
            return None
        except Timeout:
            link.gone = True
            self.kill_reason = ("timeout", "the test's own evaluation ran out of CPU time")
            return None
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        try:
            if link.gone:  # the test itself swallowed the end of the child (bare except)
                raise ChildGone("the program's process ended during the test")
            link.send({"end": True})
        except ChildGone:
            link.gone = True
            return None
        self.cpu_at_start = max(cpu, link.cpu)
        self._reset()
        return status, detail, max(0.0, link.cpu - cpu)

    def request_sent(self) -> None:
        """The judge waits on the child from now: its own time is not the child's stall."""
        self.last_check = time.monotonic()

    def out_of_timeouts(self) -> bool:
        limit = self.job.get("max_timeouts")
        return limit is not None and self.job["_timeouts"] >= limit


class ChildLink:
    """The worker's end of one child: its result lines, and the calls of the tests judged here.

    Everything read is untrusted: a reply is only ever decoded into plain values."""

    def __init__(self, pid: int, read_fd: int, pidfd: int, request_fd: int, state: Supervision):
        self.pid, self.read_fd, self.pidfd, self.request_fd = pid, read_fd, pidfd, request_fd
        self.state = state
        self.lines: deque[bytes] = deque()
        self.buffer = b""
        self.eof = False
        self.gone = False  # the judge gave up on this child: the worker kills it
        self.cpu = 0.0  # the child's CPU clock, as last reported
        os.set_blocking(read_fd, False)
        if request_fd >= 0:
            os.set_blocking(request_fd, False)

    def fill(self) -> None:
        """Read what the child has written; complete lines go to ``lines``."""
        while True:
            try:
                chunk = os.read(self.read_fd, 1 << 20)
            except BlockingIOError:
                break
            if not chunk:
                self.eof = True
                break
            self.buffer += chunk
            if len(self.buffer) > self.state.max_line and b"\n" not in self.buffer:
                self.state.protocol_error = "result line too long"
                self.buffer = b""
                return
        if b"\n" in self.buffer:
            *lines, self.buffer = self.buffer.split(b"\n")
            self.lines.extend(lines)

    def send(self, request: dict[str, Any]) -> None:
        """Write one request, never blocking on a child that stopped reading."""
        view = memoryview((json.dumps(request) + "\n").encode())
        while view:
            try:
                view = view[os.write(self.request_fd, view) :]
                continue
            except BlockingIOError:
                pass
            except OSError:
                raise ChildGone("the program closed its request pipe") from None
            self._wait([self.pidfd], [self.request_fd])

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        """One request, one reply (see :mod:`.judge`); marks the link gone when it fails."""
        try:
            return self._ask(request)
        except ChildGone:
            self.gone = True
            raise

    def _ask(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.gone:
            raise ChildGone("the program's process already failed this test")
        self.send(request)
        self.state.request_sent()
        while not self.lines:
            if self.eof or self.state.protocol_error:
                raise ChildGone("the program's process ended during the test")
            self._wait([self.read_fd, self.pidfd], [])
            self.fill()
        try:
            reply = json.loads(self.lines.popleft())
            if type(reply) is not dict:
                raise ValueError("not an object")
            self.cpu = float(reply.get("c", self.cpu))
        except (ValueError, TypeError, RecursionError, OverflowError):
            self.state.protocol_error = "malformed reply to a call"
            raise ChildGone("malformed reply to a call") from None
        return reply

    def _wait(self, readers: list[int], writers: list[int]) -> None:
        """Wait for the child (or its end), killing it when it stalls."""
        readable, writable, _ = select.select(
            readers, writers, [], max(0.0, self.state.next_wakeup())
        )
        if self.pidfd in readable and self.read_fd not in readable:
            self.fill()
            if not self.lines:
                raise ChildGone("the program's process ended during the test")
        if not readable and not writable and self.state.stalled(self.pid):
            raise ChildGone("the program stalled during the test")
