"""Exceptions of the OpenAI-compatible client (:mod:`data_builders.openai_client`).

Why specific classes: the ICE-Score CLI, ``evaluate.py`` and the dataset builders turn these into
one-line ``error: ...`` messages that say what to fix, while real bugs keep their tracebacks.
``unice.ice_score.errors`` re-exports them (``IceScoreError`` *is* :class:`ClientError`), so the
judge and the builders share one hierarchy and every existing ``except`` keeps catching the same
errors.
"""

from __future__ import annotations

from typing import Any


class ClientError(Exception):
    """Base class; the message is always rendered as a single line."""

    def __str__(self) -> str:
        return " ".join(super().__str__().split())


class ClientConfigError(ClientError, ValueError):
    """A setting is invalid (bad URL list, concurrency < 1, unusable cache folder, ...)."""


class BackendError(ClientError, RuntimeError):
    """The server(s) could not be used at all: dead server, bad key, model not served.

    Attributes:
        run: whatever partial result the caller attaches when the failure happened mid-run
            (ICE-Score puts its partial ``IceScoreRun`` here; completed replies are already in
            the cache), else ``None``.
    """

    run: Any = None


class ServerUnreachableError(BackendError):
    """No connection could be made to any server after all retries."""


class AuthenticationError(BackendError):
    """The server refused the API key (HTTP 401/403)."""


class ModelNotFoundError(BackendError):
    """The server does not serve the requested model (HTTP 404 / ``model_not_found``)."""


class RequestFailedError(ClientError, RuntimeError):
    """One request failed for good (timeouts, 429/5xx after all retries, a 400 reply).

    Callers record the affected item as missing and carry on with the others.
    """
