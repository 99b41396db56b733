"""One evaluation's CodeScore columns for a subset of its rows, renamed, as a scores file.

    python scripts/zero_shot_scores.py --evaluation outputs/quality/he-eval \\
        --rows data/he-eval-zs-82-163/test.jsonl --out outputs/quality/finetuned/zero-shot-he.jsonl

Why: `make quality` scores the fine-tuned model on HumanEval problems 82-163 and must set the
zero-shot model beside it on the same rows, with paired intervals. The zero-shot evaluation has
already scored those rows (its ``scores.jsonl``); this writes its CodeScore columns (``kind:
codescore`` in its ``report.json``) for the subset's ids as ``zero-shot <column>``, which
evaluate.py reads as ``scores=FILE`` (one more column of the fine-tuned run: the paired bootstrap
then compares the two models on the same problem resamples) instead of scoring every row again.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from data_builders.errors import UserError  # noqa: E402
from data_builders.jsonl import iter_jsonl, write_jsonl  # noqa: E402

PREFIX = "zero-shot "
"""What the zero-shot model's columns are called in the fine-tuned evaluation (scripts/
quality_report.py reads the same prefix)."""


def codescore_columns(evaluation: Path) -> list[str]:
    """The CodeScore column names of an evaluate.py output folder (its ``report.json``)."""
    report = evaluation / "report.json"
    if not report.is_file():
        raise UserError(f"{report} does not exist: run the zero-shot evaluation first")
    metrics = json.loads(report.read_text(encoding="utf-8")).get("metrics") or []
    names = [m["name"] for m in metrics if m.get("kind") == "codescore"]
    if not names:
        raise UserError(f"{report} has no CodeScore column: evaluate with ckpt_path=...")
    return names


def carried_scores(
    evaluation: Path, rows: Path, prefix: str = PREFIX
) -> list[dict[str, float | str | None]]:
    """``{"id", "<prefix><column>": score}`` for every row of ``rows``, in its order.

    Raises:
        UserError: a file is missing, or a row of ``rows`` was not scored by ``evaluation``.
    """
    names = codescore_columns(evaluation)
    scored = {
        str(line["id"]): line
        for _, line in iter_jsonl(evaluation / "scores.jsonl", required=("id",), what="score line")
    }
    out = []
    for _, row in iter_jsonl(rows, required=("id",), what="sample"):
        line = scored.get(str(row["id"]))
        if line is None:
            raise UserError(
                f"{rows}: row {row['id']!r} is not in {evaluation}/scores.jsonl; the subset must "
                "come from the split that evaluation scored (rerun both)"
            )
        out.append({"id": str(row["id"]), **{prefix + n: line.get(n) for n in names}})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evaluation", type=Path, required=True, help="evaluate.py output folder")
    parser.add_argument("--rows", type=Path, required=True, help="the subset's split file")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--prefix", default=PREFIX)
    args = parser.parse_args(argv)
    try:
        lines = carried_scores(args.evaluation, args.rows, args.prefix)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    write_jsonl(args.out, lines)
    print(f"{args.out}: {len(lines)} rows, columns {', '.join(k for k in lines[0] if k != 'id')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
