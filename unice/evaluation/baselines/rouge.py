"""ROUGE-L F-measure (longest common subsequence of tokens) from Google's rouge-score."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unice.evaluation.baselines.base import Baseline, code_tokens
from unice.evaluation.errors import BaselineUnavailable


class _CodeTokenizer:
    """rouge-score's default tokenizer drops all punctuation, i.e. most of the code's syntax."""

    def tokenize(self, text: str) -> list[str]:
        return code_tokens(text)


class RougeL(Baseline):
    """ROUGE-L F1 on code tokens."""

    columns = ("ROUGE-L",)

    def check(self) -> None:
        try:
            import rouge_score  # noqa: F401
        except ImportError as exc:
            raise BaselineUnavailable(
                f"rouge-score is not installed ({exc}); pip install rouge-score"
            ) from None

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
        from rouge_score.rouge_scorer import RougeScorer

        scorer = RougeScorer(["rougeL"], tokenizer=_CodeTokenizer())
        return {
            "ROUGE-L": [
                scorer.score(r, c)["rougeL"].fmeasure
                for c, r in zip(candidates, references, strict=True)
            ]
        }

    def describe(self) -> dict[str, Any]:
        return {"tokens": "code tokens (identifiers, numbers, punctuation)"}
