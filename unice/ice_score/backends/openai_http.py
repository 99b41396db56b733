"""The judge's OpenAI-compatible backend: the shared client, fed from an :class:`IceScoreConfig`.

Why a thin subclass: the HTTP client (retries, backoff, one-line fatal errors, several
endpoints) lives in :mod:`data_builders.openai_client` for both the judge and the dataset
builders' ``--generate openai:...``; what is the judge's own is where its settings come from and
its default generation parameters (temperature, a reply length that depends on CoT).
"""

from __future__ import annotations

from typing import Any

from data_builders.openai_client.client import (
    RETRY_STATUSES,
    ClientSettings,
    Job,
    OpenAIClient,
)
from unice.ice_score.config import IceScoreConfig

__all__ = ["RETRY_STATUSES", "Job", "OpenAIBackend", "client_settings"]


def client_settings(config: IceScoreConfig) -> ClientSettings:
    """The client settings an ICE-Score config asks for (one endpoint, ``base_url``)."""
    return ClientSettings(
        base_urls=(str(config.base_url),),
        model=str(config.model),
        concurrency=config.concurrency,
        timeout=config.timeout,
        max_retries=config.max_retries,
        backoff=config.backoff,
        max_backoff=config.max_backoff,
        api_key_env=config.api_key_env,
    )


class OpenAIBackend(OpenAIClient):
    """Sends each prompt as one chat message, ``concurrency`` requests at a time."""

    name = "openai"

    def __init__(self, config: IceScoreConfig, params: dict[str, Any] | None = None) -> None:
        """``params``: generation parameters sent with every request instead of the judge's
        (temperature, max_tokens)."""
        self.config = config
        super().__init__(client_settings(config), params)

    def params(self) -> dict[str, Any]:
        if self._params is not None:
            return dict(self._params)
        return {"temperature": self.config.temperature, "max_tokens": self.config.reply_tokens}
