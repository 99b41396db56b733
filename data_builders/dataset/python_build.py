"""HE-Eval, MBPP-Eval and APPS-Eval: the Python datasets' steps of ``build``.

Each task's reference solutions are run on its original tests (checked, timed:
:func:`~data_builders.dataset.tasks.check_references`), tasks that copy a benchmark are dropped
(:mod:`~data_builders.dataset.decontaminate`), the tests are extended
(:mod:`data_builders.extension`), and every candidate runs on the Python executor under
per-test limits from the reference's time on each test (:mod:`~data_builders.dataset.labels`).
:func:`~data_builders.dataset.pipeline.run_build` does the rest, as for every dataset.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any

from data_builders.cache import cache_dir
from data_builders.dataset.card import CardExtras
from data_builders.dataset.convention import code_without_prompt, task_text
from data_builders.dataset.hooks import Labelling
from data_builders.dataset.tasks import TaskSpec
from data_builders.extension.extend import ExtensionTask
from data_builders.problems.base import Problem


class PythonDataset:
    """One Python dataset (:class:`~data_builders.dataset.hooks.Dataset`).

    Args:
        name: ``build``'s name for it (``humaneval``, ``mbpp``, ``apps``).
        title: its name in the card's heading (``HE-Eval``).
        source: the :mod:`data_builders.problems` module of its problems.
        whole_programs: ``--generate`` asks for whole programs, not completions (APPS).
    """

    def __init__(self, name: str, title: str, source: str, whole_programs: bool = False) -> None:
        self.name, self.title, self._source = name, title, source
        self._whole_programs = whole_programs

    def problem_source(self) -> ModuleType:
        from data_builders.problems import apps, humaneval, mbpp

        return {"humaneval": humaneval, "mbpp": mbpp, "apps": apps}[self._source]

    def check_options(self, options: Any) -> None:
        from data_builders.errors import UserError

        if options.language or getattr(options, "problems_file", None):
            raise UserError(
                f"--language/--problems-file are for a dataset in other languages (humaneval-x);"
                f" {self.name} is Python and takes --source"
            )

    def check_request(self, request: Any) -> None:
        return None  # check_options and build's own checks cover the Python datasets

    def whole_program(self) -> bool:
        return self._whole_programs

    def manifest(self, request: Any) -> dict[str, Any]:
        return {}  # Python builds' manifests have no keys of their own

    def prepare(
        self,
        request: Any,
        mine: Sequence[tuple[int, Problem]],
        split_of: Mapping[str, str],
        store: Any,
        backend: Any,
    ) -> Labelling:
        """References checked, duplicates of benchmarks dropped, tests extended (from the
        suite cache where a build made them before), every kept task's record stored."""
        from data_builders.dataset.decontaminate import drop_duplicates
        from data_builders.dataset.labels import label, label_limits
        from data_builders.dataset.tasks import check_references, make_spec
        from data_builders.execution import ExecutionLimits, open_executor
        from data_builders.extension.extend import extend_tasks
        from data_builders.extension.suite import SuiteCache

        cfg = request.config
        specs = [make_spec(i, p, cfg.extension.max_references) for i, p in mine]
        # Two executors: reference runs must not get labelling's cap after a timeout.
        limits = ExecutionLimits(timeout=cfg.limits.reference_limit)
        with open_executor("python", limits, settings=backend, workers=request.workers) as executor:
            check_references(specs, executor, cfg.limits.reference_limit)
            report_references(specs)
            dropped = drop_duplicates(
                request.dataset,
                [(spec.problem, spec.references[0]) for spec in specs],
                split_of,
                cfg.decontamination,
                executor,
                store.tasks,
            )
            for spec in specs:  # dropped tasks are neither extended nor labelled
                if spec.task_id in dropped:
                    store.add_task(dropped_record(spec, split_of, dropped[spec.task_id]))
            specs = [spec for spec in specs if spec.task_id not in dropped]
            suites = extend_tasks(
                [extension_task(spec) for spec in specs],
                executor,
                cfg.extension,
                cfg.seed,
                SuiteCache(request.cache_dir or cache_dir("extension")),
            )
        for spec in specs:
            store.add_task(task_record(spec, suites[spec.task_id]))
        by_task = {spec.task_id: spec for spec in specs}

        def label_chunk(pending: Sequence[Any], executor: Any) -> Any:
            return label(pending, by_task, suites, executor, cfg.limits)

        return Labelling(specs, "python", label_limits(cfg.limits), label_chunk)

    def meta(self, request: Any) -> dict[str, Any]:
        return {}

    def card_extras(self, meta: Mapping[str, Any]) -> CardExtras:
        return CardExtras(title=self.title, command=self.name)


def extension_task(spec: TaskSpec) -> ExtensionTask:
    """What :func:`~data_builders.extension.extend.extend_tasks` needs of a checked task."""
    return ExtensionTask(
        task_id=spec.task_id,
        kind=spec.kind,
        references=spec.references,
        entry_point=spec.problem.entry_point,
        seeds=spec.seeds,
        n_original=len(spec.original_tests),
        setup=spec.setup,
    )


def task_record(spec: TaskSpec, suite: Any) -> dict[str, Any]:
    """A task's progress record (what ``stats.json`` counts)."""
    return {
        "task_id": spec.task_id,
        "_index": spec.index,
        "nl": task_text(spec.problem),
        "reference": code_without_prompt(spec.references[0], spec.problem)
        if spec.references
        else "",
        "n_original": len(spec.original_tests),
        "n_tests": len(spec.original_tests) + len(suite.cases),
        "n_generated": suite.n_generated,
        "reference_passes": spec.reference_passes,
    }


def dropped_record(
    spec: TaskSpec, split_of: Mapping[str, str], matches: list[dict[str, Any]]
) -> dict[str, Any]:
    """The store's record of a task the decontamination step dropped (finalize skips it)."""
    return {
        "task_id": spec.task_id,
        "_index": spec.index,
        "split": split_of[spec.task_id],
        "dropped": matches,
    }


def report_references(specs: Sequence[TaskSpec]) -> None:
    failing = [spec.task_id for spec in specs if not spec.reference_passes]
    if failing:
        shown = ", ".join(failing[:5]) + (" ..." if len(failing) > 5 else "")
        print(
            f"warning: {len(failing)} reference solution(s) fail their own original tests "
            f"({shown}); their tasks are kept, flagged in stats.json",
            file=sys.stderr,
        )
