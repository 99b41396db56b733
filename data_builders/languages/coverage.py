"""How many of HE-Eval's extended Python tests translate into each HumanEval-X language, and why
the rest do not.

``python -m data_builders.languages.coverage --humaneval-x DIR`` builds (or reads from the
extension cache, the same one ``build humaneval`` uses) HE-Eval's extended suites and tries
every case against every language's declared signature; it prints one line per language and
the commonest reasons. A task counts as translated when at least one of its cases translates.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.languages.assertions import assertion
from data_builders.languages.literals import Untranslatable
from data_builders.languages.types import LANGUAGES, TypeParseError, parse_signature

FILE_NAMES = {"cpp": "cpp", "java": "java", "js": "js", "go": "go", "rust": "rust"}
Case = tuple[Sequence[Any], Any]


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


def reason_key(reason: str) -> str:
    """Group reasons: mask the concrete values (``int 3000000000`` -> ``int N``)."""
    reason = re.sub(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"", "<value>", reason)
    reason = re.sub(r"-?\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b", "N", reason)
    return reason


def translate_task(
    row: dict, cases: Sequence[Case], entry_point: str | None = None
) -> tuple[list[str], Counter[str]]:
    """Assertions for the cases of one HumanEval-X row, and the masked reasons of the others."""
    reasons: Counter[str] = Counter()
    try:
        sig = parse_signature(row, entry_point)
    except TypeParseError as exc:
        reasons[f"signature: {reason_key(str(exc).split(': ', 1)[-1])}"] += len(cases)
        return [], reasons
    out = []
    for args, expected in cases:
        try:
            out.append(assertion(sig, args, expected))
        except Untranslatable as exc:
            reasons[reason_key(exc.reason)] += 1
    return out, reasons


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
        by_index = {int(str(r["task_id"]).split("/")[1]): r for r in language_rows}
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


def _build_suites(max_problems: int | None, workers: int, cache: str | None) -> tuple[dict, dict]:
    """HE-Eval's extended suites (cached like ``build humaneval``) and entry points of the
    first ``max_problems`` HumanEval tasks (``build humaneval-x`` makes them the same way)."""
    from data_builders.dataset.config import load_config
    from data_builders.dataset.humaneval_x import python_suites
    from data_builders.dataset.pipeline import load_problems

    count = len(load_problems("humaneval", None)) if max_problems is None else max_problems
    return python_suites(
        range(count), load_config("humaneval"), workers, Path(cache) if cache else None
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--humaneval-x", required=True, type=Path, help="folder of humaneval_<lang>.jsonl.gz"
    )
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--max-problems", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--cache-dir", default=None, help="extension cache (default ~/.cache/unice/extension)"
    )
    parser.add_argument("--reasons", type=int, default=6, help="reasons listed per language")
    args = parser.parse_args(argv)
    try:
        languages = [x.strip() for x in args.languages.split(",") if x.strip()]
        unknown = sorted(set(languages) - set(LANGUAGES))
        if unknown:
            raise UserError(f"--languages: unknown {unknown}; choose from {', '.join(LANGUAGES)}")
        rows = {lang: load_rows(args.humaneval_x, lang) for lang in languages}
        suites, entries = _build_suites(args.max_problems, args.workers, args.cache_dir)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    n_cases = sum(len(c) for c in suites.values())
    print(f"HE-Eval extended cases: {n_cases} in {sum(1 for c in suites.values() if c)} tasks")
    for cov in coverage(suites, rows, entries).values():
        print(cov.line())
        for reason, count in cov.reasons.most_common(args.reasons):
            print(f"      {count:6d}  {reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
