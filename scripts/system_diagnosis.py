"""Why a metric orders generators as it does: per-generator means, ranks and displacements, and
the system-level tau raw / centred per problem / on common problems (issue 43 item 4).

    python scripts/system_diagnosis.py outputs/quality/he-multi --out outputs/system_level/he-multi
    python scripts/system_diagnosis.py --scores S.jsonl --data data/he-multi --split test \\
        --samples ../shared/data/humaneval_generations_multi.jsonl --out DIR
    python scripts/system_diagnosis.py EVAL_REAL EVAL_OPEN --family qwen --min-rows 5 --out DIR

Writes DIR/diagnosis.{md,json,png} and prints the markdown. Logic:
unice/evaluation/system_diagnosis.py; findings: docs/experiments/system_level.md.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from data_builders.errors import UserError  # noqa: E402
from data_builders.jsonl import iter_jsonl  # noqa: E402
from unice.data.families import load_families  # noqa: E402
from unice.evaluation.errors import EvaluationError  # noqa: E402
from unice.evaluation.system_diagnosis import (  # noqa: E402
    VARIANTS,
    SystemRows,
    diagnose,
    mark_over_window,
    read_evaluation,
    read_rows,
)
from unice.evaluation.system_diagnosis_report import write  # noqa: E402

FAMILIES = ROOT / "configs" / "data" / "transfer.yaml"


def family_patterns(name: str, config: Path = FAMILIES) -> list[str]:
    """The generator patterns of one family of ``data.families`` (configs/data/transfer.yaml)."""
    families = load_families(config)
    if name not in families:
        raise UserError(f"--family {name!r} is not a family of {config} ({', '.join(families)})")
    return families[name]


def programs(rows: SystemRows) -> list[str]:
    """The program text of each row (read again from the split files the rows came from)."""
    texts: dict[str, str] = {}
    for data in str(rows.source.get("data", "")).split("; "):
        for _, row in iter_jsonl(Path(data), required=("id", "generated"), what="row"):
            texts[str(row["id"])] = str(row["generated"])
    return [texts[i] for i in rows.ids]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "evaluation", nargs="*", type=Path, help="evaluate.py output folder(s), read as one set"
    )
    parser.add_argument("--scores", type=Path, help="a scores.jsonl (instead of a folder)")
    parser.add_argument("--data", help="with --scores: the dataset folder or JSONL")
    parser.add_argument("--split", default="test", help="with --scores: the split (test)")
    parser.add_argument("--samples", help="with --scores: the samples file (generators=)")
    parser.add_argument("--only", action="append", default=[], help="generator pattern to keep")
    parser.add_argument(
        "--family", help="keep one family's generators (configs/data/transfer.yaml)"
    )
    parser.add_argument("--metrics", nargs="*", default=[], help="columns (default: all)")
    parser.add_argument(
        "--out", type=Path, required=True, help="folder for diagnosis.{md,json,png}"
    )
    parser.add_argument("--n-resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--min-common", type=int, default=10)
    parser.add_argument("--min-rows", type=int, default=1, help="drop smaller generators")
    parser.add_argument(
        "--window-of",
        type=Path,
        help="a checkpoint: per generator, the share of programs longer than its token window",
    )
    parser.add_argument(
        "--variants",
        nargs="+",
        default=list(VARIANTS),
        help=f"figures to compute (default: all of {', '.join(VARIANTS)}; raw always)",
    )
    parser.add_argument("--title", default="System-level diagnosis")
    args = parser.parse_args(argv)
    try:
        only = list(args.only) + (family_patterns(args.family) if args.family else [])
        if args.evaluation:
            rows = SystemRows.concat(
                [read_evaluation(folder, (), args.metrics) for folder in args.evaluation]
            )
            rows = rows.matching(only) if only else rows
        elif args.scores and args.data:
            rows = read_rows(args.scores, args.data, args.split, args.samples, only, args.metrics)
        else:
            raise UserError("pass an evaluate.py output folder, or --scores FILE and --data DIR")
        rows = rows.at_least(args.min_rows)
        if args.window_of:
            mark_over_window(rows, programs(rows), args.window_of)
        diagnosis = diagnose(
            rows, args.n_resamples, args.seed, args.min_common, variants=args.variants
        )
        paths = write(diagnosis, args.out, args.title)
    except (UserError, EvaluationError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print((args.out / "diagnosis.md").read_text())
    print("wrote", ", ".join(str(p) for p in paths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
