"""One ``map`` over Ray actors: numbered chunks out to actors, finished chunks back in order.

Input is read a bounded stretch ahead of the oldest chunk not yet yielded; each actor holds
``chunks_per_actor`` chunks at once; a chunk whose actor was lost goes back to the front of
the queue (up to ``chunk_retries`` times) and the actor is replaced; only a finished chunk's
results are kept, so none is yielded twice. The actors and their lifecycle:
``backend.py``.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Iterator
from typing import Any

from data_builders.errors import UserError
from data_builders.execution.types import ProgramResult


class Schedule:
    """One ``map``: numbered chunks out to actors, finished chunks back in order.

    ``owner`` is the :class:`~data_builders.execution.ray.backend.RayPool` whose actors
    run the chunks (not imported here: it imports this module).
    """

    def __init__(self, owner: Any, programs: Iterator[Any], size: int) -> None:
        self.owner, self.ray = owner, owner._ray
        self.programs, self.size = programs, size
        self.chunks_read = 0
        self.exhausted = False
        self.held: dict[int, list[Any]] = {}  # read, not yet yielded
        self.finished: dict[int, list[ProgramResult]] = {}
        self.retry: list[int] = []  # heap: chunks to hand out again, earliest first
        self.tries: dict[int, int] = {}
        self.flight: dict[Any, tuple[int, Any]] = {}  # result ref -> (chunk, actor)
        self.load: dict[Any, int] = {}
        # how far reading may run ahead of the oldest unyielded chunk
        self.window = 2 * self.owner._depth * max(1, len(owner._actors) + len(owner._placing))

    def chunks(self) -> Iterator[list[ProgramResult]]:
        """Each chunk's results, in chunk order."""
        next_out = 0
        alone_since: float | None = None
        while True:
            while next_out in self.finished:
                self.held.pop(next_out)
                yield self.finished.pop(next_out)
                next_out += 1
            self._hand_out(next_out)
            if not self.flight and not self.retry and self.exhausted and not self.held:
                return
            waiting = list(self.flight) + list(self.owner._placing)
            if not self.owner._actors:
                alone_since = alone_since or time.monotonic()
                if not waiting or time.monotonic() - alone_since > self.owner._placement_timeout:
                    raise UserError(
                        "every Ray actor was lost and none could be placed again within"
                        f" {self.owner._placement_timeout:.0f} s; check `ray status`"
                    )
            else:
                alone_since = None
            ready, _ = self.ray.wait(waiting, num_returns=1, timeout=5.0)
            for ref in ready:
                if ref in self.owner._placing:
                    self._admit(ref)
                else:
                    self._collect(ref)

    def _admit(self, ref: Any) -> None:
        actor = self.owner._placing[ref][0]
        try:
            self.owner._admit(ref)
        except self.owner._lost:  # the replacement died before it was ready
            self.owner._placing.pop(ref, None)
            self.ray.kill(actor, no_restart=True)

    def _next_chunk(self, next_out: int) -> int | None:
        """A chunk to hand out: a retried one first, else the next one read from the input."""
        if self.retry:
            return heapq.heappop(self.retry)
        if self.exhausted or self.chunks_read - next_out >= self.window:
            return None
        chunk = [p for _, p in zip(range(self.size), self.programs, strict=False)]
        if not chunk:
            self.exhausted = True
            return None
        self.held[self.chunks_read] = chunk
        self.chunks_read += 1
        return self.chunks_read - 1

    def _hand_out(self, next_out: int) -> None:
        for actor in list(self.owner._actors):
            while self.load.get(actor, 0) < self.owner._depth:
                index = self._next_chunk(next_out)
                if index is None:
                    return
                self.flight[actor.run_chunk.remote(self.held[index])] = (index, actor)
                self.load[actor] = self.load.get(actor, 0) + 1

    def _collect(self, ref: Any) -> None:
        index, actor = self.flight.pop(ref)
        self.load[actor] -= 1
        try:
            self.finished[index] = self.ray.get(ref)
        except self.owner._lost as exc:
            self.tries[index] = self.tries.get(index, 0) + 1
            if self.tries[index] > self.owner._chunk_retries:
                raise UserError(
                    f"a chunk of {len(self.held[index])} programs lost its Ray actor"
                    f" {self.tries[index]} times ({type(exc).__name__}); check the nodes'"
                    " logs (/tmp/ray/session_latest/logs) and ray_chunk_retries"
                ) from None
            heapq.heappush(self.retry, index)
            self.owner._lose(actor)
        except self.ray.exceptions.RayTaskError as exc:  # a program the executor refused
            cause = getattr(exc, "cause", None)
            raise cause if isinstance(cause, BaseException) else exc from None
