"""The exception evaluate.py turns into a one-line ``error: ...`` with exit status 2."""

from __future__ import annotations


class EvaluationError(ValueError):
    """Bad evaluation input the user can fix (missing data, split, labels, checkpoint, ids).

    Messages name the problem and the fix, on one line.
    """

    def __str__(self) -> str:
        return " ".join(super().__str__().split())


class BaselineUnavailable(RuntimeError):
    """A baseline's resource (package, grammar, model files, WordNet) is missing on this machine.

    Caught by the baseline runner: the baseline is reported as *skipped* with this message as the
    reason, never as a column of zeros.
    """
