"""One client for OpenAI-compatible chat-completions servers, with its reply cache and errors.

Why here, on the ground floor: both the dataset builders (``--generate openai:...``) and
ICE-Score's judge (``unice.ice_score``) send chat requests to vLLM, llama.cpp, Ollama, TGI or a
hosted API. The client lives in ``data_builders`` (which never imports ``unice``) so the
dependency runs one way: ``unice`` uses it, ``data_builders`` does not reach up into ``unice``.

Example::

    from data_builders.openai_client import ClientSettings, OpenAIClient
    client = OpenAIClient(ClientSettings(("http://localhost:8000/v1",), "my-model"),
                          params={"temperature": 0.0, "max_tokens": 64})
    client.run([(0, [{"role": "user", "content": "Hi"}])], lambda i, result: print(result))
"""

from typing import Any

from data_builders.openai_client.cache import ReplyCache, request_key
from data_builders.openai_client.errors import (
    AuthenticationError,
    BackendError,
    ClientConfigError,
    ClientError,
    ModelNotFoundError,
    RequestFailedError,
    ServerUnreachableError,
)
from data_builders.openai_client.records import BackendStats, Completion, Messages, OnDone

_CLIENT_NAMES = (
    "BackendStats",
    "ClientSettings",
    "Completion",
    "Messages",
    "OnDone",
    "OpenAIClient",
)


def __getattr__(name: str) -> Any:
    """The client's names, imported on first use: ``httpx`` costs ~1 s of start-up on a busy
    machine, which the errors and the cache (imported by ``unice.ice_score``) do not need."""
    if name in _CLIENT_NAMES:
        from data_builders.openai_client import client

        return getattr(client, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "AuthenticationError",
    "BackendError",
    "BackendStats",
    "ClientConfigError",
    "ClientError",
    "ClientSettings",
    "Completion",
    "Messages",
    "ModelNotFoundError",
    "OnDone",
    "OpenAIClient",
    "ReplyCache",
    "RequestFailedError",
    "ServerUnreachableError",
    "request_key",
]
