"""``label``'s problem sets in C++, Java, JavaScript, Go, Rust: HumanEval-X and MultiPL-E.

A helper of :mod:`data_builders.label`, which runs every problem set by one path (one
executor from :func:`~data_builders.execution.backend.open_executor`, local or Ray, and one
resumable output); this module says, for these sets, which samples there are, the program
of each, the limits and how they are calibrated. The programs run on the foreign executor
(:mod:`data_builders.execution.foreign`): one test per assertion.

Problems come from ``--problems-file`` or, per language found in the samples' task ids,
from the hub dataset ``THUDM/humaneval-x``; MultiPL-E rows from ``--problems-file`` or the
hub's ``nuprl/MultiPL-E`` config ``humaneval-<--language>`` (label only: its license
forbids training on it). A missing toolchain is one line naming what to install, before
anything runs.

Time limits: HumanEval-X assertions get limits calibrated from the task's canonical solution
(:func:`calibrate`, as ``build humaneval-x`` and the Python ``label`` do), so a program that
loops costs about what the canonical allows, not a flat 3 s; MultiPL-E has no reference
solution, so its assertions get ``limits.yaml``'s flat compiled ``timeout``; ``--timeout`` gives every
assertion that many seconds.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.jsonl import iter_jsonl
from data_builders.problems.base import Problem


@dataclass
class ForeignSamples:
    """The samples of a HumanEval-X or MultiPL-E ``label`` run, checked, and their programs.

    ``samples`` are as read (in order, every field kept); ``program`` makes a sample's
    ``ForeignProgram``; ``references`` (task id -> the canonical solution's program) where
    the problem set has them; ``languages``: the languages of the programs.
    """

    samples: list[dict[str, Any]]
    program: Callable[[dict[str, Any]], Any]
    references: dict[str, Any] | None
    languages: set[str]


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


def read_samples(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line number, sample) for every sample; task_id and completion must be strings."""
    samples = []
    for line, sample in iter_jsonl(path, required=("task_id", "completion"), what="sample"):
        if not isinstance(sample["completion"], str) or not isinstance(sample["task_id"], str):
            raise UserError(f"{path}:{line}: 'task_id' and 'completion' must be strings")
        samples.append((line, sample))
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


def load(args: argparse.Namespace) -> ForeignSamples:
    """The samples of ``--problems humaneval-x|multipl-e``, checked (task ids known, every
    language's toolchain installed), and their programs."""
    found = humaneval_x(args) if args.problems == "humaneval-x" else multipl_e(args)
    check_toolchains(found.languages)
    _warn_unsplit(found)
    return found


def humaneval_x(args: argparse.Namespace) -> ForeignSamples:
    from data_builders.execution.foreign import ForeignProgram
    from data_builders.problems.humaneval_x import canonical_solution, program_and_test

    numbered = read_samples(args.samples)
    problems = humaneval_x_problems(args.problems_file, {s["task_id"] for _, s in numbered})
    _check_task_ids(args, numbered, problems)

    def program(sample: dict[str, Any]) -> ForeignProgram:
        problem = problems[sample["task_id"]]
        source, test = program_and_test(problem, sample["completion"])
        return ForeignProgram(problem.metadata["language"], source, test)

    references = {}
    for task_id in sorted({s["task_id"] for _, s in numbered}):
        problem = problems[task_id]
        source, test = program_and_test(problem, canonical_solution(problem))
        references[task_id] = ForeignProgram(problem.metadata["language"], source, test)
    languages = {program.language for program in references.values()}
    return ForeignSamples([s for _, s in numbered], program, references, languages)


def multipl_e(args: argparse.Namespace) -> ForeignSamples:
    """MultiPL-E: the program is prompt + completion (cut at the first stop token) + "\\n" +
    tests, as MultiPL-E's evaluator builds it; samples match by ``task_id == name``."""
    from data_builders.execution.foreign import ForeignProgram
    from data_builders.execution.languages import ALIASES
    from data_builders.problems.multipl_e import load_multipl_e, stop_at_stop_token

    if args.problems_file is None and not args.language:
        raise UserError(
            "--problems multipl-e needs --problems-file PATH (a MultiPL-E .jsonl/.jsonl.gz/.json)"
            " or --language L (the hub's nuprl/MultiPL-E humaneval-L)"
        )
    numbered = read_samples(args.samples)
    source = str(args.problems_file) if args.problems_file is not None else None
    problems = {p.task_id: p for p in load_multipl_e(source, args.language)}
    _check_task_ids(args, numbered, problems)

    def language(problem: Problem) -> str:
        return ALIASES.get(problem.metadata["language"], problem.metadata["language"])

    def program(sample: dict[str, Any]) -> ForeignProgram:
        problem = problems[sample["task_id"]]
        cut = stop_at_stop_token(sample["completion"], problem.metadata["stop_tokens"])
        return ForeignProgram(language(problem), problem.prompt + cut, problem.test or "")

    languages = {language(problems[s["task_id"]]) for _, s in numbered}
    return ForeignSamples([s for _, s in numbered], program, None, languages)


def _check_task_ids(
    args: argparse.Namespace, numbered: list[tuple[int, dict[str, Any]]], problems: dict[str, Any]
) -> None:
    for line, sample in numbered:
        if sample["task_id"] not in problems:
            raise UserError(
                f"{args.samples}:{line}: unknown task_id {sample['task_id']!r} (not in"
                " the problem set; check --problems-file)"
            )


def _warn_unsplit(found: ForeignSamples) -> None:
    """One line naming the tasks whose test has no assertion the language recognises."""
    from data_builders.execution.languages import SplitError, get_language

    seen: dict[str, bool] = {}
    for sample in found.samples:
        if sample["task_id"] not in seen:
            program = found.program(sample)
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


def limits(args: argparse.Namespace) -> Any:
    """The compiled languages' limits of ``limits.yaml`` (or ``--limits``) with ``--timeout``
    on top."""
    from data_builders.execution.foreign_limits import ForeignLimits

    try:
        if args.limits:
            return ForeignLimits.from_yaml(args.limits, timeout=args.timeout)
        return ForeignLimits.from_yaml(timeout=args.timeout)
    except (OSError, ValueError, TypeError) as exc:
        raise UserError(f"limits: {exc} (fix the file or leave --limits out)") from None


def assertion_policy(foreign: Any, languages: Iterable[str]) -> Any:
    """The per-assertion calibration policy, as ``build humaneval-x`` uses it:
    ``limits.yaml``'s python factor, its floor raised to the language's calibrated floor
    (its own section's, else ``compiled``'s), its cap ``compiled``'s
    ``timeout`` (which an assertion the canonical fails keeps). One policy serves the run:
    where its ``languages`` have different floors, the highest."""
    from data_builders.execution.calibrate import DEFAULT_CONFIG, LimitConfigError, load_policy
    from data_builders.execution.limits import assertion_policy

    try:
        return assertion_policy(load_policy(DEFAULT_CONFIG), foreign, *sorted(languages))
    except LimitConfigError as exc:
        raise UserError(f"{exc} (fix the file or pass --timeout SECONDS)") from None


def calibrate(
    args: argparse.Namespace, references: dict[str, Any], executor: Any, policy: Any
) -> dict[str, list[float] | None]:
    """Per-assertion CPU limits for each task (None: the flat limit), from its canonical
    solution's time on each assertion under ``policy`` (:func:`assertion_policy`). Times are
    cached like the Python references'."""
    from data_builders.execution.calibrate import (
        ReferenceTimes,
        default_cache,
        foreign_reference_key,
        limits_by_task,
    )

    cache_path = args.reference_cache or default_cache()
    cache = ReferenceTimes(None if str(cache_path) == "none" else cache_path, foreign_reference_key)
    per_task = limits_by_task(
        references, executor, policy, cache, "canonical solutions", "assertions"
    )
    return {task: per_test or None for task, per_test in per_task.items()}


def row_settings(
    args: argparse.Namespace, found: ForeignSamples, foreign: Any, policy: Any
) -> dict[str, Any]:
    """What decides these rows beyond ``label``'s own settings: the language limits, the
    MultiPL-E hub config, and the calibration policy (None: flat limits)."""
    return {
        "language": args.language,
        "language_limits": foreign.as_settings(),
        "languages": sorted(found.languages),
        "assertion_limits": dataclasses.asdict(policy) if policy is not None else None,
    }
