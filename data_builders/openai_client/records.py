"""What the client hands back: a reply, its cost, and the counters of a run.

Why a module of its own: these are imported wherever replies are handled (ICE-Score's runner
and its local ``transformers`` backend too), and must not pull in ``httpx`` with the client.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from data_builders.openai_client.errors import RequestFailedError

Messages = list[dict[str, str]]
"""A chat: ``[{"role": "user", "content": "..."}]``."""


@dataclass(frozen=True)
class Completion:
    """One reply and what it cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0


@dataclass
class BackendStats:
    """Work done by a client in one run (cache hits are counted by the caller)."""

    requests: int = 0
    retries: int = 0
    failed: int = 0


OnDone = Callable[[int, "Completion | RequestFailedError"], None]
