"""METEOR from NLTK; needs WordNet, which `scripts/setup_nltk_wordnet.py` installs offline."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from unice.evaluation.baselines.base import Baseline, code_tokens
from unice.evaluation.errors import BaselineUnavailable


class Meteor(Baseline):
    """NLTK METEOR (alpha 0.9, beta 3, gamma 0.5) on code tokens."""

    columns = ("METEOR",)

    def check(self) -> None:
        try:
            from nltk.corpus import wordnet

            wordnet.ensure_loaded()
        except ImportError as exc:
            raise BaselineUnavailable(f"nltk is not installed ({exc}); pip install nltk") from None
        except LookupError:
            raise BaselineUnavailable(
                "NLTK WordNet data not found; run `python scripts/setup_nltk_wordnet.py` "
                "(needs Debian's wordnet-base: `make system-deps`)"
            ) from None

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
        from nltk.translate.meteor_score import meteor_score

        return {
            "METEOR": [
                float(meteor_score([code_tokens(r)], code_tokens(c)))
                for c, r in zip(candidates, references, strict=True)
            ]
        }

    def describe(self) -> dict[str, Any]:
        return {"implementation": "nltk.translate.meteor_score", "tokens": "code tokens"}
