"""Exceptions of the ICE-Score head.

Why specific classes: the CLI and ``evaluate.py`` turn these into one-line ``error: ...``
messages (exit status 2) that say what to fix, while real bugs keep their tracebacks.

The HTTP client's errors live with the client in :mod:`data_builders.openai_client.errors`
(shared with the dataset builders' ``--generate openai:...``) and are re-exported here under
their old names: ``IceScoreError`` *is* the client's base class and ``IceScoreConfigError`` its
config error, so every ``except IceScoreError`` still catches a dead server or a bad cache folder.
"""

from __future__ import annotations

from data_builders.openai_client.errors import (
    AuthenticationError,
    BackendError,
    ClientConfigError,
    ClientError,
    ModelNotFoundError,
    RequestFailedError,
    ServerUnreachableError,
)

IceScoreError = ClientError
"""Base class; the message is always rendered as a single line."""

IceScoreConfigError = ClientConfigError
"""A configuration value is invalid (unknown aspect, parser, backend, missing model, ...)."""


class IceScoreInputError(IceScoreError, ValueError):
    """An input record lacks a field the prompt needs (e.g. ``reference`` with ``--with-reference``)."""


__all__ = [
    "AuthenticationError",
    "BackendError",
    "IceScoreConfigError",
    "IceScoreError",
    "IceScoreInputError",
    "ModelNotFoundError",
    "RequestFailedError",
    "ServerUnreachableError",
]
