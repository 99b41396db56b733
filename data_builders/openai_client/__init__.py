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

from data_builders.openai_client.cache import ReplyCache, request_key
from data_builders.openai_client.client import (
    BackendStats,
    ClientSettings,
    Completion,
    Messages,
    OnDone,
    OpenAIClient,
)
from data_builders.openai_client.errors import (
    AuthenticationError,
    BackendError,
    ClientConfigError,
    ClientError,
    ModelNotFoundError,
    RequestFailedError,
    ServerUnreachableError,
)

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
