"""The README's HE-Eval-X table from built folders (``build humaneval-x --language L --out DIR``).

Reads each folder's ``stats.json`` and ``build_info.json`` and prints one Markdown row per
language: tasks, tests per task (mean / median, tasks with >= 100), the translated tests
dropped (untranslatable / the canonical solution fails them), the canonical solutions that pass
their own tests, how the samples that are a copy of the canonical solution were labelled (all
their kept tests passing under the calibrated limits is the build's consistency check), and
the build's wall time.

    python benchmarks/humaneval_x_build_table.py data/he-eval-x-cpp data/he-eval-x-java ...
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from data_builders.dataset.humaneval_x import (  # noqa: E402
    LANGUAGE_NAMES,
    translation_summary,
)


def _rows(folder: Path) -> list[dict]:
    return [
        json.loads(line)
        for split in ("train", "dev", "test")
        for line in (folder / f"{split}.jsonl").read_text().splitlines()
    ]


def tests_row(folder: Path) -> str:
    """An unfinished build (no ``stats.json`` yet): the tests part from its progress store,
    whose task records are complete once the canonical solutions have run."""
    tasks = [json.loads(line) for line in (folder / ".progress" / "tasks.jsonl").open()]
    manifest = json.loads((folder / ".progress" / "manifest.json").read_text())
    t = translation_summary(tasks)
    mean = sum(x["n_tests"] for x in tasks) / len(tasks)
    own = sum(x["n_original"] for x in tasks) / len(tasks)
    fails = sum(t["canonical_fails"].values())
    return (
        f"| {LANGUAGE_NAMES[manifest['language']]} | {len(tasks)} | (labelling unfinished) | "
        f"{mean:.1f} / {t['median_tests']} ({own:.1f} own) | {t['tasks_with_100_plus']} | "
        f"{t['untranslatable']:,} / {fails:,} of {t['extended_cases']:,} | "
        f"{t['canonical_passing_tasks']} / {len(tasks)} | | | |"
    )


def row(folder: Path) -> str:
    if not (folder / "stats.json").is_file():
        return tests_row(folder)
    stats = json.loads((folder / "stats.json").read_text())
    info = json.loads((folder / "build_info.json").read_text())
    t, o, ext = stats["translation"], stats["overall"], stats["extension"]
    fails = sum(t["canonical_fails"].values())
    copies = [r for r in _rows(folder) if r["generated"] == r["reference"]]
    copies_passing = sum(r["passed"] for r in copies)
    return (
        f"| {LANGUAGE_NAMES[stats['language']]} | {o['tasks']} | {o['samples']} | "
        f"{ext['mean_tests']:.1f} / {t['median_tests']} ({o['tests_per_task_original']:.1f} own) | "
        f"{t['tasks_with_100_plus']} | {t['untranslatable']:,} / {fails:,} of "
        f"{t['extended_cases']:,} | {t['canonical_passing_tasks']} / {o['tasks']} | "
        f"{copies_passing} / {len(copies)} | {o['avg_pass_ratio']:.3f} | {info['seconds']:.0f} s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    args = parser.parse_args()
    print(
        "| language | tasks | programs | tests per task, mean / median | tasks with >= 100 | "
        "translated tests dropped: untranslatable / canonical fails | canonical solutions "
        "passing their own tests | canonical copies among the samples passing all kept tests | "
        "AvgPassRatio | build wall time |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for folder in args.folders:
        print(row(folder))


if __name__ == "__main__":
    main()
