"""Candidates from OpenAI-compatible servers: ``--generate openai:<base_url>[,<base_url>...]:<model>``.

Why a server: sampling 30 programs for each of 5,000 APPS problems is a job for a serving
engine (vLLM, llama.cpp's server, Ollama, TGI, or a hosted API), and they all speak OpenAI's
chat-completions API. Requests go through the shared client
(:class:`data_builders.openai_client.OpenAIClient`, also ICE-Score's judge: concurrency, retries
with backoff on 429/5xx, one-line errors for a dead server, a bad key or an unknown model), and
every reply is stored in a reply cache (``$UNICE_CACHE_DIR/generate``, keyed by model,
messages and sampling parameters, never the URL) the moment it arrives, so a killed or failed
run resumes without asking again, whichever endpoints it is given the second time.

Several comma-separated base URLs are replicas of one model (e.g. N vLLM servers):
``generation.concurrency`` requests are in flight in total, each on the replica with the fewest;
a replica that stops answering is dropped with a one-line warning and its requests go to the
others; when none is left the build stops with a one-line error (rerun to resume).

Each sample is its own request with its own ``seed`` (derived from the build seed, the task
and the sample index), which every engine above accepts, rather than ``n`` choices in one
request, which some do not support.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from data_builders.cache import cache_dir
from data_builders.candidates.base import Candidate
from data_builders.candidates.generate import SamplingSettings, replies_to_candidates
from data_builders.candidates.prompts import chat_messages
from data_builders.errors import UserError
from data_builders.problems.base import Problem

PREFIX = "openai:"
_URL = r"https?://[^/\s,]+/[^:\s,]*"
_SPEC = re.compile(rf"^openai:({_URL}(?:,{_URL})*):(\S+)$")
CACHE_BACKEND = "openai-generate"


def is_served(generate: str | None) -> bool:
    return bool(generate) and str(generate).startswith(PREFIX)


def parse_endpoints(spec: str) -> tuple[tuple[str, ...], str]:
    """``openai:http://a:8000/v1,http://b:8001/v1:model`` -> ((base URLs), model). Each URL must
    include its path (``/v1``), so a model name may itself contain colons (Ollama's
    ``qwen2.5-coder:1.5b``); URLs are separated by commas, without spaces."""
    match = _SPEC.match(spec.strip())
    if not match:
        raise UserError(
            f"--generate {spec!r}: expected openai:<base_url>:<model> (or several base URLs "
            "joined by commas: openai:<url1>,<url2>:<model>) with each URL's path, "
            "e.g. openai:http://localhost:8000/v1:Qwen/Qwen2.5-Coder-1.5B-Instruct"
        )
    urls = tuple(url.rstrip("/") for url in match.group(1).split(","))
    return urls, match.group(2)


def parse_spec(spec: str) -> tuple[str, str]:
    """``openai:http://host:8000/v1:model`` -> (base URL, model); with several endpoints the
    first element is their comma-joined list (see :func:`parse_endpoints`)."""
    urls, model = parse_endpoints(spec)
    return ",".join(urls), model


def data_identity(generate: str) -> str:
    """What a ``--generate`` value means for the data, for a build's manifest and provenance: a
    served spec without its URLs (``openai:<model>``), since the endpoints say where the model is
    asked, not what it answers (the reply cache reasons the same way); other values unchanged.
    So a stopped build resumes with other replicas, and shards built against different servers
    merge."""
    if not is_served(generate):
        return generate
    return PREFIX + parse_endpoints(generate)[1]


def _params(settings: SamplingSettings) -> dict[str, Any]:
    params: dict[str, Any] = {
        "temperature": settings.temperature,
        "max_tokens": settings.max_new_tokens,
    }
    if settings.temperature > 0:
        params["top_p"] = settings.top_p
    if settings.chat_stop:
        params["stop"] = list(settings.chat_stop)[:4]  # OpenAI accepts at most 4
    return params


def served_candidates(
    problems: Sequence[Problem],
    spec: str,
    settings: SamplingSettings,
    cache_root: Path | None = None,
    progress: bool = True,
) -> Iterator[Candidate]:
    """Yield up to ``settings.n`` candidates per problem, in problem and sample order.

    A request that fails for good (after the client's retries) leaves its candidate out, with
    one warning at the end; rerunning the build asks for exactly those again. A server that
    cannot be used at all (unreachable, key refused, model not served) raises UserError.
    """
    from data_builders.openai_client import (
        BackendError,
        ClientError,
        ClientSettings,
        OpenAIClient,
        ReplyCache,
        RequestFailedError,
        request_key,
    )

    base_urls, model = parse_endpoints(spec)
    try:
        client_settings = ClientSettings(
            base_urls=base_urls,
            model=model,
            concurrency=settings.concurrency,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
        )
    except ClientError as exc:
        raise UserError(f"--generate {spec!r}: {exc}") from None
    params = _params(settings)
    client = OpenAIClient(client_settings, params=params)
    cache = ReplyCache(cache_root or cache_dir("generate"))
    slots: list[tuple[Problem, int, str]] = []  # (problem, sample index, cache key)
    replies: dict[int, str] = {}
    jobs = []
    for problem in problems:
        messages = chat_messages(settings.instruction, problem, settings.system)
        for index in range(settings.n):
            extra = {"seed": settings.sample_seed(problem.task_id, index)}
            key = request_key(CACHE_BACKEND, model, messages, {**params, **extra})
            cached = cache.get(key)
            if cached is not None:
                replies[len(slots)] = str(cached["reply"])
            else:
                jobs.append((len(slots), messages, extra))
            slots.append((problem, index, key))
    failures: list[str] = []
    where = f", {len(base_urls)} endpoints" if len(base_urls) > 1 else ""
    bar = tqdm(total=len(jobs), desc=f"generate ({model}{where})", unit="req", disable=not progress)

    def on_done(slot: int, result: Any) -> None:
        bar.update(1)
        if isinstance(result, RequestFailedError):
            failures.append(str(result))
            return
        replies[slot] = result.text
        cache.put(
            slots[slot][2],
            {
                "reply": result.text,
                "prompt_tokens": result.prompt_tokens,
                "completion_tokens": result.completion_tokens,
            },
        )

    try:
        client.run(jobs, on_done)
    except BackendError as exc:
        raise UserError(f"--generate {spec!r}: {exc}") from None
    finally:
        bar.close()
    source = f"generate:openai:{model}"
    yield from replies_to_candidates(
        slots, replies, failures, source, settings, "generation requests"
    )
