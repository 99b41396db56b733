"""HE-Eval's extended Python suites of HumanEval tasks, as ``build humaneval-x`` needs them.

``build humaneval-x`` translates these suites into each language's assertions
(:mod:`data_builders.dataset.humaneval_x`), and ``data_builders coverage`` and
``benchmarks/humaneval_x_extended.py`` read them too: one module makes them, the same way
``build humaneval`` does (references checked, tests extended, the same seed and cache).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from data_builders.cache import cache_dir
from data_builders.problems.base import task_number

Case = tuple[Sequence[Any], Any]
"""One extended test: the call's arguments and the expected value."""


def humaneval_suites(
    max_problems: int | None, workers: int, cache: str | Path | None = None
) -> tuple[dict[int, list[Case]], dict[int, str]]:
    """HE-Eval's extended suites (cached like ``build humaneval``) and entry points of the
    first ``max_problems`` HumanEval tasks (all when None), as ``build humaneval-x`` makes
    them: :func:`python_suites` with ``configs/build/humaneval.yaml``."""
    from data_builders.dataset.config import load_config
    from data_builders.problems.humaneval import load_problems as load_python

    count = len(load_python(None)) if max_problems is None else max_problems
    return python_suites(
        range(count), load_config("humaneval"), workers, Path(cache) if cache else None
    )


def python_suites(
    numbers: Sequence[int],
    config: Any,
    workers: int | None,
    cache: Path | None = None,
    backend: Any = None,
) -> tuple[dict[int, list[Case]], dict[int, str]]:
    """HE-Eval's extended cases and entry points of HumanEval tasks ``numbers``.

    The same steps as ``build humaneval`` (references checked, tests extended) with the same
    seed and extension settings, so a warm extension cache makes this a few seconds.
    """
    from data_builders.dataset.python_build import extension_task
    from data_builders.dataset.tasks import check_references, make_spec
    from data_builders.execution import ExecutionLimits, open_executor
    from data_builders.extension.extend import extend_tasks
    from data_builders.extension.suite import SuiteCache
    from data_builders.problems.humaneval import load_problems as load_python

    wanted = set(numbers)
    python = load_python(None)
    specs = [
        make_spec(i, p, config.extension.max_references)
        for i, p in enumerate(python)
        if task_number(p.task_id) in wanted
    ]
    if not specs:
        return {}, {}
    limits = ExecutionLimits(timeout=config.limits.reference_limit)  # as `build` checks them
    with open_executor("python", limits, settings=backend, workers=workers) as executor:
        check_references(specs, executor, config.limits.reference_limit)
        suites = extend_tasks(
            [extension_task(s) for s in specs],
            executor,
            config.extension,
            config.seed,
            SuiteCache(cache or cache_dir("extension")),
        )
    cases = {task_number(tid): list(s.cases) for tid, s in suites.items()}
    entries = {task_number(s.task_id): s.problem.entry_point or "" for s in specs}
    return cases, entries
