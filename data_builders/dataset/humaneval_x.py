"""``build humaneval-x --language L``: HE-Eval-X, HE-Eval's dataset in C++, Java, JavaScript,
Go or Rust.

The same dataset as ``build humaneval`` (splits by problem, labels, card, resume, shards,
``--check``; :mod:`data_builders.dataset.pipeline` does all of that), with the tests and the
executor of another language:

1. **tests**: each HumanEval-X task's own assertions, then HE-Eval's extended inputs (the
   suites ``build humaneval`` makes, from the same extension cache) written as assertions of
   language L through the task's declared types (:mod:`data_builders.test_translation`). Their
   expected values are the Python reference's, so the task's canonical solution in L is run
   on all of them, and only the translated assertions it passes are kept: a C++ ``float``
   result or a Rust ``u32`` that underflows is the language's answer, not a wrong test. It
   then runs again on the test candidates will get (``canonical_runs``, ``limits.yaml``: 2
   runs in all), and an assertion it fails there is dropped too: a canonical with undefined
   behaviour (HumanEval-X's CPP/160 reads past its vectors on some inputs) can pass an
   assertion in one test and crash on it in a smaller one. The card says how many were
   dropped and why (untranslatable, canonical fails).
2. **limits**: the last canonical run gives each kept assertion's CPU time; a candidate gets
   ``clamp(factor x that time, floor, cap)`` per assertion (``configs/build/limits.yaml``:
   ``python``'s policy, that of Python's ``build`` and ``label``), with ``floor`` and ``cap``
   raised to the language's calibrated floor and the ``compiled`` section's ``timeout`` (see
   :func:`~data_builders.execution.limits.assertion_policy`).
3. **labels**: every candidate compiled once and run once on all its assertions in the
   sandbox (:mod:`data_builders.execution.compiled.pool`), one status per assertion.

Each task's final test and limits are stored with its progress record, so a resumed build
neither re-extends nor re-runs the canonical solutions.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from types import ModuleType
from typing import Any

from data_builders.candidates.base import Candidate
from data_builders.dataset.card import CardExtras
from data_builders.dataset.convention import code_without_prompt, task_text
from data_builders.dataset.hooks import Labelling
from data_builders.dataset.humaneval_suites import Case, python_suites  # tests replace it here
from data_builders.dataset.humaneval_x_card import card_lines as card_lines  # re-exported
from data_builders.dataset.humaneval_x_card import translation_summary as translation_summary
from data_builders.dataset.labels import make_row
from data_builders.dataset.tasks import TaskSpec
from data_builders.errors import UserError
from data_builders.execution import (
    ForeignLimits,
    LimitPolicy,
    Program,
    ProgramResult,
    TestCode,
    assertion_policy,
)
from data_builders.problems.base import Problem, task_number
from data_builders.problems.humaneval_x import LANGUAGE_NAMES


def check_options(options: Any) -> None:
    """What HE-Eval-X refuses among ``build``'s options (or a ``BuildRequest``'s), in one
    line: it needs a language, and mutants are of the reference (``--mutant-splits`` may limit
    them to some splits, e.g. more mutants for training only)."""
    if options.language not in LANGUAGE_NAMES:
        raise UserError(
            f"build humaneval-x needs --language, one of {', '.join(LANGUAGE_NAMES)} "
            f"(got {options.language!r})"
        )
    if options.mutants_of != "reference":
        raise UserError("--mutants-of samples is for Python datasets, not humaneval-x")


def check_request(request: Any) -> None:
    """What HE-Eval-X cannot do, each in one line, before anything runs."""
    from data_builders.execution import get_language

    check_options(request)
    if request.generate:
        from data_builders.candidates.local import is_local

        if not is_local(request.generate):
            raise UserError(
                "build humaneval-x: --generate local[:GGUF] is the generator for other languages"
                " (the model continues each prompt, cut at the language's stop tokens); "
                f"{request.generate!r} answers chat instructions, searched for Python code"
            )
    missing = get_language(request.language).missing_toolchain()
    if missing:
        raise UserError(f"cannot build humaneval-x: {missing}")


# -- per-task tests --------------------------------------------------------------------------
def _row(problem: Problem) -> dict[str, Any]:
    """The HumanEval-X record the type reader wants (declaration, canonical solution, test)."""
    from data_builders.problems.humaneval_x import canonical_solution

    return {
        "task_id": problem.task_id,
        "prompt": problem.prompt,
        "declaration": problem.metadata.get("declaration", ""),
        "canonical_solution": canonical_solution(problem),
        "test": problem.test or "",
    }


def _n_cases(language: str, test: str) -> int:
    from data_builders.execution import SplitError, get_language

    try:
        return len(get_language(language).split(test))
    except (SplitError, ValueError):
        return 0


@dataclasses.dataclass
class _Prepared:
    problem: Problem
    source: str  # the canonical program
    original: str  # the task's own test
    n_original: int
    assertions: list[str]
    cases: int  # HE-Eval's extended cases for this task
    untranslatable: Counter[str]
    dropped_all: str = ""  # why every translated assertion was dropped unrun, if they were
    failed: Counter[str] = dataclasses.field(default_factory=Counter)  # dropped in earlier runs


def _prepare(
    problem: Problem, cases: Sequence[Case], entry: str | None, language: str
) -> _Prepared:
    from data_builders.problems.humaneval_x import canonical_solution, program_and_test
    from data_builders.test_translation.translate import translate_task

    source, original = program_and_test(problem, canonical_solution(problem))
    assertions, reasons = translate_task(_row(problem), cases, entry) if cases else ([], Counter())
    return _Prepared(
        problem, source, original, _n_cases(language, original), assertions, len(cases), reasons
    )


def prepare_tasks(
    problems: Sequence[tuple[int, Problem]],
    language: str,
    suites: Mapping[int, Sequence[Case]],
    entries: Mapping[int, str],
    policy: LimitPolicy,
    workers: int | None,
    backend: Any = None,
    foreign: ForeignLimits | None = None,
) -> list[dict[str, Any]]:
    """Task records (``(index, problem)`` pairs in dataset order): the final test, per-assertion
    limits and the translation figures, from one canonical run of each task on its own plus
    all translated assertions (on ``backend``'s executor, local by default), under
    ``foreign`` (default: the limits file's ``compiled`` section)."""
    from data_builders.execution import load_limits, open_executor
    from data_builders.test_translation.suites import with_extended

    foreign = foreign or load_limits().compiled
    prepared = [
        _prepare(
            p, suites.get(task_number(p.task_id), []), entries.get(task_number(p.task_id)), language
        )
        for _, p in problems
    ]
    for task in prepared:  # the driver must see the task's own cases, then one per assertion
        combined = with_extended(language, task.original, task.assertions)
        if task.assertions and _n_cases(language, combined) != task.n_original + len(
            task.assertions
        ):
            task.dropped_all = "not_split"
    # The canonical run is the reference's: no shortened limits after a timeout; its own
    # assertions get the usual limit, translated ones extended_reference_limit (slower: dropped).
    reference_limits = dataclasses.replace(foreign, after_timeout=None)
    limits = assertion_policy(policy, foreign, language)

    def canonical(task: _Prepared, extended: bool) -> Program:
        added = task.assertions if extended and not task.dropped_all else []
        timeouts = [foreign.timeout] * task.n_original
        return Program(
            task.source,
            TestCode(with_extended(language, task.original, added)),
            test_timeouts=timeouts + [foreign.extended_reference_limit] * len(added) or None,
            language=language,
        )

    with open_executor(language, reference_limits, settings=backend, workers=workers) as executor:
        programs = [canonical(t, extended=True) for t in prepared]
        results = list(executor.map(programs, "canonical solutions"))
        # Translated assertions that do not compile would take the task's own tests with
        # them: such tasks are rerun on their own tests alone and keep none.
        redo = [
            i
            for i, r in enumerate(results)
            if prepared[i].assertions
            and not prepared[i].dropped_all
            and r.status_counts.get("compile_error")
        ]
        alone = executor.map([canonical(prepared[i], extended=False) for i in redo])
        for i, result in zip(redo, alone, strict=True):
            results[i] = result
            prepared[i].dropped_all = "translation_does_not_compile"
        # Every further run is the canonical on the test candidates would get from the runs
        # so far (its own tests plus the translated assertions it passed): a program with
        # undefined behaviour (CPP/160 reads past its vectors) can pass an assertion in one
        # test and crash on it in a smaller one, whose memory layout differs.
        for _ in range(max(1, int(foreign.canonical_runs)) - 1):
            for task, result in zip(prepared, results, strict=True):
                narrow(task, result)
            again = executor.map(
                [canonical(t, extended=True) for t in prepared], "canonical, again"
            )
            results = [
                with_originals_of(before, after, task.n_original)
                for before, after, task in zip(results, again, prepared, strict=True)
            ]
    records = []
    for (index, problem), task, result in zip(problems, prepared, results, strict=True):
        records.append(_task_record(index, problem, task, result, limits, language))
    return records


def narrow(task: _Prepared, result: ProgramResult) -> None:
    """Keep only the translated assertions the canonical passed in ``result``; the others are
    counted by status in ``task.failed``."""
    if task.dropped_all:
        return
    extended = result.outcomes[task.n_original :]
    task.failed.update(o.status for o in extended if o.status != "pass")
    task.assertions = [
        a for a, o in zip(task.assertions, extended, strict=True) if o.status == "pass"
    ]


def with_originals_of(
    before: ProgramResult, after: ProgramResult, n_original: int
) -> ProgramResult:
    """``after``, whose own-test outcomes count as passed only if they passed in ``before``
    too (a canonical that fails its own test once fails it)."""
    outcomes = list(after.outcomes)
    pairs = zip(before.outcomes[:n_original], outcomes[:n_original], strict=False)
    for i, (old, new) in enumerate(pairs):  # a test that did not split has no outcomes
        if old.status != "pass":
            outcomes[i] = old
        elif new.status == "pass":
            outcomes[i] = dataclasses.replace(new, time=max(old.time, new.time))
    return dataclasses.replace(after, outcomes=outcomes)


def _task_record(
    index: int,
    problem: Problem,
    task: _Prepared,
    result: ProgramResult,
    policy: LimitPolicy,
    language: str,
) -> dict[str, Any]:
    """One task's progress record: what ``stats.json`` counts, plus the final test and limits
    (private fields, ``_``-prefixed) that labelling uses."""
    from data_builders.test_translation.suites import with_extended

    outcomes = result.outcomes
    n_original = min(task.n_original, len(outcomes))
    originals = outcomes[:n_original]
    extended = outcomes[n_original:] if len(outcomes) > n_original else []
    failed: Counter[str] = Counter(task.failed)
    kept, kept_times = [], []
    if task.dropped_all:  # run on its own tests alone: no translated assertion kept
        failed[task.dropped_all] = len(task.assertions)
    else:
        for assertion, outcome in zip(task.assertions, extended, strict=True):
            if outcome.status == "pass":
                kept.append(assertion)
                kept_times.append(outcome.time)
            else:
                failed[outcome.status] += 1
    test = with_extended(language, task.original, kept)
    times = [o.time if o.status == "pass" else None for o in originals] + kept_times
    return {
        "task_id": problem.task_id,
        "_index": index,
        "nl": task_text(problem),
        "reference": code_without_prompt(problem.reference, problem),
        "n_original": n_original,
        "n_tests": n_original + len(kept),
        "n_generated": task.cases,  # HE-Eval's extended cases offered to this task
        "reference_passes": bool(originals) and all(o.status == "pass" for o in originals),
        "translation": {
            "cases": task.cases,
            "untranslatable": sum(task.untranslatable.values()),
            "untranslatable_reasons": dict(task.untranslatable),
            "canonical_fails": dict(failed),
            "kept": len(kept),
            "canonical_original_passed": sum(o.status == "pass" for o in originals),
        },
        "_test": test,
        "_timeouts": [policy.limit(t) for t in times],
    }


# -- the build -------------------------------------------------------------------------------
def _spec(record: Mapping[str, Any], problem: Problem) -> TaskSpec:
    """The :class:`TaskSpec` :func:`~data_builders.dataset.labels.make_row` reads: original
    tests are the task's own assertions (by number), the reference its canonical program."""
    return TaskSpec(
        record["_index"],
        problem,
        "assertions",
        list(range(record["n_original"])),
        [],
        references=[problem.reference],
        reference_passes=record["reference_passes"],
    )


def _completion(candidate: Candidate, problem: Problem) -> tuple[Problem, str]:
    """The problem and completion a candidate program continues: ``prompt + completion``
    samples as written; a whole-program (``solution``) sample with an empty prompt."""
    if candidate.program.startswith(problem.prompt):
        return problem, candidate.program[len(problem.prompt) :]
    return dataclasses.replace(problem, prompt=""), candidate.program


def label_chunk(
    candidates: Sequence[Candidate],
    records: Mapping[str, Mapping[str, Any]],
    specs: Mapping[str, TaskSpec],
    executor: Any,
    language: str,
) -> Iterator[dict[str, Any]]:
    """Rows for ``candidates``, in order: each compiled once and run on its task's test, each
    assertion under its own calibrated limit."""
    from data_builders.problems.humaneval_x import canonical_solution, program_and_test

    programs = []
    for candidate in candidates:
        record = records[candidate.task_id]
        problem = specs[candidate.task_id].problem
        source, _ = program_and_test(*_completion(candidate, problem))
        # the canonical program is the reference: the expected values the test computes
        reference = program_and_test(problem, canonical_solution(problem))[0]
        programs.append(
            Program(
                source,
                TestCode(record["_test"]),
                test_timeouts=record["_timeouts"],
                language=language,
                reference=reference,
            )
        )
    for candidate, result in zip(candidates, executor.map(programs, "label"), strict=True):
        # `language` tells evaluation (baselines' tokenizers, ICE-Score's prompt) what code it is
        yield {"language": language, **make_row(candidate, specs[candidate.task_id], result)}


class HumanEvalX:
    """HE-Eval-X in ``request.language`` (:class:`~data_builders.dataset.hooks.Dataset`):
    HumanEval-X's problems, tests translated from HE-Eval's and narrowed by canonical runs,
    per-assertion limits from the canonical's times, the language's executor."""

    name = "humaneval-x"

    def problem_source(self) -> ModuleType:
        from data_builders.problems import humaneval_x

        return humaneval_x

    def check_options(self, options: Any) -> None:
        check_options(options)

    def check_request(self, request: Any) -> None:
        check_request(request)

    def whole_program(self) -> bool:
        return False

    def manifest(self, request: Any) -> dict[str, Any]:
        limits = _compiled(request).as_settings(request.language)
        return {"language": request.language, "language_limits": limits}

    def prepare(
        self,
        request: Any,
        mine: Sequence[tuple[int, Problem]],
        split_of: Mapping[str, str],
        store: Any,
        backend: Any,
    ) -> Labelling:
        """Tasks not yet in ``store`` prepared (:func:`prepare_tasks`: HE-Eval's suites
        translated, canonical runs); a resumed build reads the others' tests and limits."""
        language, cfg, foreign = request.language, request.config, _compiled(request)
        todo = [(i, p) for i, p in mine if p.task_id not in store.tasks]
        if todo:
            suites, entries = python_suites(
                [task_number(p.task_id) for _, p in todo],
                cfg,
                request.workers,
                request.cache_dir,
                request.executor,
            )
            for record in prepare_tasks(
                todo, language, suites, entries, cfg.limits, request.workers, backend, foreign
            ):
                store.add_task(record)
            store.sync()
            _report_references([store.tasks[p.task_id] for _, p in mine])
        records = {p.task_id: store.tasks[p.task_id] for _, p in mine}
        specs = {p.task_id: _spec(records[p.task_id], p) for _, p in mine}

        def label(pending: Sequence[Candidate], executor: Any) -> Iterator[dict[str, Any]]:
            return label_chunk(pending, records, specs, executor, language)

        return Labelling(list(specs.values()), language, foreign, label)

    def meta(self, request: Any) -> dict[str, Any]:
        foreign = _compiled(request)
        policy = assertion_policy(request.config.limits, foreign, request.language)
        return {
            "language_limits": foreign.as_settings(request.language),
            "assertion_limits": dataclasses.asdict(policy),
        }

    def card_extras(self, meta: Mapping[str, Any]) -> CardExtras:
        """The title and command name the language; ``stats.json`` gets ``translation``, the
        card its "Tests in <language>" section."""
        title, command = "HE-Eval-X", self.name
        language = meta.get("language")
        if language:
            title += f" {LANGUAGE_NAMES.get(language, language)}"
            command += f" --language {language}"
        return CardExtras(
            title=title,
            command=command,
            stats={"translation": translation_summary},
            sections=(card_lines,),
        )


def _compiled(request: Any) -> ForeignLimits:
    """The compiled languages' limits of the build's limits file (``--limits``; default
    ``configs/build/limits.yaml``), whose ``python`` section is ``request.config.limits``."""
    from data_builders.execution import load_limits

    return load_limits(request.limits_file).compiled


def _report_references(records: Sequence[Mapping[str, Any]]) -> None:
    failing = [r["task_id"] for r in records if not r["reference_passes"]]
    if failing:
        shown = ", ".join(failing[:8]) + (" ..." if len(failing) > 8 else "")
        print(
            f"warning: {len(failing)} canonical solution(s) fail their own tests ({shown}); "
            "their tasks are kept, flagged in stats.json",
            file=sys.stderr,
        )
