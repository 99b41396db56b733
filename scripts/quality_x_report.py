"""Combine `make quality-x`'s per-language evaluations into one report with the verdicts.

    python scripts/quality_x_report.py --out outputs/quality_x --checkpoint runs/multilingual/best \
        --evaluations cpp=outputs/quality_x/cpp js=outputs/quality_x/js python=outputs/quality_x/python

Reads each language's ``report.json`` (``evaluate.py`` on that language's test problems,
HumanEval 82-163, which the multilingual model never trained on) and writes ``OUT/report.md``
and ``OUT/report.json``: per language, CodeScore next to every baseline that supports the
language on the same rows, and issue 29's check -- is the primary column
(``protocol.primary_format`` of configs/experiment/multilingual_cpu.yaml) above every *string*
baseline (every baseline column but CodeBERTScore, a neural encoder) at example and corpus
level, with the paired intervals of ``make quality``? CodeBERTScore stays in the table.
The first lines say which rows are mutants, canonical solutions and real generations.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from mutant_order import cells, count
from quality_report import primary_column

from data_builders.jsonl import read_jsonl
from unice.evaluation.quality_tables import summarise, table, verdict, verdict_lines
from unice.ice_score.templates import LANGUAGE_NAMES

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT = ROOT / "configs" / "experiment" / "multilingual_cpu.yaml"
NEURAL_PREFIXES = ("CodeBERTScore",)
"""Baseline columns that are not string metrics: shown, never part of the string verdict."""
DECIDING = ("cpp", "java", "js")
"""The languages issue 29's done-when judges; Go, Rust and Python are reported beside them."""


def string_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """CodeScore columns and the string baselines (neural baselines left out)."""
    return [r for r in rows if not r["name"].startswith(NEURAL_PREFIXES)]


def row_kinds(test_rows: list[dict[str, Any]]) -> dict[str, int]:
    """How many test rows are canonical solutions, mutants, real samples (by row id kind)."""
    kinds: Counter[str] = Counter()
    for row in test_rows:
        row_id = str(row.get("id", ""))
        kinds[row_id.split("::")[1] if row_id.count("::") >= 2 else "other"] += 1
    return dict(kinds)


def mutant_pairs(
    folder: Path, rows: list[dict[str, Any]], metrics: list[str]
) -> dict[str, dict[str, int]]:
    """Each metric's within-problem order in its two parts (``scripts/mutant_order.py``) where
    the test ``rows`` hold mutants and ``evaluate.py`` kept its per-row scores; else empty."""
    scores_file = folder / "scores.jsonl"
    if not scores_file.is_file():
        return {}
    if not any("::mutant::" in str(r.get("id", "")) for r in rows):
        return {}
    scores = {row["id"]: row for row in read_jsonl(scores_file)}
    return {m: count(rows, scores, m) for m in metrics if all(m in s for s in scores.values())}


def mutant_lines(pairs: dict[str, dict[str, int]]) -> list[str]:
    """The two parts as a table: why a metric that ties mutants can lead Kendall's tau-b."""
    if not pairs:
        return []
    lines = [
        "",
        "Within problems in two parts (`scripts/mutant_order.py`): the canonical solution above "
        "each failing mutant of it, and pairs of one task's mutants whose PassRatios differ "
        "(Kendall's τ-b leaves a pair the metric ties out):",
        "",
        "| metric | canonical above its failing mutants | mutant pairs right / wrong / tied |",
        "| --- | --- | --- |",
    ]
    return lines + [f"| {name} | {cells(c)}" for name, c in pairs.items()]


def language_section(language: str, folder: Path, primary: str) -> tuple[dict, list[str]]:
    """One language's summary (for report.json) and its markdown lines."""
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    rows = summarise(report)
    check = verdict(string_rows(rows), primary, report.get("paired"))
    data = report.get("data") or {}
    test_file = Path(str(data.get("path", "")))
    test_rows = read_jsonl(test_file) if test_file.is_file() else []
    kinds = row_kinds(test_rows)
    name = LANGUAGE_NAMES.get(language, language)
    lines = ["", f"## {name}", "", f"`{folder}/report.md` has CIs, Exec metrics and plots."]
    if kinds:
        lines += [
            "",
            "Test rows by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())),
        ]
    lines += ["", *table(rows), "", "Against the string baselines:", *verdict_lines(check)]
    best = (check.get("example_kendall") or {}).get("best_baseline")
    pairs = mutant_pairs(folder, test_rows, [primary, *([best] if best else [])])
    lines += mutant_lines(pairs)
    return {"report": str(folder / "report.json"), "rows_by_kind": kinds, "metrics": rows,
            "verdict": check, "mutant_pairs": pairs}, lines  # fmt: skip


