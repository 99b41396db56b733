"""``python -m data_builders coverage --humaneval-x DIR``: how many of HE-Eval's extended
Python tests translate into each HumanEval-X language, and why the rest do not.

Builds (or reads from the extension cache, the same one ``build humaneval`` uses) HE-Eval's
extended suites and tries every case against every language's declared signature
(:mod:`data_builders.test_translation.coverage`); prints one line per language and the commonest
reasons. A task counts as translated when at least one of its cases translates.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from data_builders.errors import UserError
from data_builders.test_translation.coverage import coverage, load_rows
from data_builders.test_translation.types import LANGUAGES


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``coverage`` subcommand to the ``python -m data_builders`` parser."""
    parser = subparsers.add_parser(
        "coverage",
        help="how many HE-Eval extended tests translate into each HumanEval-X language",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
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
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from data_builders.dataset.humaneval_suites import humaneval_suites

    languages = [x.strip() for x in args.languages.split(",") if x.strip()]
    unknown = sorted(set(languages) - set(LANGUAGES))
    if unknown:
        raise UserError(f"--languages: unknown {unknown}; choose from {', '.join(LANGUAGES)}")
    rows = {lang: load_rows(args.humaneval_x, lang) for lang in languages}
    suites, entries = humaneval_suites(args.max_problems, args.workers, args.cache_dir)
    n_cases = sum(len(c) for c in suites.values())
    print(f"HE-Eval extended cases: {n_cases} in {sum(1 for c in suites.values() if c)} tasks")
    for cov in coverage(suites, rows, entries).values():
        print(cov.line())
        for reason, count in cov.reasons.most_common(args.reasons):
            print(f"      {count:6d}  {reason}")
    return 0
