"""What a dataset module gives the build: the steps of ``build`` that differ by dataset.

:func:`data_builders.dataset.pipeline.run_build` is the one build path (problems, shards,
splits, the progress store, labelling in chunks, resume, ``finish``); a dataset module
(:mod:`~data_builders.dataset.python_build` for HE-Eval, MBPP-Eval and APPS-Eval,
:mod:`~data_builders.dataset.humaneval_x` for HE-Eval-X) supplies the rest through a
:class:`Dataset`: its problem source, its tasks' tests and per-test limits, how a candidate
becomes a program and a row, and what it adds to the manifest, ``stats.json`` and the card.
:mod:`~data_builders.dataset.datasets` finds a dataset's module by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

from data_builders.candidates.base import Candidate
from data_builders.dataset.card import CardExtras
from data_builders.dataset.tasks import TaskSpec
from data_builders.problems.base import Problem


@dataclass
class Labelling:
    """How the candidates of this build are labelled, once every task is prepared.

    Attributes:
        specs: this shard's tasks, in dataset order (the candidates are made from them).
        language: the programs' language (``open_executor``'s ``language``).
        limits: the labelling executor's limits (``open_executor``'s ``limits``).
        label: rows for a chunk of candidates, in order, on the open executor.
    """

    specs: list[TaskSpec]
    language: str
    limits: Any
    label: Callable[[Sequence[Candidate], Any], Iterable[dict[str, Any]]]


class Dataset(Protocol):
    """One dataset ``build`` makes (its name is ``build``'s first argument)."""

    name: str

    def problem_source(self) -> ModuleType:
        """The :mod:`data_builders.problems` module whose ``load_problems`` gives its tasks."""
        ...

    def check_options(self, options: Any) -> None:
        """What this dataset refuses among ``build``'s options, as a one-line ``UserError``,
        from the options alone (no file read, no toolchain asked: ``build --check`` runs it
        too). ``options``: ``build``'s parsed command line (``dataset``, ``language``,
        ``problems_file``, ``mutants_of``, ``mutant_splits``, ...)."""
        ...

    def check_request(self, request: Any) -> None:
        """What this dataset cannot build, as a one-line ``UserError``, before anything runs."""
        ...

    def whole_program(self) -> bool:
        """Whether ``--generate`` asks for whole programs (APPS) instead of completions."""
        ...

    def manifest(self, request: Any) -> dict[str, Any]:
        """Settings a resumed build must share beyond the common ones (first in the
        manifest)."""
        ...

    def prepare(
        self,
        request: Any,
        mine: Sequence[tuple[int, Problem]],
        split_of: Mapping[str, str],
        store: Any,
        backend: Any,
    ) -> Labelling:
        """Make this shard's tasks ready to label (``mine``: ``(index, problem)`` pairs in
        dataset order): each task's record in ``store`` (its tests and per-test limits), and
        how candidates are labelled against them."""
        ...

    def meta(self, request: Any) -> dict[str, Any]:
        """Extra provenance for ``stats.json`` and ``build_info.json``."""
        ...

    def card_extras(self, meta: Mapping[str, Any]) -> CardExtras:
        """What this dataset adds to the generic ``stats.json`` and card (``meta``: a build's
        provenance, as ``build`` and ``merge`` read it)."""
        ...
