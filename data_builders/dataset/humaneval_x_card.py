"""HE-Eval-X's additions to the generic ``stats.json`` and dataset card: where each language's
tests came from (``translation``) and the card's "Tests in <language>" section.

Part of the HE-Eval-X dataset module (:class:`data_builders.dataset.humaneval_x.HumanEvalX`
puts them in its card extras), kept in a file of their own.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from data_builders.problems.humaneval_x import LANGUAGE_NAMES


def translation_summary(tasks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """``stats.json``'s ``translation``: where each task's tests came from, summed."""
    reasons: Counter[str] = Counter()
    fails: Counter[str] = Counter()
    total = Counter()
    tests = sorted(t["n_tests"] for t in tasks)
    for task in tasks:
        info = task.get("translation") or {}
        reasons.update(info.get("untranslatable_reasons", {}))
        fails.update(info.get("canonical_fails", {}))
        for key in ("cases", "untranslatable", "kept"):
            total[key] += info.get(key, 0)
    return {
        "extended_cases": total["cases"],
        "untranslatable": total["untranslatable"],
        "untranslatable_reasons": dict(reasons.most_common()),
        "canonical_fails": dict(fails),
        "kept": total["kept"],
        "median_tests": tests[len(tests) // 2] if tests else 0,
        "tasks_with_100_plus": sum(n >= 100 for n in tests),
        "canonical_passing_tasks": sum(bool(t.get("reference_passes")) for t in tasks),
        "canonical_failing": [t["task_id"] for t in tasks if not t.get("reference_passes")],
    }


def card_lines(stats: Mapping[str, Any]) -> list[str]:
    """The card's section on how the tests of this language were made."""
    info = stats.get("translation")
    if not info:
        return []
    name = LANGUAGE_NAMES.get(stats.get("language", ""), stats.get("language", ""))
    tasks = stats["overall"]["tasks"]
    fails = sum(info["canonical_fails"].values())
    by_status = ", ".join(f"{n} {s}" for s, n in sorted(info["canonical_fails"].items()))
    reasons = "; ".join(f"{r} ({n})" for r, n in list(info["untranslatable_reasons"].items())[:5])
    failing = ", ".join(info["canonical_failing"][:10]) or "none"
    limits = stats.get("assertion_limits") or {}
    return [
        f"## Tests in {name}",
        "",
        f"Each task's tests are HumanEval-X's own assertions, then HE-Eval's extended inputs "
        f"written as {name} assertions through the task's declared types "
        "(`data_builders/test_translation/`). The expected values are the Python reference's, "
        f"so only the translated assertions {name}'s canonical solution passes are kept.",
        "",
        f"- HE-Eval's extended cases: {info['extended_cases']:,}; untranslatable "
        f"{info['untranslatable']:,}; the canonical solution fails {fails:,}"
        + (f" ({by_status})" if by_status else "")
        + f"; kept {info['kept']:,}.",
        f"- tests per task: mean {stats['extension']['mean_tests']:.1f}, median "
        f"{info['median_tests']}; {info['tasks_with_100_plus']} of {tasks} tasks have 100 or "
        "more.",
        f"- commonest reasons a case does not translate: {reasons or 'none'}.",
        f"- the canonical solution passes its own tests on {info['canonical_passing_tasks']} of "
        f"{tasks} tasks (failing: {failing}).",
        f"- per-assertion CPU limit: clamp({limits.get('factor')} x the canonical solution's "
        f"time on it, {limits.get('floor')} s, {limits.get('cap')} s); loading "
        f"{(stats.get('language_limits') or {}).get('load')} s.",
        "- decontamination is off: HE-Eval-X's tasks *are* HumanEval's. Do not train on it and "
        "evaluate on HumanEval in any language.",
        "",
    ]
