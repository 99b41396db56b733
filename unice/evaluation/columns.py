"""One metric's scores on the evaluated split: the unit every analysis and report works on."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

KINDS = ("codescore", "baseline", "external", "ice_score")


@dataclass
class MetricColumn:
    """Scores of one metric, aligned with the split's rows.

    Attributes:
        name: display name (``"CodeScore (Ref&NL)"``, ``"BLEU"``, ...).
        scores: shape ``(n,)``; ``nan`` where the metric did not score a sample.
        kind: one of :data:`KINDS` (decides which extra analyses apply).
        seconds: wall time to produce the column, ``None`` when unknown (external files).
        exec_probs: shape ``(n,)`` Exec probabilities (CodeScore only).
        time_note: what ``seconds`` covers when it is shared (e.g. all formats in one run).
        settings: provenance of the metric (model, options).
    """

    name: str
    scores: np.ndarray
    kind: str
    seconds: float | None = None
    exec_probs: np.ndarray | None = None
    time_note: str = ""
    settings: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")
        self.scores = np.asarray(self.scores, dtype=np.float64).reshape(-1)

    @property
    def n_scored(self) -> int:
        return int(np.isfinite(self.scores).sum())

    @property
    def unit_interval(self) -> bool:
        """Whether every score lies in [0, 1] (MAE against PassRatio only makes sense then)."""
        finite = self.scores[np.isfinite(self.scores)]
        tol = 1e-9  # sacrebleu's 100.00000000000001 / 100
        return bool(finite.size) and bool(finite.min() >= -tol and finite.max() <= 1.0 + tol)


@dataclass
class SkippedMetric:
    """A metric that could not be computed here, with the reason shown in every report."""

    name: str
    reason: str
