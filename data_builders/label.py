"""``python -m data_builders label``: label human-eval-style samples by running their tests.

Reads samples (``{"task_id": ..., "completion": ...}``, ``.jsonl`` or ``.jsonl.gz``, extra
fields kept) and writes one line per sample with ``pass_ratio``, ``executable``, ``passed``,
``n_tests``, ``status_counts`` and ``isolation``. Every sample is validated before anything
runs, and the output appears only when complete (atomic rename).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.jsonl import atomic_writer, dumps, iter_jsonl
from data_builders.problems.base import Problem

PROBLEM_SETS = ("humaneval", "mbpp")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "label",
        help="run samples against their problems' tests and write pass ratios",
        description="Label human-eval-style samples by running them against their problems'"
        " tests in the sandboxed executor; one output line per sample.",
    )
    parser.add_argument("--problems", required=True, choices=PROBLEM_SETS)
    parser.add_argument(
        "--problems-file",
        type=Path,
        help="HumanEval-shaped problems file (required for mbpp; overrides the humaneval package)",
    )
    parser.add_argument("--samples", required=True, type=Path, help="samples .jsonl[.gz]")
    parser.add_argument("--out", required=True, type=Path, help="results .jsonl[.gz]")
    parser.add_argument("--workers", type=int, default=None, help="default: one per CPU core")
    parser.add_argument("--timeout", type=float, default=3.0, help="per-test CPU seconds")
    parser.add_argument(
        "--max-timeouts",
        type=int,
        default=None,
        help="after N tests of a sample time out, label its other tests timeout without running"
        " them (faster on hanging programs; pass_ratio may then under-count). Default: run all",
    )
    parser.set_defaults(func=run)


def load_problems(name: str, problems_file: Path | None) -> dict[str, Problem]:
    """The problem set for ``--problems``/``--problems-file``."""
    from data_builders.problems.humaneval import load_humaneval, load_humaneval_file

    if problems_file is not None:
        return load_humaneval_file(problems_file)
    if name == "mbpp":
        raise UserError(
            "--problems mbpp needs --problems-file PATH (a HumanEval-shaped MBPP file, e.g. "
            "mbpp_sanitized_humaneval_format.jsonl)"
        )
    return load_humaneval()


def read_samples(path: Path, problems: dict[str, Problem]) -> list[dict[str, Any]]:
    """All samples, checked up front: fields present, strings, known task ids."""
    samples = []
    for line, sample in iter_jsonl(path, required=("task_id", "completion"), what="sample"):
        if not isinstance(sample["completion"], str):
            raise UserError(f"{path}:{line}: 'completion' must be a string")
        if sample["task_id"] not in problems:
            raise UserError(
                f"{path}:{line}: unknown task_id {sample['task_id']!r} (not in the problem set;"
                " check --problems / --problems-file)"
            )
        samples.append(sample)
    if not samples:
        raise UserError(f"{path}: no samples in the file")
    return samples


def run(args: argparse.Namespace) -> int:
    from data_builders.execution import ExecutionLimits, Executor
    from data_builders.problems.humaneval import make_program

    if args.timeout <= 0:
        raise UserError("--timeout must be positive (seconds of CPU time per test)")
    if args.workers is not None and args.workers < 1:
        raise UserError("--workers must be at least 1")
    if args.max_timeouts is not None and args.max_timeouts < 1:
        raise UserError("--max-timeouts must be at least 1 (or left out to run every test)")
    problems = load_problems(args.problems, args.problems_file)
    samples = read_samples(args.samples, problems)

    def programs() -> Iterator[Any]:
        for sample in samples:
            yield make_program(problems[sample["task_id"]], sample["completion"])

    limits = ExecutionLimits(timeout=args.timeout, max_timeouts=args.max_timeouts)
    passed = 0
    with (
        Executor(workers=args.workers, limits=limits) as executor,
        atomic_writer(args.out) as handle,
    ):
        results = executor.map(_Sized(programs(), len(samples)), progress="label")
        for sample, result in zip(samples, results, strict=True):
            row = {**sample, **result.to_dict()}
            passed += row["passed"]
            handle.write(dumps(row) + "\n")
    print(f"labelled {len(samples)} samples ({passed} passed all tests) -> {args.out}")
    return 0


class _Sized:
    """An iterator with a length, so the progress bar knows the total."""

    def __init__(self, iterator: Iterator[Any], length: int) -> None:
        self._iterator, self._length = iterator, length

    def __iter__(self) -> Iterator[Any]:
        return self._iterator

    def __len__(self) -> int:
        return self._length
