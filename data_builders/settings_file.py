"""Reading a builder settings file (YAML) with one-line errors that name the file.

Why one module: the executor settings (``configs/build/executor.yaml``) and the dataset
configs (``configs/build/<dataset>.yaml``) are read the same way, and a user who mistypes a key
or breaks the YAML should get the same kind of message from both.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from data_builders.errors import UserError


def read_mapping(source: Path, missing: str, what: str) -> dict[str, Any]:
    """The YAML mapping in ``source``; :class:`UserError` ``"{source}: {missing}"`` when the file
    does not exist, and one line when it is not YAML or not a mapping of ``what``."""
    if not source.is_file():
        raise UserError(f"{source}: {missing}")
    try:
        raw = yaml.safe_load(source.read_text()) or {}
    except yaml.YAMLError as exc:
        raise UserError(f"{source}: not valid YAML ({exc})") from None
    if not isinstance(raw, dict):
        raise UserError(f"{source}: expected a mapping of {what}")
    return raw


def check_known(source: Path, raw: dict[str, Any], known: Iterable[str]) -> None:
    """One line naming every key of ``raw`` that is not in ``known``, and the allowed ones."""
    allowed = sorted(known)
    unknown = sorted(set(raw) - set(allowed))
    if unknown:
        raise UserError(f"{source}: unknown key(s) {unknown}; allowed: {allowed}")
