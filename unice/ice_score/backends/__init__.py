"""Judge backends: something that turns chat prompts into replies.

A backend has a ``name``, ``model``, ``params()`` (the generation parameters that go into the
cache key), ``stats`` and ``run(jobs, on_done)``, which calls ``on_done(index, result)`` once per
finished job - ``result`` is a :class:`Completion` or a
:class:`~unice.ice_score.errors.RequestFailedError` - and raises a
:class:`~unice.ice_score.errors.BackendError` when the judge cannot be used at all (after
reporting every job that did finish).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from unice.ice_score.config import IceScoreConfig
from unice.ice_score.errors import RequestFailedError

Messages = list[dict[str, str]]


@dataclass(frozen=True)
class Completion:
    """One reply and what it cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class BackendStats:
    """Work done by a backend in one run (cache hits are counted by the runner)."""

    requests: int = 0
    retries: int = 0
    failed: int = 0


OnDone = Callable[[int, "Completion | RequestFailedError"], None]


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
