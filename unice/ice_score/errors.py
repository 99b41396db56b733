"""Exceptions of the ICE-Score head.

Why specific classes: the CLI and ``evaluate.py`` turn these into one-line ``error: ...``
messages (exit status 2) that say what to fix, while real bugs keep their tracebacks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover - typing only
    from unice.ice_score.runner import IceScoreRun


class IceScoreError(Exception):
    """Base class; the message is always rendered as a single line."""

    def __str__(self) -> str:
        return " ".join(super().__str__().split())


class IceScoreConfigError(IceScoreError, ValueError):
    """A configuration value is invalid (unknown aspect, parser, backend, missing model, ...)."""


class IceScoreInputError(IceScoreError, ValueError):
    """An input record lacks a field the prompt needs (e.g. ``reference`` with ``--with-reference``)."""


class BackendError(IceScoreError, RuntimeError):
    """The judge could not be used at all: dead server, bad key, model not served.

    Attributes:
        run: the partial :class:`~unice.ice_score.runner.IceScoreRun` when the failure happened
            mid-run (completed replies are already in the cache), else ``None``.
    """

    run: IceScoreRun | None = None


class ServerUnreachableError(BackendError):
    """No connection could be made to the server after all retries."""


class AuthenticationError(BackendError):
    """The server refused the API key (HTTP 401/403)."""


class ModelNotFoundError(BackendError):
    """The server does not serve the requested model (HTTP 404 / ``model_not_found``)."""


class RequestFailedError(IceScoreError, RuntimeError):
    """One request failed for good (timeouts, 429/5xx after all retries, a 400 reply).

    The runner records the affected record as missing and carries on with the others.
    """
