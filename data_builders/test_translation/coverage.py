"""How many of HE-Eval's extended Python tests translate into each HumanEval-X language, and why
the rest do not.

``python -m data_builders coverage --humaneval-x DIR`` (:mod:`data_builders.coverage`) builds (or
reads from the extension cache, the same one ``build humaneval`` uses) HE-Eval's extended suites
and tries every case against every language's declared signature; it prints one line per
language and the commonest reasons. A task counts as translated when at least one of its cases
translates.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from data_builders.errors import UserError
from data_builders.problems.base import task_number
from data_builders.problems.humaneval_x import HUB_CONFIGS
from data_builders.test_translation.translate import Case, reason_key, translate_task

__all__ = [
    "FILE_NAMES",
    "Case",
    "LanguageCoverage",
    "coverage",
    "load_rows",
    "reason_key",  # from data_builders.test_translation.translate
    "translate_task",  # from data_builders.test_translation.translate
]

FILE_NAMES = HUB_CONFIGS  # language -> the X of HumanEval-X's humaneval_X.jsonl.gz


@dataclass
class LanguageCoverage:
    """Translation counts for one language.

    Attributes:
        tasks: tasks with at least one extended case.
        tasks_translated: tasks with at least one case that translates.
        tests: extended cases tried.
        tests_translated: cases that became an assertion.
        reasons: why cases did not translate (values masked so reasons group), case counts.
    """

    language: str
    tasks: int = 0
    tasks_translated: int = 0
    tests: int = 0
    tests_translated: int = 0
    reasons: Counter[str] = field(default_factory=Counter)

    def line(self) -> str:
        share = 100 * self.tests_translated / self.tests if self.tests else 0.0
        return (
            f"{self.language:5s} tasks {self.tasks_translated}/{self.tasks}  "
            f"tests {self.tests_translated}/{self.tests} ({share:.1f}%)"
        )


def coverage(
    suites: Mapping[int, Sequence[Case]],
    rows: Mapping[str, Sequence[dict]],
    entry_points: Mapping[int, str] | None = None,
) -> dict[str, LanguageCoverage]:
    """Per language, how many tasks/cases of ``suites`` (HumanEval index -> cases) translate.

    Args:
        suites: extended cases per HumanEval task number (``HumanEval/7`` -> 7).
        rows: HumanEval-X rows per language, each list indexed like HumanEval.
        entry_points: the Python function names, to pick the function a row tests.
    """
    result = {}
    for language, language_rows in rows.items():
        cov = LanguageCoverage(language)
        by_index = {task_number(str(r["task_id"])): r for r in language_rows}
        for index, cases in suites.items():
            if not cases:
                continue
            cov.tasks += 1
            cov.tests += len(cases)
            row = by_index.get(index)
            if row is None:
                cov.reasons["no HumanEval-X task with this number"] += len(cases)
                continue
            done, reasons = translate_task(row, cases, (entry_points or {}).get(index))
            cov.tests_translated += len(done)
            cov.tasks_translated += bool(done)
            cov.reasons.update(reasons)
        result[language] = cov
    return result


def load_rows(folder: Path, language: str) -> list[dict]:
    """``humaneval_<language>.jsonl.gz`` (or ``.jsonl``) from a HumanEval-X folder."""
    for name in (
        f"humaneval_{FILE_NAMES[language]}.jsonl.gz",
        f"humaneval_{FILE_NAMES[language]}.jsonl",
    ):
        path = folder / name
        if path.is_file():
            opener = gzip.open if name.endswith(".gz") else open
            with opener(path, "rt", encoding="utf-8") as handle:
                return [json.loads(line) for line in handle if line.strip()]
    raise UserError(f"{folder}: no humaneval_{language}.jsonl[.gz]; pass the HumanEval-X folder")
