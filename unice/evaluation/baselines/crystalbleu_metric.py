"""CrystalBLEU: BLEU that ignores the n-grams every program of the language shares.

The "trivially shared" n-grams are the ``k`` most frequent 1-4-grams of a large corpus of the
language. Offline, for Python, the interpreter's own standard library is such a corpus (a fixed
slice of it, so the set is reproducible for a given Python version). Counting them on the
evaluated candidates instead would be wrong: with ~20 samples per problem the most frequent
n-grams are the problem-specific ones, exactly what the metric must keep. ``corpus: references``
(one text per distinct reference, document frequency) is the fallback for other languages.
"""

from __future__ import annotations

import sysconfig
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from unice.evaluation.baselines.base import Baseline, code_tokens
from unice.evaluation.errors import BaselineUnavailable

CORPORA = ("stdlib", "references")
STDLIB_BYTES = 2_000_000  # ~50 modules: enough for stable top-500 n-grams, ~2 s to count


def count_ngrams(texts: Iterable[str], max_order: int = 4, per_text: bool = False) -> Counter:
    """n-gram counts (orders 1..max_order); ``per_text`` counts each n-gram once per text."""
    counts: Counter[tuple[str, ...]] = Counter()
    for text in texts:
        tokens = code_tokens(text)
        grams = (
            tuple(tokens[i : i + n])
            for n in range(1, max_order + 1)
            for i in range(len(tokens) - n + 1)
        )
        counts.update(set(grams) if per_text else grams)
    return counts


@lru_cache(maxsize=2)
def stdlib_texts(max_bytes: int = STDLIB_BYTES) -> tuple[str, ...]:
    """Top-level standard-library modules in name order, up to ``max_bytes`` of source."""
    texts, total = [], 0
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        if total >= max_bytes:
            break
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        texts.append(text)
        total += len(text)
    return tuple(texts)


class CrystalBleu(Baseline):
    """Sentence-level CrystalBLEU (smoothing method 1, so short programs are not all zero).

    Args:
        k: number of trivially shared n-grams to ignore (the paper's default is 500).
        corpus: where shared n-grams are counted: ``stdlib`` (Python) or ``references``.
    """

    columns = ("CrystalBLEU",)

    def __init__(self, k: int = 500, corpus: str = "stdlib") -> None:
        if corpus not in CORPORA:
            raise ValueError(f"corpus={corpus!r}; choose from {', '.join(CORPORA)}")
        self.k = int(k)
        self.corpus = corpus

    def check(self) -> None:
        try:
            import crystalbleu  # noqa: F401
        except ImportError as exc:
            raise BaselineUnavailable(
                f"crystalbleu is not installed ({exc}); pip install crystalbleu"
            ) from None
        if self.corpus == "stdlib" and not stdlib_texts():
            raise BaselineUnavailable(
                "no standard-library sources found; set baselines.crystalbleu.corpus=references"
            )

    def shared(self, references: Sequence[str]) -> dict[tuple[str, ...], int]:
        if self.corpus == "stdlib":
            counts = count_ngrams(stdlib_texts())
        else:
            counts = count_ngrams(sorted(set(references)), per_text=True)
        return dict(counts.most_common(self.k))

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
        from crystalbleu import SmoothingFunction, sentence_bleu

        ignoring = self.shared(references)
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
        return {"k": self.k, "corpus": self.corpus}
