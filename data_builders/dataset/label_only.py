"""Problems whose license forbids training (MultiPL-E) never reach a train or dev split.

A loader marks such problems with ``metadata["label_only"] = True`` and a one-line
``metadata["label_only_reason"]``; the dataset builder calls :func:`refuse_label_only` before
it builds anything, so a training set cannot be made from them by accident. A test-only build
(``--split-ratios 0,0,1``) and ``label`` stay allowed.
"""

from __future__ import annotations

from collections.abc import Sequence

from data_builders.errors import UserError
from data_builders.problems.base import Problem


def refuse_label_only(problems: Sequence[Problem], split_ratios: Sequence[float]) -> None:
    """Raise when a label-only problem would land in the train or dev split.

    Raises:
        UserError: naming the first such problem, the reason, and the fix (test-only splits).
    """
    if len(split_ratios) < 2 or (split_ratios[0] <= 0 and split_ratios[1] <= 0):
        return
    for problem in problems:
        if problem.metadata.get("label_only"):
            reason = problem.metadata.get("label_only_reason", "its license forbids training")
            raise UserError(
                f"{problem.task_id} is label-only ({reason}): build with --split-ratios 0,0,1 "
                "or use `label`"
            )
