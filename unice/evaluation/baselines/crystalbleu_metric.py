"""CrystalBLEU: BLEU that ignores the n-grams every program of the language shares.

The "trivially shared" n-grams are the ``k`` most frequent 1-4-grams of a corpus of the same
language; offline we take them from the evaluated texts themselves (every distinct reference and
candidate), which needs no labels and no download.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from unice.evaluation.baselines.base import Baseline, code_tokens
from unice.evaluation.errors import BaselineUnavailable


def shared_ngrams(texts: Sequence[str], k: int, max_order: int = 4) -> dict[tuple[str, ...], int]:
    """The ``k`` most frequent n-grams (orders 1..max_order) over the tokenised texts."""
    counts: Counter[tuple[str, ...]] = Counter()
    for text in texts:
        tokens = code_tokens(text)
        for n in range(1, max_order + 1):
            counts.update(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
    return dict(counts.most_common(k))


class CrystalBleu(Baseline):
    """Sentence-level CrystalBLEU (smoothing method 1, so short programs are not all zero).

    Args:
        k: number of trivially shared n-grams to ignore (the paper's default is 500).
    """

    columns = ("CrystalBLEU",)

    def __init__(self, k: int = 500) -> None:
        self.k = int(k)

    def check(self) -> None:
        try:
            import crystalbleu  # noqa: F401
        except ImportError as exc:
            raise BaselineUnavailable(
                f"crystalbleu is not installed ({exc}); pip install crystalbleu"
            ) from None

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
        from crystalbleu import SmoothingFunction, sentence_bleu

        ignoring = shared_ngrams(sorted(set(candidates) | set(references)), self.k)
        smoothing = SmoothingFunction().method1
        return {
            "CrystalBLEU": [
                float(
                    sentence_bleu(
                        [code_tokens(r)],
                        code_tokens(c),
                        ignoring=ignoring,
                        smoothing_function=smoothing,
                    )
                )
                for c, r in zip(candidates, references, strict=True)
            ]
        }

    def describe(self) -> dict[str, Any]:
        return {"k": self.k, "shared_ngrams_from": "evaluated candidates and references"}
