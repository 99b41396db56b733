"""The rows of a built split whose task number lies in a range, as a folder evaluate.py reads.

    python scripts/task_subset.py --data data/he-multi --split test --tasks 82-163 \\
        --out data/he-multi-82-163

Why: `make quality`'s fine-tuned setting trains on HumanEval problems 0-81 and is scored on
problems 82-163 only, on the *same* rows the zero-shot evaluation scored (HE-Eval's CodeGen-16B
samples, the 39 generators' programs), so the two settings compare row for row. The rows are
copied unchanged (labels, ``source``: ``generators=`` still finds each row's generator); the task
number is the one after the last ``/`` of ``task_id`` (``HumanEval/82`` -> 82). Rewritten on every
run (seconds), so it always follows its source; ``subset.json`` records source and range.
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
from data_builders.problems.base import task_number  # noqa: E402
from unice.evaluation.provenance import file_sha256  # noqa: E402


def task_range(text: str) -> tuple[int, int]:
    """``"82-163"`` -> ``(82, 163)`` (inclusive); a bad range is a one-line error."""
    first, sep, last = text.partition("-")
    if not (sep and first.isdigit() and last.isdigit()) or int(first) > int(last):
        raise UserError(f"--tasks {text!r}: give FIRST-LAST task numbers, e.g. 82-163")
    return int(first), int(last)


def subset_rows(path: Path, first: int, last: int) -> list[dict]:
    """The rows of ``path`` whose task number is in ``first..last``, in file order.

    Raises:
        UserError: the file is unreadable, a task id has no number, or no row is in range.
    """
    rows = [
        row
        for _, row in iter_jsonl(path, required=("id", "task_id"), what="sample")
        if first <= task_number(str(row["task_id"])) <= last
    ]
    if not rows:
        raise UserError(f"{path}: no row of tasks {first}-{last}; is it the right split?")
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a built dataset folder")
    parser.add_argument("--split", default="test")
    parser.add_argument("--tasks", required=True, help="FIRST-LAST task numbers, inclusive")
    parser.add_argument("--out", type=Path, required=True, help="folder to write <split>.jsonl")
    args = parser.parse_args(argv)
    source = args.data / f"{args.split}.jsonl"
    try:
        first, last = task_range(args.tasks)
        if not source.is_file():
            raise UserError(f"{source} does not exist: build {args.data} first (make quality)")
        rows = subset_rows(source, first, last)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    write_jsonl(args.out / f"{args.split}.jsonl", rows)
    info = {
        "source": str(source),
        "source_sha256": file_sha256(source),
        "tasks": [first, last],
        "rows": len(rows),
        "problems": len({row["task_id"] for row in rows}),
    }
    (args.out / "subset.json").write_text(json.dumps(info, indent=2) + "\n", encoding="utf-8")
    print(f"{args.out}/{args.split}.jsonl: {info['rows']} rows of {info['problems']} problems")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
