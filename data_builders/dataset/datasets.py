"""The datasets ``build`` makes, by name, and what the build reads of them by name alone: the
problem source, the checked problems, the card's extras.

Each dataset is a :class:`~data_builders.dataset.hooks.Dataset` of its module:
HE-Eval, MBPP-Eval and APPS-Eval of :mod:`~data_builders.dataset.python_build`, HE-Eval-X of
:mod:`~data_builders.dataset.humaneval_x`. The pipeline, the finalizer and the card name none:
``build`` (:func:`~data_builders.dataset.pipeline.finish`) and ``merge`` both take a build's
extras from here, by the ``dataset`` recorded in its provenance, so the two write the same
files.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from data_builders.dataset.card import CardExtras
from data_builders.dataset.hooks import Dataset
from data_builders.errors import UserError
from data_builders.problems.base import Problem


def dataset_named(name: str) -> Dataset:
    """The dataset ``build`` calls ``name``; a one-line ``UserError`` for another name."""
    from data_builders.dataset.python_build import PythonDataset

    if name == "humaneval":
        return PythonDataset("humaneval", "HE-Eval", "humaneval")
    if name == "mbpp":
        return PythonDataset("mbpp", "MBPP-Eval", "mbpp")
    if name == "apps":
        return PythonDataset("apps", "APPS-Eval", "apps", whole_programs=True)
    if name == "humaneval-x":
        from data_builders.dataset.humaneval_x import HumanEvalX

        return HumanEvalX()
    raise UserError(f"unknown dataset {name!r}; choose humaneval, mbpp, apps or humaneval-x")


def problem_source(dataset: str) -> ModuleType:
    """The problem source module of a dataset ``build`` makes: each has a
    ``load_problems(source, language)`` of the same shape (:mod:`data_builders.problems`)."""
    return dataset_named(dataset).problem_source()


def load_problems(dataset: str, source: str | None, language: str | None = None) -> list[Problem]:
    """All problems of ``dataset`` in their canonical order (``language``: HE-Eval-X's), from
    ``source`` (a file or folder; None: the source's default), each checked: no duplicate
    task_id, a reference solution."""
    problems = problem_source(dataset).load_problems(source, language)
    seen: set[str] = set()
    for problem in problems:
        if problem.task_id in seen:
            raise UserError(f"duplicate task_id {problem.task_id!r} in the problem source")
        seen.add(problem.task_id)
        if not (problem.reference or "").strip():
            raise UserError(f"{problem.task_id}: task has no reference solution; fix the source")
    return list(problems)


def card_extras(meta: Mapping[str, Any]) -> CardExtras:
    """What the dataset ``meta`` (a build's provenance) describes adds to ``stats.json`` and
    the card: its display name, the ``build`` arguments that make it, its own sections."""
    try:
        dataset = dataset_named(meta["dataset"])
    except UserError:  # not a dataset this version builds: the generic card
        return CardExtras()
    return dataset.card_extras(meta)
