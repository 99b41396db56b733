"""One dataclass of defaults for the ICE-Score head.

``configs/ice_score/default.yaml`` mirrors these fields one to one, and the CLI flags map onto
them, so the CLI, ``evaluate.py``'s ``ice_score`` group and the Python API share one source of
defaults.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data_builders.cache import cache_dir
from unice.ice_score.errors import IceScoreConfigError

ASPECTS = ("usefulness", "functional_correctness")
PARSERS = ("robust", "paper")
BACKENDS = ("openai", "transformers")
AUTO_CACHE = "auto"


def default_cache_dir() -> Path:
    """The judge's reply cache: ``cache_dir("ice_score")`` (same roots as the builders' cache)."""
    return cache_dir("ice_score")


def resolve_cache_dir(cache_dir: str | None) -> Path | None:
    """``"auto"`` -> :func:`default_cache_dir`; ``None``/``""`` -> ``None`` (no cache)."""
    if not cache_dir:
        return None
    return default_cache_dir() if cache_dir == AUTO_CACHE else Path(cache_dir)


@dataclass
class IceScoreConfig:
    """Everything that decides which judge is asked what, and how replies are read.

    Attributes:
        backend: ``"openai"`` (any OpenAI-compatible chat-completions server) or
            ``"transformers"`` (a local causal LM, folder or hub name).
        base_url: server root, e.g. ``http://localhost:8000/v1`` (``openai`` backend only).
        model: model name served by the server, or local model folder.
        aspect: ``"usefulness"`` or ``"functional_correctness"`` (paper, Appendix A).
        with_reference: Ref-ICE-Score: show the reference code to the judge.
        cot: zero-shot chain of thought: end the prompt with "Step-by-step Evaluation:".
        parser: ``"robust"`` (default) or ``"paper"`` (Appendix D listing, reproduced exactly).
        template: name of a built-in prompt template, or path to a YAML/JSON template file.
        message_role: chat role of the single prompt message (the paper's release used
            ``"system"``; ``"user"`` works with every chat template).
        cache_dir: on-disk reply cache, so a rerun asks only for what is missing. ``"auto"``
            (default) is :func:`default_cache_dir`; ``None`` (or ``""``) disables caching.
            Keys hold backend, model, prompt and generation parameters, so one folder can be
            shared by every judge and dataset.
        concurrency: requests in flight at once (``openai``); batch size (``transformers``).
        timeout: seconds per HTTP request.
        max_retries: extra attempts after a 429/5xx/connection error/timeout.
        backoff: first retry delay in seconds; doubles each retry (capped at ``max_backoff``).
        max_backoff: longest wait between two attempts, also the cap on ``Retry-After``.
        api_key_env: environment variable holding the API key (unset = no key sent).
        temperature: sampling temperature; 0 as in the paper.
        max_tokens: reply length limit; ``None`` uses 32 without CoT and 512 with CoT (a truncated reply
            shows up as ``unparsed``, never as a wrong score).
        device: ``transformers`` device (``"auto"`` = CUDA when present, else CPU).
        dtype: ``transformers`` weights dtype (``"auto"``, ``"float32"``, ``"bfloat16"``...).
        progress: show a progress bar on stderr.
    """

    backend: str = "openai"
    base_url: str | None = None
    model: str | None = None
    aspect: str = "functional_correctness"
    with_reference: bool = False
    cot: bool = False
    parser: str = "robust"
    template: str = "ice_score"
    message_role: str = "user"
    cache_dir: str | None = AUTO_CACHE
    concurrency: int = 8
    timeout: float = 60.0
    max_retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 30.0
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = 0.0
    max_tokens: int | None = None
    device: str = "auto"
    dtype: str = "auto"
    progress: bool = True

    def __post_init__(self) -> None:
        self.validate()

    @property
    def cache_path(self) -> Path | None:
        """The reply cache folder actually used (``"auto"`` resolved), ``None`` when disabled."""
        return resolve_cache_dir(self.cache_dir)

    @property
    def reply_tokens(self) -> int:
        """Reply length actually requested: a score needs few tokens, reasoning needs more."""
        if self.max_tokens is not None:
            return self.max_tokens
        return 512 if self.cot else 32

    def validate(self) -> None:
        """Raise :class:`IceScoreConfigError` naming the bad field and the accepted values."""
        _choice("backend", self.backend, BACKENDS)
        _choice("aspect", self.aspect, ASPECTS)
        _choice("parser", self.parser, PARSERS)
        _choice("message_role", self.message_role, ("user", "system"))
        if not self.model:
            raise IceScoreConfigError(
                "no judge model given: pass --model NAME (served model name, or a local model "
                "folder with --backend transformers)"
            )
        if self.backend == "openai" and not self.base_url:
            raise IceScoreConfigError(
                "--backend openai needs --base-url, e.g. http://localhost:8000/v1 (vLLM) or "
                "https://api.openai.com/v1"
            )
        for name in ("concurrency",):
            if getattr(self, name) < 1:
                raise IceScoreConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("timeout", "backoff", "max_backoff", "temperature"):
            if getattr(self, name) < 0:
                raise IceScoreConfigError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.max_retries < 0:
            raise IceScoreConfigError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise IceScoreConfigError(f"max_tokens must be >= 1, got {self.max_tokens}")

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> IceScoreConfig:
        """Build from a mapping (e.g. a hydra group), rejecting unknown keys by name."""
        known = {field.name for field in dataclasses.fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise IceScoreConfigError(
                f"unknown ice_score option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def _choice(name: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise IceScoreConfigError(f"unknown {name} {value!r}; choose one of {', '.join(allowed)}")
