"""Reference-based baselines reported next to CodeScore, one module each.

``BASELINES`` maps the config key (``configs/baselines/*.yaml``) to the class; keyword arguments
in the config are passed to the constructor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tqdm.auto import tqdm

from unice.evaluation.baselines.base import (
    Baseline,
    BaselineRun,
    code_tokens,
    run_baseline,
    strip_shared_prefix,
)
from unice.evaluation.baselines.codebertscore import CodeBertScore
from unice.evaluation.baselines.codebleu_metric import CodeBleu
from unice.evaluation.baselines.crystalbleu_metric import CrystalBleu
from unice.evaluation.baselines.exact_match import ExactMatch
from unice.evaluation.baselines.meteor import Meteor
from unice.evaluation.baselines.rouge import RougeL
from unice.evaluation.baselines.sacrebleu_metrics import SacreBleu
from unice.evaluation.errors import EvaluationError

BASELINES: dict[str, type[Baseline]] = {
    "exact_match": ExactMatch,
    "sacrebleu": SacreBleu,
    "rouge_l": RougeL,
    "meteor": Meteor,
    "codebleu": CodeBleu,
    "crystalbleu": CrystalBleu,
    "codebertscore": CodeBertScore,
}


def build_baseline(name: str, options: Mapping[str, Any] | None = None) -> Baseline:
    """Instantiate a baseline by config key; unknown keys and bad options name the fix."""
    if name not in BASELINES:
        raise EvaluationError(
            f"unknown baseline {name!r}; choose from {', '.join(sorted(BASELINES))}"
        )
    try:
        return BASELINES[name](**dict(options or {}))
    except TypeError as exc:
        raise EvaluationError(f"bad options for baseline {name!r}: {exc}") from None


def run_baselines(
    specs: Mapping[str, Mapping[str, Any] | None],
    candidates: Sequence[str],
    references: Sequence[str],
    progress: bool = True,
    strip_prompt: bool = False,
    reference_sets: Sequence[Sequence[str]] | None = None,
    sources: Sequence[str] | None = None,
) -> list[BaselineRun]:
    """Run each configured baseline (key -> constructor options; ``enabled: false`` skips it).

    ``strip_prompt`` compares only what follows the lines candidate and reference share;
    ``reference_sets`` / ``sources``: every reference and the NL task of each candidate
    (:func:`run_baseline`).
    """
    runs = []
    chosen = {k: dict(v or {}) for k, v in specs.items() if (v or {}).get("enabled", True)}
    for name, options in tqdm(chosen.items(), desc="baselines", disable=not progress):
        options.pop("enabled", None)
        baseline = build_baseline(name, options)
        runs.append(
            run_baseline(
                name, baseline, candidates, references, strip_prompt, reference_sets, sources
            )
        )
    return runs


__all__ = [
    "BASELINES",
    "Baseline",
    "BaselineRun",
    "build_baseline",
    "code_tokens",
    "run_baseline",
    "run_baselines",
    "strip_shared_prefix",
]
