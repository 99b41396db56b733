"""Coder/reviewer likelihoods of a candidate under a frozen causal code LM: reference-free
baseline columns.

Why: a user reranking samples has no reference. Coder-Reviewer reranking (Zhang et al., ICML
2023) ranks them with a code LM alone: the *coder* score ``mean log p(g | NL)`` and the
*reviewer* score ``mean log p(NL | g)`` (each the mean over the continuation's tokens, so long
programs are not punished for length), the reference-free baseline a learned metric should
beat (``scripts/likelihood_scores.py``, ``LIKELIHOODS=1 make quality``). As head inputs of
CodeScore they were issue 27's arm M, not adopted and retired (the last commit with that
switch: ``unice.retired.LIKELIHOOD_FEATURES_AT``).

A forward of SmolLM2-135M over a 150-token text costs ~0.5 s on one CPU core in fp32, so the
LM's linear layers run in int8 (``torch``'s dynamic quantisation: ~0.19 s, 2.9x faster; the
offline GGUF it comes from is 4-bit anyway), and each distinct ``(generated, NL, language)`` is
scored once per LM and kept in a SQLite file under the UniCE cache (``likelihoods/``).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import torch

from unice.data.languages import DEFAULT_LANGUAGE
from unice.data.score_store import PairScoreStore
from unice.data.score_store import store_path as shared_store_path

PROMPT_VERSION = 1
"""Bumped whenever :func:`coder_pair` / :func:`reviewer_pair` change, so cached scores of an
older prompt are never read for a new one."""

REVIEWER_CUE = "The code above does what this says:"


def comment_marker(language: str) -> str:
    """The line-comment marker of ``language``: ``#`` in Python, ``//`` in the C family, Go,
    Rust and JavaScript."""
    return "#" if language == DEFAULT_LANGUAGE else "//"


def comment_block(text: str, language: str) -> str:
    """``text`` as line comments of ``language``: a form every code LM has seen before and
    after code."""
    marker = comment_marker(language)
    lines = text.strip().splitlines() or [""]
    return "".join(f"{marker} {line}".rstrip() + "\n" for line in lines)


def coder_pair(generated: str, nl: str, language: str) -> tuple[str, str]:
    """``(context, continuation)`` of the coder score: the task as a comment, then the code."""
    return comment_block(nl, language), generated.strip("\n") + "\n"


def reviewer_pair(generated: str, nl: str, language: str) -> tuple[str, str]:
    """``(context, continuation)`` of the reviewer score: the code, a cue, then the task as a
    comment (its comment markers cost every candidate of a problem the same)."""
    context = f"{generated.strip(chr(10))}\n\n{comment_marker(language)} {REVIEWER_CUE}\n"
    return context, comment_block(nl, language)


def cache_key(namespace: str, generated: str, nl: str, language: str) -> str:
    """The store's key of one scored triple under one LM and prompt version."""
    digest = hashlib.sha1()
    for part in (namespace, language, generated, nl):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


class LikelihoodStore(PairScoreStore):
    """Coder and reviewer scores already computed (``None``: in memory only); arm M's three
    seeds read what the first one wrote."""

    def __init__(self, path: str | Path | None):
        super().__init__(path, ("coder", "reviewer"))


