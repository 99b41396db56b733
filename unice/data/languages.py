"""The programming languages CodeScore reads, and how a row says which one it holds.

Why one place: the dataset reader, the scorer and ``unice-score`` must agree on the names
(the language table's, :mod:`data_builders.languages`: ``python``, ``cpp``, ``java``, ``js``,
``go``, ``rust``) and on the one-line error a misspelt language gets, instead of each failing
in its own way later (a C++ program parsed as Python gets every static feature wrong without
a word).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data_builders.languages import NAMES
from data_builders.problems.humaneval_x import language_of
from unice.errors import DatasetFormatError

DEFAULT_LANGUAGE = "python"
"""Rows without a ``language`` field are Python (every dataset before HE-Eval-X)."""
LANGUAGES: tuple[str, ...] = NAMES
"""Every language of the table (Python first): the ones a row's labels can come from."""


def check_language(name: str | None) -> str:
    """``name`` when supported (``None``/"" -> Python); a one-line error naming the supported
    languages otherwise."""
    if name is None or name == "":
        return DEFAULT_LANGUAGE
    if name not in LANGUAGES:
        raise DatasetFormatError(f"unknown language {name!r}; supported: {', '.join(LANGUAGES)}")
    return name


def row_language(record: Mapping[str, Any]) -> str:
    """A row's language: its ``language`` field, else what a HumanEval-X task id implies
    (``CPP/7`` -> ``cpp``), else Python."""
    if record.get("language"):
        return check_language(record.get("language"))
    return language_of(str(record.get("task_id") or "")) or DEFAULT_LANGUAGE
