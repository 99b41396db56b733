"""Score records with an LLM judge: prompts -> cache -> backend -> parser -> scores.

Identical prompts are asked once; every reply is cached the moment it arrives; failures are
recorded per record (``missing``), never turned into a score.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from tqdm.auto import tqdm

from unice.ice_score.backends import Backend, Completion, Messages, make_backend
from unice.ice_score.cache import ReplyCache, request_key
from unice.ice_score.config import IceScoreConfig
from unice.ice_score.errors import BackendError, IceScoreInputError, RequestFailedError
from unice.ice_score.parsing import PAPER_FALLBACKS, parse_reply
from unice.ice_score.templates import PromptInput, build_prompt, load_template

MISSING = "missing"


@dataclass
class IceScoreStats:
    """What a run cost and how complete it is."""

    records: int = 0
    unique_prompts: int = 0
    requests: int = 0
    retries: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    scored: int = 0
    unparsed: int = 0
    missing: int = 0
    paper_fallbacks: int = 0  # paper parser only: scores that are Listing 1's 0/1 defaults

    @property
    def tokens(self) -> int:
        """Prompt plus completion tokens spent in this run (cache hits cost none)."""
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tokens": self.tokens}

    def summary(self) -> str:
        """One line for stderr."""
        fallbacks = f", paper fallbacks {self.paper_fallbacks}" if self.paper_fallbacks else ""
        return (
            f"scored {self.scored}/{self.records} (unparsed {self.unparsed}, missing "
            f"{self.missing}{fallbacks}); {self.requests} requests ({self.retries} retries), "
            f"{self.cache_hits} cache hits, {self.prompt_tokens}+{self.completion_tokens} "
            f"tokens, {self.seconds:.1f}s"
        )


@dataclass
class IceScoreRun:
    """Per-record results, aligned with the input records.

    Attributes:
        scores: 0-4 floats, ``None`` when unparsed or missing.
        replies: the judge's raw replies (``None`` when missing).
        statuses: parser status (see :class:`~unice.ice_score.parsing.ParseResult`) or
            ``"missing"``.
        errors: why a record is missing (``None`` otherwise).
        error: the fatal error that stopped the run early, if any.
    """

    config: IceScoreConfig
    scores: list[float | None] = field(default_factory=list)
    replies: list[str | None] = field(default_factory=list)
    statuses: list[str] = field(default_factory=list)
    errors: list[str | None] = field(default_factory=list)
    stats: IceScoreStats = field(default_factory=IceScoreStats)
    error: str | None = None

    def annotate(self, records: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """Copies of ``records`` with ``ice_score``, ``ice_score_reply``, ``..._parser``, ``..._status``."""
        rows = []
        for i, record in enumerate(records):
            row = dict(record)
            row["ice_score"] = self.scores[i]
            row["ice_score_reply"] = self.replies[i]
            row["ice_score_parser"] = self.config.parser
            row["ice_score_status"] = self.statuses[i]
            if self.errors[i]:
                row["ice_score_error"] = self.errors[i]
            rows.append(row)
        return rows


def build_messages(records: Sequence[Mapping[str, Any]], config: IceScoreConfig) -> list[Messages]:
    """One single-message chat per record; raises IceScoreInputError on a missing field."""
    template = load_template(config.template)
    chats = []
    for i, record in enumerate(records):
        prompt = build_prompt(
            template,
            _prompt_input(record, i, config),
            config.aspect,
            config.with_reference,
            config.cot,
        )
        chats.append([{"role": config.message_role, "content": prompt}])
    return chats


def _prompt_input(record: Mapping[str, Any], i: int, config: IceScoreConfig) -> PromptInput:
    where = f"record {i + 1}" + (f" (id {record['id']!r})" if "id" in record else "")
    code = record.get("generated", record.get("completion"))
    if not isinstance(code, str):
        raise IceScoreInputError(f"{where} has no 'generated' (or 'completion') code string")
    problem = record.get("nl")
    if not isinstance(problem, str) or not problem.strip():
        raise IceScoreInputError(
            f"{where} has no problem text in 'nl'; ICE-Score judges code against its problem "
            "(datasets from `python -m data_builders build` carry it)"
        )
    reference = record.get("reference")
    if config.with_reference and (not isinstance(reference, str) or not reference.strip()):
        raise IceScoreInputError(
            f"{where} has no 'reference' code, which --with-reference needs; drop the flag or "
            "add references"
        )
    language = record.get("language")  # HE-Eval-X rows: the prompt names the language
    language = language if isinstance(language, str) and language.strip() else None
    return PromptInput(problem=problem, code=code, reference=reference, language=language)


class _Collector:
    """Routes replies to every record sharing a prompt, and caches each reply on arrival."""

    def __init__(
        self, run: IceScoreRun, keys: list[str], cache: ReplyCache | None, backend: Backend
    ) -> None:
        self.run, self.keys, self.cache, self.backend = run, keys, cache, backend
        self.by_key: dict[str, list[int]] = {}
        for i, key in enumerate(keys):
            self.by_key.setdefault(key, []).append(i)
        self.bar: Any = None

    def jobs_not_cached(self, chats: list[Messages]) -> list[tuple[int, Messages]]:
        """Fill replies from the cache; return one job per prompt still to ask."""
        jobs = []
        for key, indices in self.by_key.items():
            entry = self.cache.get(key) if self.cache is not None else None
            if entry is None:
                jobs.append((indices[0], chats[indices[0]]))
                continue
            self.run.stats.cache_hits += 1
            for i in indices:
                self.run.replies[i] = str(entry["reply"])
        return jobs

    def __call__(self, index: int, result: Completion | RequestFailedError) -> None:
        if self.bar is not None:
            self.bar.update(1)
        key = self.keys[index]
        if isinstance(result, RequestFailedError):
            for i in self.by_key[key]:
                self.run.errors[i] = str(result)
            return
        self.run.stats.prompt_tokens += result.prompt_tokens
        self.run.stats.completion_tokens += result.completion_tokens
        for i in self.by_key[key]:
            self.run.replies[i] = result.text
        if self.cache is not None:
            self.cache.put(
                key,
                {
                    "reply": result.text,
                    "backend": self.backend.name,
                    "model": self.backend.model,
                    "prompt_tokens": result.prompt_tokens,
                    "completion_tokens": result.completion_tokens,
                    "created": time.time(),
                },
            )


def score_records(
    records: Sequence[Mapping[str, Any]],
    config: IceScoreConfig,
    *,
    backend: Backend | None = None,
    raise_on_error: bool = True,
) -> IceScoreRun:
    """Judge every record; see the module docstring.

    Args:
        records: dicts with ``nl``, ``generated`` (or ``completion``), optional ``reference``.
        config: which judge, aspect, prompt variant and parser.
        backend: an already built backend (tests, notebooks); default from ``config``.
        raise_on_error: re-raise a fatal :class:`BackendError` (with ``.run`` holding the
            partial results) instead of returning the partial run with ``run.error`` set.

    Returns:
        An :class:`IceScoreRun` aligned with ``records``.
    """
    started = time.perf_counter()
    chats = build_messages(records, config)
    backend = backend or make_backend(config)
    cache = ReplyCache(config.cache_path) if config.cache_path else None
    keys = [request_key(backend.name, backend.model, chat, backend.params()) for chat in chats]
    run = IceScoreRun(config=config, replies=[None] * len(records), errors=[None] * len(records))
    collect = _Collector(run, keys, cache, backend)
    run.stats.records, run.stats.unique_prompts = len(records), len(collect.by_key)
    jobs = collect.jobs_not_cached(chats)
    already = (backend.stats.requests, backend.stats.retries)  # a reused backend keeps counting
    fatal: BackendError | None = None
    with tqdm(
        total=len(jobs),
        desc=f"ICE-Score {config.model}",
        unit="req",
        disable=not config.progress or not jobs,
    ) as collect.bar:
        try:
            backend.run(jobs, collect)
        except BackendError as exc:
            fatal = exc
    _finish(run, started)
    run.stats.requests = backend.stats.requests - already[0]
    run.stats.retries = backend.stats.retries - already[1]
    if fatal is None:
        return run
    run.error = f"{fatal}; {run.stats.missing} of {run.stats.records} records missing"
    if cache is not None:
        run.error += f" (finished replies are cached in {config.cache_path}: rerun to resume)"
    if not raise_on_error:
        return run
    error = type(fatal)(run.error)
    error.run = run
    raise error from None


def _finish(run: IceScoreRun, started: float) -> None:
    """Parse replies, mark missing ones, and fill in the stats."""
    stats = run.stats
    for i, reply in enumerate(run.replies):
        if reply is None:
            run.scores.append(None)
            run.statuses.append(MISSING)
            run.errors[i] = run.errors[i] or "not scored: the run stopped before this request"
            stats.missing += 1
            continue
        parsed = parse_reply(reply, run.config.aspect, run.config.parser)
        run.scores.append(parsed.score)
        run.statuses.append(parsed.status)
        if parsed.score is None:
            stats.unparsed += 1
        else:
            stats.scored += 1
        stats.paper_fallbacks += parsed.status in PAPER_FALLBACKS
    stats.seconds = time.perf_counter() - started
