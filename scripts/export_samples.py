"""Write the generated candidates of a built folder as a samples file (``task_id``,
``completion``, ``generator``), so that the programs a slow generator made can be committed
and a later build only labels them (issue 27 item 2: samples committed, labels recomputed).

    python scripts/export_samples.py --data data/he-eval-x-js-local2 \\
        --problems-file ../shared/data/humaneval_x/humaneval_js.jsonl.gz \\
        --out samples/humaneval_x_js_smollm2_local2.jsonl.gz

A completion is the candidate's program after the task's prompt, so ``build humaneval-x
--samples`` makes the same program (prompt + completion) the generating build labelled.
Only rows whose ``source`` starts with ``generate:`` are written, in the folder's order.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from data_builders.errors import UserError
from data_builders.jsonl import read_jsonl, write_jsonl
from data_builders.problems.humaneval_x import load_humaneval_x_file


def generated_samples(data: Path, problems_file: Path) -> list[dict[str, str]]:
    """The folder's generated rows as samples lines, in ``<task>::generate::<k>`` order."""
    problems = load_humaneval_x_file(problems_file)
    rows = [
        row
        for split in ("train", "dev", "test")
        if (data / f"{split}.jsonl").is_file()
        for row in read_jsonl(data / f"{split}.jsonl")
        if str(row.get("source", "")).startswith("generate:")
    ]
    if not rows:
        raise UserError(f"{data}: no generated rows (source generate:...)")
    out = []
    for row in sorted(rows, key=lambda r: (_number(r["task_id"]), r["id"])):
        prompt = problems[row["task_id"]].prompt
        if not row["program"].startswith(prompt):
            raise UserError(f"{data}: {row['id']}'s program does not start with its prompt")
        out.append(
            {
                "task_id": row["task_id"],
                "completion": row["program"][len(prompt) :],
                "generator": row["source"].removeprefix("generate:"),
            }
        )
    return out


def _number(task_id: str) -> int:
    return int(task_id.rsplit("/", 1)[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, required=True, help="a built folder")
    parser.add_argument("--problems-file", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True, help=".jsonl or .jsonl.gz")
    args = parser.parse_args(argv)
    try:
        samples = generated_samples(args.data, args.problems_file)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    write_jsonl(args.out, samples)
    print(f"{args.out}: {len(samples)} samples", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
