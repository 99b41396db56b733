"""A picture of an ICE-Score run: how the judge's scores spread, split by execution outcome.

Why: a judge that gives every program 4 (or many unreadable replies) is obvious at a glance in
this chart and easy to miss in a JSONL file. When records carry the executor's ``passed``
label, the bars are split into passing and failing programs, so one can see whether the judge
separates them at all.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from unice.ice_score.runner import IceScoreRun


def _bucket(score: float | None, status: str) -> str:
    if score is None:
        return "missing" if status == "missing" else "unparsed"
    return f"{score:g}"


def plot_score_distribution(
    run: IceScoreRun, records: Sequence[Mapping[str, Any]], path: str | os.PathLike[str]
) -> Path:
    """Save a bar chart of score counts (grouped by ``passed`` when records have it)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups: dict[str, Counter[str]] = {}
    for record, score, status in zip(records, run.scores, run.statuses, strict=True):
        label = {True: "passed tests", False: "failed tests"}.get(record.get("passed"), "all")
        groups.setdefault(label, Counter())[_bucket(score, status)] += 1
    seen = {b for c in groups.values() for b in c if b[0].isdigit()}
    numeric = sorted(seen | {"0", "1", "2", "3", "4"}, key=float)  # the whole scale, always
    buckets = numeric + [b for b in ("unparsed", "missing") if any(b in c for c in groups.values())]
    figure, axis = plt.subplots(figsize=(6.4, 3.6))
    width = 0.8 / len(groups)
    for offset, (label, counts) in enumerate(sorted(groups.items())):
        xs = [i + offset * width for i in range(len(buckets))]
        axis.bar(xs, [counts.get(b, 0) for b in buckets], width=width, label=label)
    axis.set_xticks([i + width * (len(groups) - 1) / 2 for i in range(len(buckets))], buckets)
    config = run.config
    title = f"ICE-Score {config.aspect}" + (" (ref)" if config.with_reference else "")
    axis.set_title(f"{title}{' CoT' if config.cot else ''}: {config.model}, parser={config.parser}")
    axis.set_xlabel("judge score")
    axis.set_ylabel("programs")
    if len(groups) > 1:
        axis.legend()
    figure.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
