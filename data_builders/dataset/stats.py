"""Dataset statistics in the shape of the CodeScore paper's dataset table.

Token lengths use a simple code-aware tokenizer (identifiers, numbers, single punctuation
characters), not a model's BPE, so the figures do not depend on which encoder is trained.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from statistics import mean
from typing import Any

from data_builders.dataset.splits import SPLITS

_TOKEN = re.compile(r"\w+|[^\w\s]")


def count_tokens(text: str) -> int:
    return len(_TOKEN.findall(text or ""))


def _avg(values: Iterable[float]) -> float:
    values = list(values)
    return round(mean(values), 4) if values else 0.0


def execution_seconds(rows: Sequence[Mapping[str, Any]]) -> float | None:
    """Total ``exec_seconds`` of the rows; None when a row lacks it (a store from a build
    before the field existed), since a partial sum would understate the cost."""
    times = [r.get("exec_seconds") for r in rows]
    if not all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in times):
        return None
    return round(float(sum(times)), 3)


def split_stats(rows: Sequence[Mapping[str, Any]], tasks: Sequence[Mapping[str, Any]]) -> dict:
    """The paper's columns for one split."""
    gens_per_task = [sum(1 for r in rows if r["task_id"] == t["task_id"]) for t in tasks]
    base_only = sum(1 for r in rows if r["base_passed"] and not r["passed"])
    base_total = sum(1 for r in rows if r["base_passed"])
    return {
        "tasks": len(tasks),
        "samples": len(rows),
        "generated_per_task": _avg(gens_per_task),
        "tests_per_task_extended": _avg(t["n_tests"] for t in tasks),
        "tests_per_task_original": _avg(t["n_original"] for t in tasks),
        "avg_tokens_nl": _avg(count_tokens(t.get("nl", "")) for t in tasks),
        "avg_tokens_reference": _avg(count_tokens(t.get("reference", "")) for t in tasks),
        "avg_tokens_generated": _avg(count_tokens(r["generated"]) for r in rows),
        "avg_pass_ratio": _avg(r["pass_ratio"] for r in rows),
        "executable_rate": _avg(float(r["executable"]) for r in rows),
        "pass_at_1_extended": _avg(float(r["passed"]) for r in rows),
        "pass_at_1_base": _avg(float(r["base_passed"]) for r in rows),
        "base_passing_exposed": base_only,
        "base_passing": base_total,
        "execution_seconds": execution_seconds(rows),
    }


def dataset_stats(
    rows_by_split: Mapping[str, Sequence[Mapping[str, Any]]],
    tasks: Sequence[Mapping[str, Any]],
    split_of: Mapping[str, str],
    meta: Mapping[str, Any],
) -> dict[str, Any]:
    """Everything in ``stats.json``: per-split columns, overall, and per-task test counts."""
    tests = [t["n_tests"] for t in tasks]
    per_split = {
        name: split_stats(
            rows_by_split.get(name, []), [t for t in tasks if split_of[t["task_id"]] == name]
        )
        for name in SPLITS
    }
    all_rows = [r for name in SPLITS for r in rows_by_split.get(name, [])]
    return {
        **meta,
        "splits": per_split,
        "overall": split_stats(all_rows, list(tasks)),
        "extension": {
            "mean_tests": _avg(tests),
            "min_tests": min(tests, default=0),
            "max_tests": max(tests, default=0),
            "share_tasks_with_50_plus": _avg(float(n >= 50) for n in tests),
            "share_tasks_with_100_plus": _avg(float(n >= 100) for n in tests),
        },
        "tests_per_task": {
            t["task_id"]: {
                "original": t["n_original"],
                "extended": t["n_tests"],
                "generated_inputs": t.get("n_generated", 0),
                "reference_passes_original": t.get("reference_passes", True),
                "split": split_of[t["task_id"]],
            }
            for t in tasks
        },
    }
