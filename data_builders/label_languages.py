"""``label --problems humaneval-x|multipl-e``: label samples in C++, Java, JavaScript, Go, Rust.

Same input and output as the Python ``label`` (one line per sample with ``pass_ratio``,
``executable``, ``passed``, ``n_tests``, ``status_counts``, ``isolation``), with the
programs compiled and run by :mod:`data_builders.execution.foreign`: one test per assertion.
Problems come from ``--problems-file`` or, per language found in the samples' task ids,
from the hub dataset ``THUDM/humaneval-x``; MultiPL-E rows from ``--problems-file`` or the
hub's ``nuprl/MultiPL-E`` config ``humaneval-<--language>`` (label only: its license
forbids training on it). A missing toolchain is one line naming what to
install, before anything runs.

Time limits: HumanEval-X assertions get limits calibrated from the task's canonical solution
(:func:`calibrate`, as ``build humaneval-x`` and the Python ``label`` do), so a program that
loops costs about what the canonical allows, not a flat 3 s; MultiPL-E has no reference
solution, so its assertions get ``languages.yaml``'s flat ``timeout``; ``--timeout`` gives every
assertion that many seconds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.jsonl import atomic_writer, dumps, iter_jsonl
from data_builders.problems.base import Problem


def humaneval_x_problems(problems_file: Path | None, task_ids: set[str]) -> dict[str, Problem]:
    """The HumanEval-X problems for ``task_ids`` (file, else hub per language)."""
    from data_builders.problems.humaneval_x import (
        PREFIXES,
        language_of,
        load_humaneval_x_file,
        load_humaneval_x_hub,
    )

    if problems_file is not None:
        return load_humaneval_x_file(problems_file)
    languages = {language_of(t) for t in task_ids}
    if None in languages:
        bad = sorted(t for t in task_ids if language_of(t) is None)[0]
        raise UserError(
            f"task_id {bad!r} is not a HumanEval-X id ({', '.join(p + '/N' for p in PREFIXES)});"
            " check --samples or pass --problems-file"
        )
    problems: dict[str, Problem] = {}
    for language in sorted(languages):  # type: ignore[type-var]
        problems.update(load_humaneval_x_hub(language))
    return problems


def read_samples(path: Path) -> list[dict[str, Any]]:
    samples = []
    for line, sample in iter_jsonl(path, required=("task_id", "completion"), what="sample"):
        if not isinstance(sample["completion"], str) or not isinstance(sample["task_id"], str):
            raise UserError(f"{path}:{line}: 'task_id' and 'completion' must be strings")
        samples.append({**sample, "_line": line})
    if not samples:
        raise UserError(f"{path}: no samples in the file")
    return samples


def check_toolchains(languages: set[str]) -> None:
    """One line naming every missing compiler/runtime (and what to install)."""
    from data_builders.execution.languages import LANGUAGES, get_language

    problems = []
    for name in sorted(languages):
        if name not in LANGUAGES:
            problems.append(f"{name}: not supported yet (supported: {', '.join(LANGUAGES)})")
            continue
        missing = get_language(name).missing_toolchain()
        if missing:
            problems.append(missing)
    if problems:
        raise UserError("cannot label: " + "; ".join(problems))


def run_humaneval_x(args: argparse.Namespace) -> int:
    from data_builders.execution.foreign import ForeignProgram
    from data_builders.problems.humaneval_x import canonical_solution, program_and_test

    _check_args(args)
    samples = read_samples(args.samples)
    problems = humaneval_x_problems(args.problems_file, {s["task_id"] for s in samples})
    _check_task_ids(args, samples, problems)
    programs = []
    for sample in samples:
        problem = problems[sample["task_id"]]
        source, test = program_and_test(problem, sample["completion"])
        programs.append(ForeignProgram(problem.metadata["language"], source, test))
    references = {}
    for task_id in sorted({s["task_id"] for s in samples}):
        problem = problems[task_id]
        source, test = program_and_test(problem, canonical_solution(problem))
        references[task_id] = ForeignProgram(problem.metadata["language"], source, test)
    return _label(args, samples, programs, references)


def run_multipl_e(args: argparse.Namespace) -> int:
    """MultiPL-E: the program is prompt + completion (cut at the first stop token) + "\\n" +
    tests, as MultiPL-E's evaluator builds it; samples match by ``task_id == name``."""
    from data_builders.execution.foreign import ForeignProgram
    from data_builders.execution.languages import ALIASES
    from data_builders.problems.multipl_e import load_multipl_e, stop_at_stop_token

    _check_args(args)
    if args.problems_file is None and not args.language:
        raise UserError(
            "--problems multipl-e needs --problems-file PATH (a MultiPL-E .jsonl/.jsonl.gz/.json)"
            " or --language L (the hub's nuprl/MultiPL-E humaneval-L)"
        )
    samples = read_samples(args.samples)
    source = str(args.problems_file) if args.problems_file is not None else None
    problems = {p.task_id: p for p in load_multipl_e(source, args.language)}
    _check_task_ids(args, samples, problems)
    programs = []
    for sample in samples:
        problem = problems[sample["task_id"]]
        language = ALIASES.get(problem.metadata["language"], problem.metadata["language"])
        cut = stop_at_stop_token(sample["completion"], problem.metadata["stop_tokens"])
        programs.append(ForeignProgram(language, problem.prompt + cut, problem.test or ""))
    return _label(args, samples, programs)


