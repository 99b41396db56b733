"""The extension settings (``configs/build/<dataset>.yaml`` ``extension``): how many tests to
aim for and how to get them. :mod:`data_builders.dataset.config` loads them into
``BuildConfig.extension``."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ExtensionConfig:
    """How many tests to aim for and how to get them (see data_builders.extension)."""

    target_tests: int = 120
    overgenerate: float = 1.6
    rounds: int = 2
    reference_timeout: float = 0.25  # CPU s for the reference on a generated input
    max_references: int = 1
