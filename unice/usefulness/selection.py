"""The pre-registered arm rule of ``make usefulness`` (configs/experiment/usefulness.yaml).

Each arm (a lever: ranking weight, chrF prior, NL format, fine-tuning, the PassRatio start) is
judged on the inner dev folds only, by the within-intent Kendall tau of its Ref&NL score, so
the outer test folds never inform a choice.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from unice.metrics.example_level import within_problem_score


def arm_metric(
    scores: Sequence[float] | np.ndarray,
    grades: Sequence[float] | np.ndarray,
    task_ids: Sequence[str],
) -> float:
    """Within-intent Kendall tau-b over the intents whose grades vary, an intent scored all
    alike counting 0 (so a model cannot gain by scoring most intents flat)."""
    return within_problem_score(scores, grades, task_ids, "kendall")


def choose_arm(
    means: Mapping[str, float], incumbent: str, margin: float
) -> tuple[str, dict[str, Any]]:
    """The incumbent unless another arm beats its mean by more than ``margin``; among those
    that do, the highest. Returns the winner and, per arm, its gain and verdict."""
    if incumbent not in means or not math.isfinite(means[incumbent]):
        raise ValueError(f"the incumbent arm {incumbent!r} has no inner-dev figure")
    base = means[incumbent]
    verdicts: dict[str, Any] = {}
    adopted = []
    for arm, value in means.items():
        if arm == incumbent:
            verdicts[arm] = {"mean": value, "gain": 0.0, "verdict": "incumbent"}
            continue
        gain = value - base
        ok = math.isfinite(gain) and gain > margin
        verdicts[arm] = {"mean": value, "gain": gain, "verdict": "adopted" if ok else "rejected"}
        if ok:
            adopted.append(arm)
    winner = max(adopted, key=lambda a: means[a]) if adopted else incumbent
    if winner != incumbent:
        verdicts[winner]["verdict"] = "chosen"
    else:
        verdicts[incumbent]["verdict"] = "chosen (incumbent)"
    return winner, verdicts
