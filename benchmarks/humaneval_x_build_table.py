"""The README's HE-Eval-X table from built folders (``build humaneval-x --language L --out DIR``).

Reads each folder's ``stats.json`` and ``build_info.json`` and prints one Markdown row per
language: tasks, tests per task (mean / median, tasks with >= 100), the translated tests
dropped (untranslatable / the canonical solution fails them), the canonical solutions that pass
their own tests, how the samples that are a copy of the canonical solution were labelled (all
their kept tests passing under the calibrated limits is the build's consistency check), and
the build's wall time.

    python benchmarks/humaneval_x_build_table.py data/he-eval-x-cpp data/he-eval-x-java ...

``--smoke``: two small folders made here in a build's shape (one finished, one still
labelling) instead of real builds.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import _harness

from data_builders.dataset.humaneval_x import (
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


def smoke_folders(root: Path) -> list[Path]:
    """A finished build's files (stats, build info, splits) and an unfinished one's progress
    store, with the fields this script reads and made-up values."""
    tasks = [
        {
            "task_id": f"JavaScript/{i}",
            "n_tests": 100 + i,
            "n_original": 3,
            "reference_passes": i > 0,
            "translation": {"cases": 110, "untranslatable": 5, "kept": 100 + i},
        }
        for i in range(2)
    ]
    translation = {
        "extended_cases": 220, "untranslatable": 10, "canonical_fails": {"JavaScript/0": 4},
        "median_tests": 101, "tasks_with_100_plus": 2, "canonical_passing_tasks": 1,
    }  # fmt: skip
    stats = {
        "language": "js",
        "translation": translation,
        "extension": {"mean_tests": 100.5},
        "overall": {"tasks": 2, "samples": 4, "tests_per_task_original": 3.0,
                    "avg_pass_ratio": 0.5},
    }  # fmt: skip
    done, unfinished = root / "he-eval-x-js", root / "he-eval-x-js-unfinished"
    done.mkdir(parents=True)
    (done / "stats.json").write_text(json.dumps(stats))
    (done / "build_info.json").write_text(json.dumps({"seconds": 12.0}))
    rows = [{"generated": "a", "reference": "a", "passed": True}, {"generated": "b",
             "reference": "a", "passed": False}]  # fmt: skip
    for split in ("train", "dev", "test"):
        _harness.write_jsonl(done / f"{split}.jsonl", rows if split == "test" else [])
    (unfinished / ".progress").mkdir(parents=True)
    _harness.write_jsonl(unfinished / ".progress" / "tasks.jsonl", tasks)
    (unfinished / ".progress" / "manifest.json").write_text(json.dumps({"language": "js"}))
    return [done, unfinished]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, help="built folders; one at least")
    args = _harness.parse_args(parser)
    if args.smoke:
        args.folders = smoke_folders(_harness.scratch())
    elif not args.folders:
        parser.error("the following arguments are required: folders (or --smoke)")
    with _harness.Report(__file__, args) as report:
        report.figures["rows"] = benchmark(args)


def benchmark(args: argparse.Namespace) -> list[str]:
    """Prints the table; returns its rows."""
    print(
        "| language | tasks | programs | tests per task, mean / median | tasks with >= 100 | "
        "translated tests dropped: untranslatable / canonical fails | canonical solutions "
        "passing their own tests | canonical copies among the samples passing all kept tests | "
        "AvgPassRatio | build wall time |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = [row(folder) for folder in args.folders]
    for line in rows:
        print(line)
    return rows


if __name__ == "__main__":
    main()