def summary_lines(sections: dict[str, dict], primary: str) -> list[str]:
    """The verdict per language in one table."""
    lines = [
        "| language | example τ (primary) | best string baseline | above all? | corpus τ (primary) "
        "| best string baseline | above all? |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for language, section in sections.items():
        cells = [LANGUAGE_NAMES.get(language, language)]
        for level in ("example_kendall", "corpus_kendall"):
            v = section["verdict"].get(level)
            if not v:
                cells += ["—", "—", "—"]
                continue
            cells += [
                f"{v['codescore_value']:.3f}",
                f"{v['best_baseline']} {v['baseline_value']:.3f}",
                "yes" if v["above_every_baseline"] else "**no**",
            ]
        lines.append("| " + " | ".join(cells) + " |")
    decided = [s["verdict"] for lang, s in sections.items() if lang in DECIDING]
    met = bool(decided) and all(
        v.get(level, {}).get("above_every_baseline") for v in decided for level in v
    )
    lines += ["", f"Done-when (C++, Java, JavaScript above every string baseline at both levels, "
              f"primary column {primary}): {'met' if met else '**not met**'}."]  # fmt: skip
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument(
        "--evaluations", nargs="+", required=True, help="language=evaluate.py output folder"
    )
    parser.add_argument("--total-seconds", type=float)
    parser.add_argument("--timings", nargs="*", default=[], help="stage=seconds pairs")
    parser.add_argument("--experiment", type=Path, default=EXPERIMENT)
    args = parser.parse_args(argv)
    primary = primary_column(args.experiment)
    folders: dict[str, Path] = {}
    for item in args.evaluations:
        language, sep, folder = item.partition("=")
        if not sep or language not in LANGUAGE_NAMES:
            raise SystemExit(
                f"error: --evaluations {item!r}: give language=FOLDER with a language of "
                f"{', '.join(LANGUAGE_NAMES)}"
            )
        if not (Path(folder) / "report.json").is_file():
            raise SystemExit(f"error: {folder}/report.json not found; run evaluate.py first")
        folders[language] = Path(folder)
    sections: dict[str, dict] = {}
    body: list[str] = []
    for language, folder in folders.items():
        sections[language], lines = language_section(language, folder, primary)
        body += lines
    head = [
        "# `make quality-x`: one CodeScore, six languages, HumanEval problems 82-163 unseen",
        "",
        f"Checkpoint `{args.checkpoint}` (`+experiment=multilingual_cpu`: HumanEval tasks 0-81 "
        "of every language and real MBPP generations; no program of tasks 82-163 in any "
        "language is trained on). Rows per language: each task's canonical solution "
        "(`samples`) and one-edit mutants of it (`mutant`) in C++, Java, JavaScript, Go and "
        "Rust; CodeGen-16B's real samples (`samples`) in Python. The verdict reads the primary "
        f"column, {primary}, against the string baselines; CodeBERTScore is shown beside them.",
        "",
        *summary_lines(sections, primary),
    ]
    timings = dict(t.split("=", 1) for t in args.timings if "=" in t)
    if args.total_seconds is not None:
        head += ["", f"Wall time: {args.total_seconds / 60:.1f} min ("
                 + ", ".join(f"{k} {int(v)} s" for k, v in sorted(timings.items())) + ")."]  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.md").write_text("\n".join(head + body) + "\n", encoding="utf-8")
    result = {"checkpoint": str(args.checkpoint), "primary_column": primary,
              "languages": sections, "timings": timings, "total_seconds": args.total_seconds}  # fmt: skip
    (args.out / "report.json").write_text(json.dumps(result, indent=2, default=str), "utf-8")
    print(f"wrote {args.out / 'report.md'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
