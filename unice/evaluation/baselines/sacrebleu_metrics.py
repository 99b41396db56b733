"""Sentence-level BLEU and chrF from sacrebleu, rescaled from 0-100 to 0-1."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unice.evaluation.baselines.base import Baseline
from unice.evaluation.errors import BaselineUnavailable


class SacreBleu(Baseline):
    """BLEU (exponential smoothing, sacrebleu's sentence default) and chrF (character 6-grams).

    Args:
        tokenize: sacrebleu tokenizer for BLEU; ``13a`` splits punctuation, which suits code.
    """

    columns = ("BLEU", "chrF")

    def __init__(self, tokenize: str = "13a") -> None:
        self.tokenize = tokenize

    def check(self) -> None:
        try:
            import sacrebleu  # noqa: F401
        except ImportError as exc:
            raise BaselineUnavailable(
                f"sacrebleu is not installed ({exc}); pip install sacrebleu"
            ) from None

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
        from sacrebleu.metrics import BLEU, CHRF

        bleu = BLEU(tokenize=self.tokenize, effective_order=True)
        chrf = CHRF()
        pairs = list(zip(candidates, references, strict=True))
        return {
            "BLEU": [bleu.sentence_score(c, [r]).score / 100.0 for c, r in pairs],
            "chrF": [chrf.sentence_score(c, [r]).score / 100.0 for c, r in pairs],
        }

    def score_multi(
        self,
        candidates: Sequence[str],
        reference_sets: Sequence[Sequence[str]],
        sources: Sequence[str] | None = None,
    ) -> dict[str, list[float]]:
        """sacrebleu's own multi-reference sentence BLEU and chrF (n-gram counts clipped by the
        max over references), as Evtikhiev et al. score CoNaLa."""
        from sacrebleu.metrics import BLEU, CHRF

        bleu = BLEU(tokenize=self.tokenize, effective_order=True)
        chrf = CHRF()
        pairs = list(zip(candidates, reference_sets, strict=True))
        return {
            "BLEU": [bleu.sentence_score(c, list(r)).score / 100.0 for c, r in pairs],
            "chrF": [chrf.sentence_score(c, list(r)).score / 100.0 for c, r in pairs],
        }

    def describe(self) -> dict[str, Any]:
        return {"tokenize": self.tokenize, "smoothing": "exp", "chrf_char_order": 6}
