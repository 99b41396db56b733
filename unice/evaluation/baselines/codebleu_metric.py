"""CodeBLEU (n-gram, weighted n-gram, AST and data-flow match) from the ``codebleu`` package.

Needs tree-sitter grammars pinned to the versions in pyproject.toml: newer grammars make
``codebleu`` 0.7.0 fail with ``TypeError: an integer is required``; that is reported as a skip
with the fix, not as a crash.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from unice.evaluation.baselines.base import Baseline
from unice.evaluation.errors import BaselineUnavailable

_PIN_HINT = "install the pinned grammars: pip install -e '.[baselines]'"


class CodeBleu(Baseline):
    """Sentence-level CodeBLEU with the paper's equal weights.

    Args:
        lang: codebleu language name (``python``, ``java``, ...).
        weights: (n-gram, weighted n-gram, syntax, data-flow) weights.
    """

    columns = ("CodeBLEU",)

    def __init__(self, lang: str = "python", weights: Sequence[float] = (0.25, 0.25, 0.25, 0.25)):
        self.lang = lang
        self.weights = tuple(float(w) for w in weights)

    def check(self) -> None:
        try:
            from codebleu import calc_codebleu

            calc_codebleu(["x = 1"], ["x = 1"], lang=self.lang, weights=self.weights)
        except ImportError as exc:
            raise BaselineUnavailable(
                f"codebleu or its grammar is missing ({exc}); {_PIN_HINT}"
            ) from None
        except (TypeError, AttributeError, ValueError) as exc:
            raise BaselineUnavailable(
                f"codebleu cannot parse {self.lang} ({exc}); {_PIN_HINT}"
            ) from None

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
        from codebleu import calc_codebleu

        # A pair without data flow logs a warning per call; thousands of them bury the progress.
        codebleu_logger = logging.getLogger()
        level = codebleu_logger.level
        codebleu_logger.setLevel(logging.ERROR)
        try:
            values = [
                float(calc_codebleu([r], [c], lang=self.lang, weights=self.weights)["codebleu"])
                for c, r in zip(candidates, references, strict=True)
            ]
        finally:
            codebleu_logger.setLevel(level)
        return {"CodeBLEU": values}

    def describe(self) -> dict[str, Any]:
        return {"lang": self.lang, "weights": list(self.weights), "level": "sentence"}