class LikelihoodScorer:
    """Coder and reviewer scores of candidates under one frozen causal LM.

    Args:
        model: a ``transformers`` causal LM (eval mode; never trained here).
        tokenizer: its tokenizer.
        max_length: the context and the continuation are each cut to this many tokens (the
            context keeps its end, next to the continuation; the continuation its start).
        store: where scores are kept between runs.
        namespace: what identifies the LM in the store's keys (its weights digest and how
            it runs).
    """

    def __init__(self, model, tokenizer, max_length: int, store: LikelihoodStore, namespace: str):
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.max_length = int(max_length)
        self.store = store
        self.namespace = f"{namespace}-{self.max_length}-v{PROMPT_VERSION}"
        self.scored = 0
        self.seconds = 0.0

    @classmethod
    def open(cls, name: str, max_length: int, cache: str | None = "auto") -> LikelihoodScorer:
        """The scorer of backbone ``name`` (``smollm2``, a folder, or a hub name), its store in
        the UniCE cache (``cache="auto"``), a given file, or memory (``None``/``"none"``)."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        from unice.backbones import resolve_backbone
        from unice.modeling.feature_cache import weights_digest

        path = resolve_backbone(name)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32).eval()
        tokenizer = AutoTokenizer.from_pretrained(path)
        namespace = f"{weights_digest(model)}-int8"
        model = int8_linears(model)
        return cls(
            model, tokenizer, max_length, LikelihoodStore(store_path(cache, namespace)), namespace
        )

    def mean_logp(self, context: str, continuation: str) -> float:
        """Mean log-probability of the continuation's tokens (and an end-of-text token, so
        an empty continuation still has one) given the context."""
        tok = self.tokenizer
        start = [tok.bos_token_id] if tok.bos_token_id is not None else []
        ctx = tok(context, add_special_tokens=False)["input_ids"][-self.max_length :]
        cont = tok(continuation, add_special_tokens=False)["input_ids"][: self.max_length]
        if tok.eos_token_id is not None:
            cont = [*cont, tok.eos_token_id]
        prefix = start + ctx
        if not prefix:  # the first token needs something to be predicted from
            prefix, cont = cont[:1], cont[1:]
        ids = torch.tensor([prefix + cont])
        with torch.no_grad():
            logits = self.model(input_ids=ids).logits[0].float()
        predicted = torch.log_softmax(logits[len(prefix) - 1 : -1], dim=-1)
        targets = torch.tensor(cont).unsqueeze(-1)
        return float(predicted.gather(-1, targets).mean())

    def scores(
        self, generated: str, nl: str, language: str = DEFAULT_LANGUAGE
    ) -> tuple[float, float]:
        """``(coder, reviewer)`` of one candidate, computed once per distinct triple."""
        key = cache_key(self.namespace, generated, nl, language)
        found = self.store.get(key)
        if found is None:
            started = time.perf_counter()
            coder = self.mean_logp(*coder_pair(generated, nl, language))
            reviewer = self.mean_logp(*reviewer_pair(generated, nl, language))
            self.seconds += time.perf_counter() - started
            self.scored += 1
            self.store.put(key, coder, reviewer)
            found = (coder, reviewer)
        return found

    def prefill(
        self,
        triples: Iterable[tuple[str, str, str]],
        progress: bool = True,
        say: Callable[[str], None] = print,
    ) -> dict[str, float]:
        """Score every distinct ``(generated, nl, language)`` not yet in the store, with a
        progress bar (so the one-time cost is reported, and later runs read the store)."""
        from tqdm.auto import tqdm

        todo = list(dict.fromkeys((g, n, lang) for g, n, lang in triples if n))
        before, seconds = self.scored, self.seconds
        for generated, nl, language in tqdm(
            todo, desc="coder/reviewer likelihoods (once)", unit="program", disable=not progress
        ):
            self.scores(generated, nl, language)
        report = {
            "scored": self.scored - before,
            "from_cache": len(todo) - (self.scored - before),
            "seconds": round(self.seconds - seconds, 1),
        }
        say(
            f"likelihoods: {report['scored']} programs scored in {report['seconds']} s, "
            f"{report['from_cache']} read from the cache ({self.store.path or 'memory only'})"
        )
        return report


def int8_linears(model: torch.nn.Module) -> torch.nn.Module:
    """``model`` with its linear layers in int8 (dynamic quantisation, CPU): the scores are
    computed where this project runs, on CPU cores, ~2.9x faster than fp32 for SmolLM2-135M."""
    import warnings

    with warnings.catch_warnings():  # the eager API's deprecation notice, not a problem here
        warnings.simplefilter("ignore")
        return torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)


def store_path(cache: str | None, namespace: str) -> Path | None:
    """The SQLite file of one LM's scores (``auto``: the UniCE cache's ``likelihoods``)."""
    return shared_store_path(cache, "likelihoods", namespace)
