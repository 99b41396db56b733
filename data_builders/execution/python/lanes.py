"""Host side of the pool: one *lane* (a thread) per worker runs programs from a shared feed.

``PythonPool.run`` and ``PythonPool.map`` (Python's pool, ``pool.py``) go through
here. A lane takes the next program, sends its job, reads one message per test, and hands the
result to the feed, which gives results back in input order. A worker that dies or stalls is
replaced and the program resumes after the test it was on (that test is labelled
``runtime_error`` or ``timeout``).

Programs that import a heavy library (numpy, torch, ...) all go to one *router* lane, whose
worker's import zygote then imports each library once for the whole pool instead of once per
worker (torch alone costs ~1 s of CPU to import): ``Feed(prefers=...)``.

What keeps workers busy is the feed's window, not queueing jobs ahead: results are yielded in
input order, so a slow program holds back every result after it, and the window bounds how
far the other lanes may run ahead meanwhile (see ``MAP_WINDOW_PER_WORKER``). Queueing a second
job in each worker was measured too (2 workers, 2 cores): no faster, so it is not done.
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

from data_builders.execution.python.process import WorkerError, WorkerProcess
from data_builders.execution.types import Program, ProgramResult, TestOutcome

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

    def payload(self) -> bytes:
        """The job, encoded, resuming at the first test without a result."""
        return (json.dumps({**self.job, "start": self.next_index}) + "\n").encode()


class Feed:
    """Hands programs to lanes in input order and gives their results back in that order.

    At most ``window`` results are outstanding (taken but not yet yielded), so a lazy input
    is read a bounded stretch ahead of the consumer. ``lanes`` is how many lanes drive it.
    Programs for which ``prefers`` holds are kept for the router lane while it runs (another
    lane that takes one sets it aside in ``_routed``; the router serves those first).
    """

    def __init__(
        self,
        programs: Iterable[Program],
        make_job: Callable[[Program], dict[str, Any]],
        window: int,
        lanes: int = 1,
        prefers: Callable[[Program], bool] | None = None,
    ) -> None:
        self._programs = iter(programs)
        self._lanes_running = lanes
        self._make_job = make_job
        self._lock = threading.Lock()
        self._space = threading.Semaphore(window)
        self._order: queue.Queue[Any] = queue.Queue()
        self._peeked: Program | None = None
        self._prefers = prefers if lanes > 1 else None
        self._routed: deque[_Slot] = deque()
        # "expected" until the router lane joins, "present" while it runs, then "gone"
        self._router = "expected" if self._prefers is not None else "absent"
        self.exhausted = False
        self.closed = False
        self.failure: BaseException | None = None

    def join(self, router: bool) -> None:
        """A lane starts driving this feed (``router``: the lane that takes routed programs)."""
        if router and self._prefers is not None:
            with self._lock:
                self._router = "present"

    def take(self, router: bool = False) -> _Slot | None:
        """The next program, or None when the input is exhausted or the feed closed. Waits
        for window space only when there is a program to take."""
        while True:
            with self._lock:
                if (routed := self._routed_for(router, starved=False)) is not None:
                    return routed
                if not self._peek():
                    return self._routed_for(router, starved=True)
            while not self._space.acquire(timeout=0.1):
                if self.closed:
                    return None
                with self._lock:  # a routed program holds its window space already
                    if (routed := self._routed_for(router, starved=True)) is not None:
                        return routed
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
                prefers = self._prefers
                routing = self._router in ("expected", "present")
                if not router and routing and prefers and prefers(program):
                    self._routed.append(slot)  # the router lane's (see the class doc)
                    continue
                return slot

    def _routed_for(self, router: bool, starved: bool) -> _Slot | None:
        """A set-aside program for this lane, under the lock: the router's; any lane's once
        the router is gone, or when the router has not joined (its worker may be busy
        elsewhere) and this lane has nothing else to do (``starved``)."""
        if not self._routed:
            return None
        if router or self._router == "gone" or (starved and self._router != "present"):
            return self._routed.popleft()
        return None

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

    def lane_finished(self, error: BaseException | None, router: bool = False) -> None:
        """Called by each of the ``lanes`` as it stops; the last one ends the results stream.

        When the router stops early (its worker failed), the other lanes take what it left;
        the last lane to stop fails whatever is left nobody can run."""
        with self._lock:
            if error is not None and self.failure is None:
                self.failure = error
            if router and self._router == "present":
                self._router = "gone"
            self._lanes_running -= 1
            last = self._lanes_running == 0
            orphans: list[_Slot] = []
            if last:
                orphans, self._routed = list(self._routed), deque()
        for slot in orphans:
            slot.future.set_exception(WorkerError("not run: every lane of the map stopped"))
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
        router: WorkerProcess | None = None,
    ) -> None:
        self._idle = idle
        self._router = router
        self.to_outcome = to_outcome
        self._isolation = isolation
        self.patience = patience

    def drive(self, feed: Feed) -> None:
        """One lane: borrow a worker, keep it fed until the feed runs dry, return it."""
        error: BaseException | None = None
        worker = self._idle.get()
        router = worker is self._router
        feed.join(router)
        try:
            _Lane(worker, self, feed, router).run()
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer via the feed
            error = exc
        finally:
            self._idle.put(worker)
            feed.lane_finished(error, router)

    def finish(self, slot: _Slot) -> None:
        missing = [i for i, o in enumerate(slot.outcomes) if o is None]
        if missing:  # pragma: no cover - the protocol guarantees one message per test
            slot.future.set_exception(WorkerError(f"no result for tests {missing}"))
            return
        outcomes: list[TestOutcome] = slot.outcomes  # type: ignore[assignment]
        slot.future.set_result(ProgramResult(outcomes=outcomes, isolation=self._isolation))


class _Lane:
    """The loop of one lane: send a job, read its messages, replace a dead worker."""

    def __init__(self, worker: WorkerProcess, owner: Lanes, feed: Feed, router: bool) -> None:
        self.worker = worker
        self.owner = owner
        self.feed = feed
        self.router = router

    def run(self) -> None:
        if not self.worker.alive():
            self.worker.restart()  # died while idle (killed from outside)
        while (slot := self.feed.take(self.router)) is not None:
            try:
                self._run(slot)
            except BaseException as exc:
                if not slot.future.done():
                    slot.future.set_exception(exc)
                raise

    def _run(self, slot: _Slot) -> None:
        """All of one program's tests; resumed after a lost worker until each has a result."""
        while slot.next_index < len(slot.outcomes):
            while not self.worker.send(slot.payload()):
                self.worker.restart()
            if self._read_until_done(slot):
                break
        self.owner.finish(slot)

    def _read_until_done(self, slot: _Slot) -> bool:
        """Read the job's messages: True at its "done", False when the worker was lost."""
        while True:
            message = self.worker.read(time.monotonic() + self.owner.patience(slot.job))
            if message is None:
                self._lost(slot)
                return False
            if "k" in message:
                index = message["k"]  # the worker checked it is the next test's index
                slot.outcomes[index] = self.owner.to_outcome(slot.program.tests[index], message)
                slot.next_index = index + 1
            elif message.get("done"):
                return True

    def _lost(self, slot: _Slot) -> None:
        """No answer in time, or the worker died: label the test it was on, restart it."""
        alive = self.worker.alive()
        if slot.next_index < len(slot.outcomes):  # else it died between the last result and "done"
            slot.outcomes[slot.next_index] = TestOutcome(
                "timeout" if alive else "runtime_error",
                0.0,
                None,
                "the worker stopped answering"
                if alive
                else "the program killed its worker process",
            )
            slot.next_index += 1
        self.worker.restart()
