"""OpenAI-compatible chat completions over HTTP (OpenAI, vLLM, llama.cpp, Ollama, TGI...).

Why hand-rolled on ``httpx`` instead of the ``openai`` SDK: one fewer dependency, and exact
control over what counts as fatal (dead server, bad key, unknown model: stop at once with a
one-line error) versus transient (429/5xx/timeouts: retry with exponential backoff, honouring
``Retry-After``), which is what makes long runs safe to leave unattended.

One client, two users: ICE-Score's judge (:mod:`unice.ice_score.backends.openai_http` wraps it)
and the dataset builders' ``--generate openai:URL[,URL...]:MODEL`` (which pass their sampling
parameters as ``params`` and a per-request ``seed`` as a job's third element).

Several endpoints (replicas of one model, e.g. N vLLM servers): ``concurrency`` is the total
number of requests in flight, each sent to the live endpoint with the fewest in flight (ties
rotate). An endpoint that refuses connections is dropped for the rest of the run with a one-line
warning and the request goes at once to another one; when only one is left it is retried with
backoff like a single server, and if it cannot be reached either the run stops with one
:class:`ServerUnreachableError`. Other failures (timeouts, 5xx, a dropped connection) are
retried with backoff, each try picking an endpoint afresh.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Any

import httpx

from data_builders.openai_client.errors import (
    AuthenticationError,
    BackendError,
    ClientConfigError,
    ModelNotFoundError,
    RequestFailedError,
    ServerUnreachableError,
)
from data_builders.openai_client.records import BackendStats, Completion, Messages, OnDone

RETRY_STATUSES = frozenset({408, 409, 425, 429})  # plus every 5xx
CHAT_PATH = "/chat/completions"
Job = tuple[int, Messages, dict[str, Any]]


@dataclass
class ClientSettings:
    """Where to send requests and how hard to try.

    Attributes:
        base_urls: server roots with their path, e.g. ``("http://localhost:8000/v1",)``; several
            are replicas of the same model (a plain string is one endpoint).
        model: the served model name sent with every request.
        concurrency: requests in flight at once, in total over all endpoints.
        timeout: seconds per HTTP request.
        max_retries: extra attempts after a 429/5xx/connection error/timeout.
        backoff: first retry delay in seconds; doubles each retry (capped at ``max_backoff``).
        max_backoff: longest wait between two attempts, also the cap on ``Retry-After``.
        api_key_env: environment variable holding the API key (unset or ``None``: no key sent).
    """

    base_urls: tuple[str, ...] | str
    model: str
    concurrency: int = 8
    timeout: float = 60.0
    max_retries: int = 4
    backoff: float = 1.0
    max_backoff: float = 30.0
    api_key_env: str | None = "OPENAI_API_KEY"

    def __post_init__(self) -> None:
        urls = (self.base_urls,) if isinstance(self.base_urls, str) else tuple(self.base_urls)
        if not urls or not all(isinstance(url, str) and url.strip() for url in urls):
            raise ClientConfigError(
                "no server URL given: pass a base URL such as http://localhost:8000/v1"
            )
        stripped = [url.strip().rstrip("/") for url in urls]
        twice = sorted({url for url in stripped if stripped.count(url) > 1})
        if twice:
            raise ClientConfigError(
                f"server URL {twice[0]} is listed twice; list each endpoint once"
            )
        self.base_urls = tuple(url.strip() for url in urls)
        if not self.model:
            raise ClientConfigError("no model name given: pass the name the server serves")
        if self.concurrency < 1:
            raise ClientConfigError(f"concurrency must be >= 1, got {self.concurrency}")
        for name in ("timeout", "backoff", "max_backoff"):
            if getattr(self, name) < 0:
                raise ClientConfigError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.max_retries < 0:
            raise ClientConfigError(f"max_retries must be >= 0, got {self.max_retries}")


class _Cancelled(Exception):
    """A job not sent because another one hit a fatal error."""


class OpenAIClient:
    """Sends each job as one chat-completions request, ``concurrency`` requests at a time."""

    name = "openai"

    def __init__(self, settings: ClientSettings, params: dict[str, Any] | None = None) -> None:
        """``params``: generation parameters sent with every request (temperature,
        max_tokens...); they are also what callers put in the cache key."""
        self.settings = settings
        self._params = dict(params) if params is not None else None
        self.model = str(settings.model)
        self.urls = [str(url).rstrip("/") + CHAT_PATH for url in settings.base_urls]
        self._bases = dict(zip(self.urls, settings.base_urls, strict=True))
        key_env = settings.api_key_env
        self.api_key = os.environ.get(key_env) if key_env else None
        self.stats = BackendStats()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._dead: set[str] = set()
        self._in_flight: Counter[str] = Counter()
        self._turn = 0

    @property
    def url(self) -> str:
        """The chat-completions URL of the first endpoint (the only one for a single server)."""
        return self.urls[0]

    @url.setter
    def url(self, value: str) -> None:
        self.urls = [value]

    def params(self) -> dict[str, Any]:
        return dict(self._params or {})

    def run(self, jobs: Sequence[tuple[int, Messages] | Job], on_done: OnDone) -> None:
        """Send all jobs; report each; raise the first fatal error after the rest settle.

        A job is ``(index, messages)`` or ``(index, messages, extra)``, ``extra`` being
        parameters for that request only (e.g. its sampling ``seed``)."""
        if not jobs:
            return
        self._stop.clear()  # a client object may be reused after a failed run
        with self._lock:  # ... and every endpoint gets a fresh chance
            self._dead.clear()
            self._in_flight.clear()
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        timeout = httpx.Timeout(self.settings.timeout)
        fatal: BackendError | None = None
        with (
            httpx.Client(headers=headers, timeout=timeout, limits=self.limits()) as client,
            ThreadPoolExecutor(self.settings.concurrency, thread_name_prefix="openai") as pool,
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

    def limits(self) -> httpx.Limits:
        """httpx's pool (100 connections, 20 kept alive by default), raised to ``concurrency``
        so ``--concurrency 256`` over many replicas really has 256 requests in flight."""
        concurrency = self.settings.concurrency
        return httpx.Limits(
            max_connections=max(100, concurrency), max_keepalive_connections=max(20, concurrency)
        )

    def _request(
        self, client: httpx.Client, messages: Messages, extra: dict[str, Any] | None = None
    ) -> Completion:
        """One chat completion with retries; raises _Cancelled once a fatal error was seen.

        Bounded: each pass of the loop either uses one of the ``max_retries + 1`` attempts or
        retires an endpoint that refused the connection (at most ``len(urls) - 1`` of those)."""
        payload = {"model": self.model, "messages": messages, **self.params(), **(extra or {})}
        attempts = self.settings.max_retries + 1
        attempt = tries = 0
        while True:
            if self._stop.is_set():
                raise _Cancelled
            url = self._acquire()
            with self._lock:
                self.stats.requests += 1
                self.stats.retries += tries > 0
            tries += 1
            try:
                response = client.post(url, json=payload)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                if self._retire(url, exc):
                    continue  # another endpoint is alive: resend there at once
                problem: Exception = exc
                delay = self._delay(attempt, None)
            except httpx.TimeoutException as exc:
                problem = exc
                delay = self._delay(attempt, None)
            except httpx.TransportError as exc:  # reset, dropped mid-reply, DNS...
                problem = exc
                delay = self._delay(attempt, None)
            else:
                if response.status_code == 200:
                    return self._completion(response)
                if response.status_code < 500 and response.status_code not in RETRY_STATUSES:
                    raise self._http_error(url, response)
                problem = RequestFailedError(f"HTTP {response.status_code}: {_detail(response)}")
                delay = self._delay(attempt, response.headers.get("retry-after"))
            finally:
                self._release(url)
            attempt += 1
            if attempt >= attempts:
                raise self._final_error(url, problem)
            if self._stop.wait(delay):
                raise _Cancelled

    def _acquire(self) -> str:
        """The live endpoint with the fewest requests in flight (ties rotate), now one more."""
        with self._lock:
            alive = [url for url in self.urls if url not in self._dead] or list(self.urls)
            first = self._turn % len(alive)
            self._turn += 1
            url = min(alive[first:] + alive[:first], key=lambda u: self._in_flight[u])
            self._in_flight[url] += 1
            return url

    def _release(self, url: str) -> None:
        with self._lock:
            self._in_flight[url] -= 1

    def _retire(self, url: str, problem: Exception) -> bool:
        """Drop ``url`` after a refused connection unless it is the last live endpoint; say so
        once. True when the request should go to another endpoint now."""
        with self._lock:
            alive = [u for u in self.urls if u not in self._dead]
            if url not in alive:
                return bool(alive)  # another thread dropped it already
            if len(alive) == 1:
                return False  # the last one: retried with backoff, like a single server
            self._dead.add(url)
            left = len(alive) - 1
        print(
            f"warning: cannot reach {self._base(url)} ({type(problem).__name__}); its requests "
            f"go to the other {left} endpoint{'s' if left > 1 else ''} for the rest of this run",
            file=sys.stderr,
        )
        return True

    def _base(self, url: str) -> str:
        return self._bases.get(url, url.removesuffix(CHAT_PATH))

    def _delay(self, attempt: int, retry_after: str | None) -> float:
        cap = self.settings.max_backoff
        if retry_after is not None:
            try:
                return min(cap, max(0.0, float(retry_after)))
            except ValueError:
                pass  # an HTTP date: fall back to exponential backoff
        return min(cap, self.settings.backoff * 2**attempt)

    def _final_error(self, url: str, problem: Exception) -> Exception:
        tries = self.settings.max_retries + 1
        if isinstance(problem, httpx.TimeoutException) and not isinstance(
            problem, httpx.ConnectTimeout
        ):
            return RequestFailedError(
                f"no reply within --timeout {self.settings.timeout:g}s after {tries} tries"
            )
        if isinstance(problem, (httpx.ConnectError, httpx.ConnectTimeout)):
            if len(self.urls) > 1:
                return ServerUnreachableError(
                    f"cannot reach any of the {len(self.urls)} endpoints: {url} "
                    f"({type(problem).__name__}: {problem}) after {tries} tries, the others "
                    f"refused connections earlier: are the servers running and the URLs right?"
                )
            return ServerUnreachableError(
                f"cannot reach {url} ({type(problem).__name__}: {problem}) after {tries} "
                f"tries: is the server running and --base-url right?"
            )
        return RequestFailedError(f"{problem} (after {tries} tries)")

    def _http_error(self, url: str, response: httpx.Response) -> Exception:
        """Map a non-retryable status to a fatal or a per-request error."""
        status, detail = response.status_code, _detail(response)
        key_env = self.settings.api_key_env
        if status in (401, 403):
            hint = (
                f"check ${key_env}"
                if self.api_key
                else f"no key was sent: set ${key_env} (or pass --api-key-env NAME)"
            )
            return AuthenticationError(
                f"{url} refused the API key (HTTP {status}: {detail}); {hint}"
            )
        lowered = detail.lower()
        if (
            status == 404
            or "model_not_found" in lowered
            or ("model" in lowered and ("not exist" in lowered or "not found" in lowered))
        ):
            base = self._base(url)
            if "model" in lowered:
                return ModelNotFoundError(
                    f"{base} does not serve model {self.model!r} ({detail}); "
                    f"pass one of the names listed by GET {base.rstrip('/')}/models"
                )
            return ModelNotFoundError(
                f"{url} not found (HTTP 404: {detail}); --base-url usually ends in /v1"
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