def _check_args(args: argparse.Namespace) -> None:
    if args.timeout is not None and args.timeout <= 0:
        raise UserError("--timeout must be positive (seconds of CPU time per assertion)")
    if args.workers is not None and args.workers < 1:
        raise UserError("--workers must be at least 1")


def _check_task_ids(
    args: argparse.Namespace, samples: list[dict[str, Any]], problems: dict[str, Any]
) -> None:
    for sample in samples:
        if sample["task_id"] not in problems:
            raise UserError(
                f"{args.samples}:{sample['_line']}: unknown task_id {sample['task_id']!r} (not in"
                " the problem set; check --problems-file)"
            )


def _warn_unsplit(samples: list[dict[str, Any]], programs: list[Any]) -> None:
    """One line naming the tasks whose test has no assertion the language recognises."""
    from data_builders.execution.languages import SplitError, get_language

    seen: dict[str, bool] = {}
    for sample, program in zip(samples, programs, strict=True):
        if sample["task_id"] not in seen:
            try:
                get_language(program.language).split(program.test)
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


def calibrate(
    args: argparse.Namespace,
    samples: list[dict[str, Any]],
    programs: list[Any],
    references: dict[str, Any],
    executor: Any,
    limits: Any,
) -> None:
    """Give every program per-assertion CPU limits from its task's canonical solution, as
    ``build humaneval-x`` does: ``limits.yaml``'s factor times the canonical's time on each
    assertion, at least ``languages.yaml``'s ``calibrated_floor``, at most its ``timeout`` (which
    an assertion the canonical fails keeps). Times are cached like the Python references'."""
    from data_builders.dataset.humaneval_x import assertion_policy
    from data_builders.execution.calibrate import (
        DEFAULT_CONFIG,
        LimitConfigError,
        ReferenceTimes,
        default_cache,
        foreign_reference_key,
        limits_by_task,
        load_policy,
    )

    try:
        policy = assertion_policy(load_policy(DEFAULT_CONFIG), limits)
    except LimitConfigError as exc:
        raise UserError(f"{exc} (fix the file or pass --timeout SECONDS)") from None
    cache_path = args.reference_cache or default_cache()
    cache = ReferenceTimes(None if str(cache_path) == "none" else cache_path, foreign_reference_key)
    per_task = limits_by_task(
        references, executor, policy, cache, "canonical solutions", "assertions"
    )
    for sample, program in zip(samples, programs, strict=True):
        program.test_timeouts = per_task[sample["task_id"]] or None


def _label(
    args: argparse.Namespace,
    samples: list[dict[str, Any]],
    programs: list[Any],
    references: dict[str, Any] | None = None,
) -> int:
    """Run ``programs`` (one per sample) and write the labelled samples; with ``references``
    (task id -> canonical program) and no ``--timeout``, under limits calibrated from them."""
    from data_builders.execution.foreign import ForeignExecutor, ForeignLimits

    check_toolchains({program.language for program in programs})
    _warn_unsplit(samples, programs)
    try:
        limits = (
            ForeignLimits.from_yaml(args.limits, timeout=args.timeout)
            if args.limits
            else (ForeignLimits.from_yaml(timeout=args.timeout))
        )
    except (OSError, ValueError, TypeError) as exc:
        raise UserError(f"limits: {exc} (fix the file or leave --limits out)") from None
    passed = 0
    with (
        ForeignExecutor(workers=args.workers, limits=limits) as executor,
        atomic_writer(args.out) as out,
    ):
        if references and args.timeout is None:
            calibrate(args, samples, programs, references, executor, limits)
        for sample, result in zip(samples, executor.map(programs, "label"), strict=True):
            row = {k: v for k, v in sample.items() if k != "_line"}
            row.update(result.to_dict())
            passed += row["passed"]
            out.write(dumps(row) + "\n")
    print(f"labelled {len(samples)} samples ({passed} passed all tests) -> {args.out}")
    return 0
