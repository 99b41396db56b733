"""Exact match after layout normalisation: 1 when candidate and reference are the same code."""

from __future__ import annotations

from collections.abc import Sequence

from unice.evaluation.baselines.base import Baseline


def normalise_layout(code: str) -> str:
    """Drop trailing spaces and blank lines (they never change what Python code does)."""
    return "\n".join(line.rstrip() for line in code.splitlines() if line.strip())


class ExactMatch(Baseline):
    """The weakest possible reference-based metric, a floor for the others."""

    columns = ("ExactMatch",)

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
        return {
            "ExactMatch": [
                float(normalise_layout(c) == normalise_layout(r))
                for c, r in zip(candidates, references, strict=True)
            ]
        }
