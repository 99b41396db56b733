"""What every baseline implements, and the runner that times them and records skips.

Why a runner: a baseline whose resource is missing (WordNet, a tree-sitter grammar, an encoder
that is not on disk) must show up in the report as *skipped, because ...* — a column of zeros
would look like a terrible metric instead of a missing one. Each baseline's wall time is measured
around its own work (model loading included) for the report's time column.
"""

from __future__ import annotations

import math
import re
import textwrap
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from unice.evaluation.errors import BaselineUnavailable

_TOKEN = re.compile(r"\w+|[^\w\s]")


def code_tokens(code: str) -> list[str]:
    """Identifier/number runs and single punctuation characters (whitespace dropped).

    Used by the token-level baselines (METEOR, CrystalBLEU, exact match is on text) so that
    ``f(x)+1`` gives ``f ( x ) + 1`` rather than one "word" as whitespace splitting would.
    """
    return _TOKEN.findall(code)


def strip_shared_prefix(candidate: str, reference: str) -> tuple[str, str]:
    """Drop the leading lines candidate and reference share (the prompt: signature + docstring).

    HumanEval-style rows hold complete programs, i.e. prompt + completion on both sides; the
    shared prompt would dominate every overlap metric and hide the part that differs. When
    either side has nothing left (identical programs, empty completion) both stay whole.
    Other rows (MBPP, APPS: no shared prompt) are unaffected beyond identical first lines.
    """
    cand_lines = candidate.splitlines(keepends=True)
    ref_lines = reference.splitlines(keepends=True)
    n = 0
    while (
        n < min(len(cand_lines), len(ref_lines)) and cand_lines[n].rstrip() == ref_lines[n].rstrip()
    ):
        n += 1
    cand_rest, ref_rest = "".join(cand_lines[n:]), "".join(ref_lines[n:])
    if not cand_rest.strip() or not ref_rest.strip():
        return candidate, reference
    # Dedented, a function body parses as top-level code (CodeBLEU's AST and data flow).
    return textwrap.dedent(cand_rest), textwrap.dedent(ref_rest)


class Baseline(ABC):
    """A reference-based metric computed on (candidate, reference) pairs.

    Attributes:
        columns: names of the score columns it produces (e.g. ``("BLEU", "chrF")``), each on a
            0-1 scale so that MAE and plots are comparable with CodeScore.
    """

    columns: tuple[str, ...] = ()

    def check(self) -> None:
        """Raise :class:`BaselineUnavailable` with the reason when a resource is missing."""
        return None

    @abstractmethod
    def score(self, candidates: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
        """Scores of each pair, one list per column, each of length ``len(candidates)``."""

    def score_multi(
        self,
        candidates: Sequence[str],
        reference_sets: Sequence[Sequence[str]],
        sources: Sequence[str] | None = None,
    ) -> dict[str, list[float]]:
        """Scores against several references per candidate: by default the best single-reference
        score (max over references, as Evtikhiev et al. score CoNaLa's ROUGE-L, METEOR and
        CodeBLEU); metrics with a multi-reference definition of their own (BLEU, chrF)
        override it. ``sources`` (the NL task of each candidate) is for metrics that can use it
        as context (CodeBERTScore); others ignore it."""
        flat_c, flat_r, owner = [], [], []
        for index, (candidate, refs) in enumerate(zip(candidates, reference_sets, strict=True)):
            for ref in refs:
                flat_c.append(candidate)
                flat_r.append(ref)
                owner.append(index)
        flat = self.score(flat_c, flat_r)
        out: dict[str, list[float]] = {}
        for column, values in flat.items():
            best = [-math.inf] * len(candidates)
            for index, value in zip(owner, values, strict=True):
                best[index] = max(best[index], float(value))
            out[column] = [math.nan if v == -math.inf else v for v in best]
        return out

    def describe(self) -> dict[str, Any]:
        """Settings worth recording in the report (model names, n-gram choices...)."""
        return {}


@dataclass
class BaselineRun:
    """Outcome of one baseline on one split.

    Attributes:
        name: the baseline's config key.
        columns: column name -> scores of shape ``(n,)``; ``nan`` where a sample has no reference.
        seconds: wall time of the baseline (``None`` when skipped).
        skipped: the reason it was not computed, or ``None``.
        settings: what :meth:`Baseline.describe` reported.
    """

    name: str
    columns: dict[str, np.ndarray] = field(default_factory=dict)
    seconds: float | None = None
    skipped: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)


def run_baseline(
    name: str,
    baseline: Baseline,
    candidates: Sequence[str],
    references: Sequence[str],
    strip_prompt: bool = False,
    reference_sets: Sequence[Sequence[str]] | None = None,
    sources: Sequence[str] | None = None,
) -> BaselineRun:
    """Score the pairs that have a reference; record a skip instead of failing the evaluation.

    Args:
        strip_prompt: compare only what follows the lines both programs start with
            (:func:`strip_shared_prefix`).
        reference_sets: every reference of each candidate; when some candidate has more than
            one, :meth:`Baseline.score_multi` scores against all of them (``references`` then
            only decides which rows have one).
        sources: the NL task of each candidate, for :meth:`Baseline.score_multi`.
    """
    start = time.perf_counter()
    try:
        baseline.check()
        index = [i for i, ref in enumerate(references) if ref.strip()]
        if not index:
            raise BaselineUnavailable("no sample has a reference (reference-based metric)")
        multi = reference_sets is not None and (
            any(len(reference_sets[i]) > 1 for i in index) or sources is not None
        )
        if multi:
            scores = baseline.score_multi(
                [candidates[i] for i in index],
                [list(reference_sets[i]) or [references[i]] for i in index],
                [sources[i] for i in index] if sources is not None else None,
            )
        else:
            pairs = [(candidates[i], references[i]) for i in index]
            if strip_prompt:
                pairs = [strip_shared_prefix(c, r) for c, r in pairs]
            scores = baseline.score([c for c, _ in pairs], [r for _, r in pairs])
    except BaselineUnavailable as exc:
        return BaselineRun(name=name, skipped=str(exc), settings=baseline.describe())
    seconds = time.perf_counter() - start
    columns = {}
    for column, values in scores.items():
        full = np.full(len(candidates), math.nan)
        full[index] = np.asarray(values, dtype=np.float64)
        columns[column] = full
    settings = {**baseline.describe(), "strip_prompt": strip_prompt}
    if reference_sets is not None and multi:
        settings["references"] = "all (score_multi)"
    return BaselineRun(name=name, columns=columns, seconds=seconds, settings=settings)
