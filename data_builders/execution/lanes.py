"""Host side of the pool: one *lane* per worker keeps it fed, with the next job already queued.

Why pipelined: a worker that finishes a program would otherwise wait for the host to notice,
build the next job and send it — a round trip through Python threads that share one GIL.
Measured here with 2 workers on 2 cores, that left 13% of the CPU idle (adding workers did
not help). A lane writes the next job while the current one runs, so the worker reads it
the moment it is free.

Rules that keep it safe:

* at most two jobs in flight per worker, and the second only when its encoded size is
  at most :data:`PIPELINE_BYTES`: it then fits in the worker's stdin pipe, so writing it can
  never block while the worker is itself blocked writing results the lane is not reading;
* messages come back strictly in job order (a worker runs one job at a time), so each
  belongs to the oldest job in flight;
* a worker that dies or stalls is replaced, the oldest job resumes after the test it was on
  (that test is labelled as before) and the queued job is sent again from its start.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from data_builders.execution.process import WorkerError, WorkerProcess
from data_builders.execution.types import Program, ProgramResult, TestOutcome

PIPELINE_BYTES = 32 * 1024
"""Largest job queued behind a running one (a Linux pipe holds 64 KiB)."""

_END = object()


@dataclass
class _Slot:
    """One program on its way through a lane."""

    program: Program
    job: dict[str, Any]
    future: Future[ProgramResult]
    outcomes: list[TestOutcome | None] = field(default_factory=list)
    next_index: int = 0

    def __post_init__(self) -> None:
        self.outcomes = [None] * len(self.program.tests)
        self.payload = _encode(self.job)

    def resend_payload(self) -> bytes:
        return _encode({**self.job, "start": self.next_index})


def _encode(job: dict[str, Any]) -> bytes:
    return (json.dumps(job) + "\n").encode()


class Feed:
    """Hands programs to lanes in input order and gives their results back in that order.

    At most ``window`` results are outstanding (taken but not yet yielded), so a lazy input
    is read a bounded stretch ahead of the consumer.
    """

    def __init__(
        self,
        programs: Iterable[Program],
        make_job: Callable[[Program], dict[str, Any]],
        window: int,
    ) -> None:
        self._programs = iter(programs)
        self._make_job = make_job
        self._lock = threading.Lock()
        self._space = threading.Semaphore(window)
        self._order: queue.Queue[Any] = queue.Queue()
        self._peeked: Program | None = None
        self.exhausted = False
        self.closed = False
        self.failure: BaseException | None = None

    def take(self, block: bool) -> _Slot | None:
        """The next program, or None: input exhausted, feed closed, or (``block=False``)
        the window is full. Waits for window space only when there is a program to take."""
        while True:
            with self._lock:
                if not self._peek():
                    return None
            if not self._space.acquire(blocking=False):
                if not block:
                    return None
                while not self._space.acquire(timeout=0.1):
                    if self.closed:
                        return None
            with self._lock:
                if self._peeked is None:  # another lane took it meanwhile
                    self._space.release()
                    continue
                program, self._peeked = self._peeked, None
                try:
                    slot = _Slot(program, self._make_job(program), Future())
                except BaseException as exc:  # a bad program: the consumer sees the error
                    self._space.release()
                    self.exhausted, self.failure = True, exc
                    return None
                self._order.put(slot.future)
                return slot

    def _peek(self) -> bool:
        """Whether a next program is there (read ahead into ``_peeked``); call under the lock."""
        if self.closed or self.exhausted:
            return False
        if self._peeked is None:
            try:
                self._peeked = next(self._programs)
            except StopIteration:
                self.exhausted = True
                return False
            except BaseException as exc:  # a failing input: the consumer sees the error
                self.exhausted, self.failure = True, exc
                return False
        return True

    def close(self) -> None:
        """Hand out no more programs: lanes finish what is in flight and stop."""
        self.closed = True

    def lane_finished(self, last: bool, error: BaseException | None) -> None:
        """Called by every lane as it stops; the last one ends the results stream."""
        if error is not None and self.failure is None:
            self.failure = error
        if last:
            self._order.put(_END)

    def results(self) -> Iterator[ProgramResult]:
        """Results in input order (raises the first lane or input failure, in order)."""
        try:
            while True:
                item = self._order.get()
                if item is _END:
                    break
                result = item.result()
                self._space.release()
                yield result
            if self.failure is not None:
                raise self.failure
        finally:
            self.close()


class Lanes:
    """Runs a :class:`Feed` on workers taken from ``idle``, one lane (thread) per worker."""

    def __init__(
        self,
        idle: queue.Queue[WorkerProcess],
        to_outcome: Callable[[Any, dict[str, Any]], TestOutcome],
        isolation: str,
        patience: Callable[[dict[str, Any]], float],
    ) -> None:
        self._idle = idle
        self.to_outcome = to_outcome
        self._isolation = isolation
        self.patience = patience

    def drive(self, feed: Feed, lanes_left: list[int], lock: threading.Lock) -> None:
        """One lane: borrow a worker, keep it fed until the feed runs dry, return it."""
        error: BaseException | None = None
        worker = self._idle.get()
        try:
            _Lane(worker, self, feed).run()
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer via the feed
            error = exc
        finally:
            self._idle.put(worker)
            with lock:
                lanes_left[0] -= 1
                last = lanes_left[0] == 0
            feed.lane_finished(last, error)

    def finish(self, slot: _Slot) -> None:
        missing = [i for i, o in enumerate(slot.outcomes) if o is None]
        if missing:  # pragma: no cover - the protocol guarantees one message per test
            slot.future.set_exception(WorkerError(f"no result for tests {missing}"))
            return
        outcomes: list[TestOutcome] = slot.outcomes  # type: ignore[assignment]
        slot.future.set_result(ProgramResult(outcomes=outcomes, isolation=self._isolation))


class _Lane:
    """The loop of one lane: write jobs ahead, read messages, replace a dead worker."""

    def __init__(self, worker: WorkerProcess, owner: Lanes, feed: Feed) -> None:
        self.worker = worker
        self.owner = owner
        self.feed = feed
        self.inflight: deque[_Slot] = deque()
        self.pending: _Slot | None = None

    def run(self) -> None:
        try:
            if not self.worker.alive():
                self.worker.restart()  # died while idle (killed from outside)
            while True:
                self._top_up()
                if not self.inflight:
                    return
                self._read_one()
        except BaseException as exc:
            for slot in (*self.inflight, *([self.pending] if self.pending else [])):
                if not slot.future.done():
                    slot.future.set_exception(exc)
            raise

    def _top_up(self) -> None:
        """Send jobs until two are in flight (the second only if small)."""
        while True:
            if self.pending is None:
                self.pending = self.feed.take(block=not self.inflight)
                if self.pending is None:
                    return
            if self.inflight and (
                len(self.inflight) >= 2 or len(self.pending.payload) > PIPELINE_BYTES
            ):
                return
            slot, self.pending = self.pending, None
            if not slot.program.tests:
                self.owner.finish(slot)
                continue
            self.inflight.append(slot)
            if not self.worker.send(slot.payload):
                self._replace_worker()

    def _read_one(self) -> None:
        head = self.inflight[0]
        message = self.worker.read(time.monotonic() + self.owner.patience(head.job))
        if message is None:
            self._lost(head)
            return
        if "k" in message:
            index = message["k"]  # the worker checked it is the next test's index
            head.outcomes[index] = self.owner.to_outcome(head.program.tests[index], message)
            head.next_index = index + 1
        elif message.get("done"):
            self.inflight.popleft()
            self.owner.finish(head)

    def _lost(self, head: _Slot) -> None:
        """No answer in time, or the worker died: label the test it was on, start over."""
        alive = self.worker.alive()
        if head.next_index < len(head.outcomes):  # else it died between the last result and "done"
            head.outcomes[head.next_index] = TestOutcome(
                "timeout" if alive else "runtime_error",
                0.0,
                None,
                "the worker stopped answering"
                if alive
                else "the program killed its worker process",
            )
            head.next_index += 1
        self._replace_worker()

    def _replace_worker(self) -> None:
        """Restart the worker and resend what was in flight, oldest first, from where it was."""
        while True:
            self.worker.restart()
            if self.inflight and self.inflight[0].next_index >= len(self.inflight[0].job["tests"]):
                self.owner.finish(self.inflight.popleft())
            payloads = [self.inflight[0].resend_payload()] if self.inflight else []
            payloads += [slot.payload for slot in list(self.inflight)[1:]]
            if all(self.worker.send(payload) for payload in payloads):
                return
