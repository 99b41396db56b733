"""Where `make quality-x`'s within-problem figure comes from on canonical-plus-mutant test rows.

    python scripts/mutant_order.py [--out outputs/quality_x] [--metrics "CodeScore (Ref&NL)" ROUGE-L]

HE-Eval-X's test rows in C++, Java, JavaScript, Go and Rust are each task's canonical solution
(which *is* the reference) and one-edit mutants of it. Kendall's τ-b within a problem then
mixes two questions: is the canonical solution above its failing mutants (every reference-based
metric gives it its maximum), and are the mutants ordered by PassRatio? A one-token edit often
leaves a string overlap unchanged, and pairs the metric ties drop out of τ-b. This counts both
parts for each metric from each language's ``scores.jsonl`` (``evaluate.py``'s per-row scores)
and its test split: canonical-versus-failing-mutant pairs ordered right, and mutant pairs of
one task whose PassRatios differ, ordered right, wrong or tied.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

from data_builders.jsonl import read_jsonl
from data_builders.languages import HUMANEVAL_X as LANGUAGES


def count(rows: list[dict], scores: dict[str, dict], metric: str) -> dict[str, int]:
    """The two parts of one metric's within-problem order on ``rows`` (one language's test)."""
    tasks: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        tasks[row["task_id"]].append(row)
    out = dict.fromkeys(("canonical_pairs", "canonical_right", "right", "wrong", "tied"), 0)
    for candidates in tasks.values():
        canonical = [r for r in candidates if "::samples::" in r["id"]]
        mutants = [r for r in candidates if "::mutant::" in r["id"]]
        for top in (c for c in canonical if c["pass_ratio"] == 1.0):
            failing = [m for m in mutants if m["pass_ratio"] < 1.0]
            out["canonical_pairs"] += len(failing)
            out["canonical_right"] += sum(
                scores[top["id"]][metric] > scores[m["id"]][metric] for m in failing
            )
        for i, first in enumerate(mutants):
            for second in mutants[i + 1 :]:
                gold = first["pass_ratio"] - second["pass_ratio"]
                if gold == 0:
                    continue
                said = scores[first["id"]][metric] - scores[second["id"]][metric]
                out["tied" if said == 0 else "right" if said * gold > 0 else "wrong"] += 1
    return out


def cells(counts: dict[str, int]) -> str:
    """The two parts of :func:`count` as the last two cells of a markdown table row."""
    return (
        f"{counts['canonical_right']}/{counts['canonical_pairs']} | "
        f"{counts['right']} / {counts['wrong']} / {counts['tied']} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="outputs/quality_x", help="make quality-x's output folder")
    parser.add_argument("--data", default="data", help="where the he-eval-x-<language> folders are")
    parser.add_argument(
        "--metrics", nargs="+", default=["CodeScore (Ref&NL)", "ROUGE-L", "CodeBLEU"]
    )
    args = parser.parse_args()
    print(
        "| language | metric | canonical above its failing mutants | mutant pairs right / wrong / tied |"
    )
    print("| --- | --- | --- | --- |")
    for language in LANGUAGES:
        scores_file = Path(args.out) / language / "scores.jsonl"
        test_file = Path(args.data) / f"he-eval-x-{language}" / "test.jsonl"
        if not scores_file.is_file() or not test_file.is_file():
            continue
        scores = {row["id"]: row for row in read_jsonl(scores_file)}
        rows = read_jsonl(test_file)
        for metric in args.metrics:
            print(f"| {language} | {metric} | {cells(count(rows, scores, metric))}")


if __name__ == "__main__":
    main()
