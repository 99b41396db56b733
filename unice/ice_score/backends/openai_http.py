"""OpenAI-compatible chat completions over HTTP (OpenAI, vLLM, llama.cpp, Ollama, TGI...).

Why hand-rolled on ``httpx`` instead of the ``openai`` SDK: one fewer dependency, and exact
control over what counts as fatal (dead server, bad key, unknown model: stop at once with a
one-line error) versus transient (429/5xx/timeouts: retry with exponential backoff, honouring
``Retry-After``), which is what makes long judge runs safe to leave unattended.

The dataset builders' ``--generate openai:URL:MODEL`` samples candidate programs through this
same client (one client, not two): they pass their sampling parameters as ``params`` and a
per-request ``seed`` as a job's third element.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from typing import Any

import httpx

from unice.ice_score.backends import BackendStats, Completion, Messages, OnDone
from unice.ice_score.config import IceScoreConfig
from unice.ice_score.errors import (
    AuthenticationError,
    BackendError,
    ModelNotFoundError,
    RequestFailedError,
    ServerUnreachableError,
)

RETRY_STATUSES = frozenset({408, 409, 425, 429})  # plus every 5xx
Job = tuple[int, Messages, dict[str, Any]]


class _Cancelled(Exception):
    """A job not sent because another one hit a fatal error."""


class OpenAIBackend:
    """Sends each prompt as one chat message, ``concurrency`` requests at a time."""

    name = "openai"

    def __init__(self, config: IceScoreConfig, params: dict[str, Any] | None = None) -> None:
        """``params``: generation parameters sent with every request instead of the judge's
        (temperature, max_tokens); used by the dataset builders' sampling."""
        self.config = config
        self._params = dict(params) if params is not None else None
        self.model = str(config.model)
        self.url = str(config.base_url).rstrip("/") + "/chat/completions"
        self.api_key = os.environ.get(config.api_key_env) if config.api_key_env else None
        self.stats = BackendStats()
        self._lock = threading.Lock()
        self._stop = threading.Event()

    def params(self) -> dict[str, Any]:
        if self._params is not None:
            return dict(self._params)
        return {"temperature": self.config.temperature, "max_tokens": self.config.reply_tokens}

    def run(self, jobs: Sequence[tuple[int, Messages] | Job], on_done: OnDone) -> None:
        """Send all jobs; report each; raise the first fatal error after the rest settle.

        A job is ``(index, messages)`` or ``(index, messages, extra)``, ``extra`` being
        parameters for that request only (e.g. its sampling ``seed``)."""
        if not jobs:
            return
        self._stop.clear()  # a backend object may be reused after a failed run
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        timeout = httpx.Timeout(self.config.timeout)
        fatal: BackendError | None = None
        with (
            httpx.Client(headers=headers, timeout=timeout) as client,
            ThreadPoolExecutor(self.config.concurrency, thread_name_prefix="ice") as pool,
        ):
            futures: dict[Future, int] = {
                pool.submit(self._request, client, job[1], job[2] if len(job) > 2 else None): job[0]
                for job in jobs
            }
            try:
                for future in as_completed(futures):
                    try:
                        on_done(futures[future], future.result())
                    except RequestFailedError as exc:
                        self.stats.failed += 1  # counted here, in the one collecting thread
                        on_done(futures[future], exc)
                    except _Cancelled:
                        continue
                    except BackendError as exc:
                        fatal = fatal or exc
                        self._stop.set()
            except KeyboardInterrupt:  # stop retry loops and queued jobs, keep what is cached
                self._stop.set()
                pool.shutdown(wait=False, cancel_futures=True)
                raise
        if fatal is not None:
            raise fatal

    def _request(
        self, client: httpx.Client, messages: Messages, extra: dict[str, Any] | None = None
    ) -> Completion:
        """One chat completion with retries; raises _Cancelled once a fatal error was seen."""
        payload = {"model": self.model, "messages": messages, **self.params(), **(extra or {})}
        attempts = self.config.max_retries + 1
        for attempt in range(attempts):
            if self._stop.is_set():
                raise _Cancelled
            with self._lock:
                self.stats.requests += 1
                self.stats.retries += attempt > 0
            try:
                response = client.post(self.url, json=payload)
            except httpx.TimeoutException as exc:
                problem: Exception = exc
                delay = self._delay(attempt, None)
            except httpx.TransportError as exc:  # refused, reset, DNS...
                problem = exc
                delay = self._delay(attempt, None)
            else:
                if response.status_code == 200:
                    return self._completion(response)
                if response.status_code < 500 and response.status_code not in RETRY_STATUSES:
                    raise self._http_error(response)
                problem = RequestFailedError(f"HTTP {response.status_code}: {_detail(response)}")
                delay = self._delay(attempt, response.headers.get("retry-after"))
            if attempt + 1 < attempts and self._stop.wait(delay):
                raise _Cancelled
        raise self._final_error(problem)

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        cap = self.config.max_backoff
        if retry_after is not None:
            try:
                return min(cap, max(0.0, float(retry_after)))
            except ValueError:
                pass  # an HTTP date: fall back to exponential backoff
        return min(cap, self.config.backoff * 2**attempt)

    def _final_error(self, problem: Exception) -> Exception:
        tries = self.config.max_retries + 1
        if isinstance(problem, httpx.TimeoutException) and not isinstance(
            problem, httpx.ConnectTimeout
        ):
            return RequestFailedError(
                f"no reply within --timeout {self.config.timeout:g}s after {tries} tries"
            )
        if isinstance(problem, (httpx.ConnectError, httpx.ConnectTimeout)):
            return ServerUnreachableError(
                f"cannot reach {self.url} ({type(problem).__name__}: {problem}) after {tries} "
                f"tries: is the server running and --base-url right?"
            )
        return RequestFailedError(f"{problem} (after {tries} tries)")

    def _http_error(self, response: httpx.Response) -> Exception:
        """Map a non-retryable status to a fatal or a per-request error."""
        status, detail = response.status_code, _detail(response)
        if status in (401, 403):
            hint = (
                f"check ${self.config.api_key_env}"
                if self.api_key
                else f"no key was sent: set ${self.config.api_key_env} (or pass --api-key-env NAME)"
            )
            return AuthenticationError(
                f"{self.url} refused the API key (HTTP {status}: {detail}); {hint}"
            )
        lowered = detail.lower()
        if (
            status == 404
            or "model_not_found" in lowered
            or ("model" in lowered and ("not exist" in lowered or "not found" in lowered))
        ):
            if "model" in lowered:
                return ModelNotFoundError(
                    f"{self.config.base_url} does not serve model {self.model!r} ({detail}); "
                    f"pass one of the names listed by GET {str(self.config.base_url).rstrip('/')}/models"
                )
            return ModelNotFoundError(
                f"{self.url} not found (HTTP 404: {detail}); --base-url usually ends in /v1"
            )
        return RequestFailedError(f"HTTP {status}: {detail}")

    def _completion(self, response: httpx.Response) -> Completion:
        try:
            body = response.json()
            text = body["choices"][0]["message"].get("content") or ""
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise RequestFailedError(
                f"reply is not an OpenAI chat completion: {response.text[:200]!r}"
            ) from None
        usage = body.get("usage") or {}
        return Completion(
            text=str(text),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=int(usage.get("completion_tokens") or 0),
        )


def _detail(response: httpx.Response) -> str:
    """The server's own error message, short and on one line."""
    try:
        body: Any = response.json()
    except ValueError:
        body = response.text
    if isinstance(body, dict):
        error = body.get("error", body)
        body = error.get("message", error) if isinstance(error, dict) else error
        if isinstance(body, dict):
            body = body.get("detail", body)
    return " ".join(str(body).split())[:300] or response.reason_phrase
