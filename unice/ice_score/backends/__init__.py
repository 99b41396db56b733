"""Judge backends: something that turns chat prompts into replies.

A backend has a ``name``, ``model``, ``params()`` (the generation parameters that go into the
cache key), ``stats`` and ``run(jobs, on_done)``, which calls ``on_done(index, result)`` once per
finished job - ``result`` is a :class:`Completion` or a
:class:`~unice.ice_score.errors.RequestFailedError` - and raises a
:class:`~unice.ice_score.errors.BackendError` when the judge cannot be used at all (after
reporting every job that did finish).

``Completion``, ``BackendStats``, ``Messages`` and ``OnDone`` belong to the shared
OpenAI-compatible client (:mod:`data_builders.openai_client.records`) and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from data_builders.openai_client.records import BackendStats, Completion, Messages, OnDone
from unice.ice_score.config import IceScoreConfig

__all__ = ["Backend", "BackendStats", "Completion", "Messages", "OnDone", "make_backend"]


class Backend(Protocol):
    name: str
    model: str
    stats: BackendStats

    def params(self) -> dict: ...

    def run(self, jobs: Sequence[tuple[int, Messages]], on_done: OnDone) -> None: ...


def make_backend(config: IceScoreConfig) -> Backend:
    """The backend named by ``config.backend`` (imports torch/transformers only when needed)."""
    if config.backend == "transformers":
        from unice.ice_score.backends.local import TransformersBackend

        return TransformersBackend(config)
    from unice.ice_score.backends.openai_http import OpenAIBackend

    return OpenAIBackend(config)
