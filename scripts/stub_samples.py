"""A samples file with stub candidates beside a real one (issue 27, stage three arm G).

    python scripts/stub_samples.py --problems ../shared/data/mbpp_sanitized_humaneval_format.jsonl \\
        --samples ../shared/data/mbpp_generations.jsonl --out data/samples/mbpp_generations_stubs.jsonl

Writes every line of ``--samples`` unchanged, then one line per problem and stub body of
``configs/build/stubs.yaml`` (:mod:`data_builders.candidates.stubs`); ``build`` then labels
them all. The output is a build input under ``data/`` (not committed: it holds the shelf's
generations).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from data_builders.candidates.stubs import DEFAULT_CONFIG, StubConfig, stub_lines  # noqa: E402
from data_builders.errors import UserError  # noqa: E402
from data_builders.jsonl import iter_jsonl, write_jsonl  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--problems", type=Path, required=True, help="HumanEval-shaped problems")
    parser.add_argument("--samples", type=Path, required=True, help="the real samples file")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--config", type=Path, default=DEFAULT_CONFIG)
    args = parser.parse_args(argv)
    try:
        config = StubConfig.from_yaml(args.config)
        task_ids = [row["task_id"] for _, row in iter_jsonl(args.problems, required=("task_id",))]
        real = [row for _, row in iter_jsonl(args.samples, required=("task_id",))]
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    n = write_jsonl(args.out, [*real, *stub_lines(task_ids, config)])
    print(f"{len(real)} samples + {n - len(real)} stubs of {len(task_ids)} problems -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
