"""Reading a builder settings file (YAML) with one-line errors that name the file.

Why one module: the executor settings (``configs/build/executor.yaml``), the dataset configs
(``configs/build/<dataset>.yaml``), the limits (``limits.yaml``) and the local
engine's settings (``configs/generate/local.yaml``) are read the same way, and a user who
mistypes a key or breaks the YAML should get the same kind of message from all of them. Callers
that add their own fix to the message pass their error class (``error``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from data_builders.errors import UserError


def read_mapping(
    source: Path, missing: str, what: str, error: type[Exception] = UserError
) -> dict[str, Any]:
    """The YAML mapping in ``source``; ``error`` ``"{source}: {missing}"`` when the file does
    not exist, and one line when it is not readable, not YAML or not a mapping of ``what``."""
    if not source.is_file():
        raise error(f"{source}: {missing}")
    try:
        raw = yaml.safe_load(source.read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        reason = " ".join(str(exc).split())
        raise error(f"{source}: not valid YAML ({reason})") from None
    if not isinstance(raw, dict):
        raise error(f"{source}: expected a mapping of {what}")
    return raw


def check_known(
    source: Path, raw: dict[str, Any], known: Iterable[str], error: type[Exception] = UserError
) -> None:
    """One line naming every key of ``raw`` that is not in ``known``, and the allowed ones."""
    allowed = sorted(known)
    unknown = sorted(set(raw) - set(allowed))
    if unknown:
        raise error(f"{source}: unknown key(s) {unknown}; allowed: {allowed}")
