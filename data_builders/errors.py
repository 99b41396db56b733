"""The one exception type that means "the user must fix something".

Command-line entry points catch :class:`UserError` and print its message as a single line
(``error: <message>``) with exit status 2, instead of a traceback. Messages name the
problem *and* the fix (the file and line, the flag to pass, the command to run).
"""

from __future__ import annotations


class UserError(Exception):
    """Bad input or environment that the user can fix; the message is shown as one line."""

    def __str__(self) -> str:  # keep it one line whatever the caller passed
        return " ".join(super().__str__().split())
