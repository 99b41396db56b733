"""The limits a program in a compiled language runs under: :class:`ForeignLimits`, the
``compiled`` section (and each language's own section) of ``configs/build/limits.yaml``, read
with every language's limits by :mod:`data_builders.execution.limits`, where it lives."""

from __future__ import annotations

from data_builders.execution.limits import ForeignLimits

__all__ = ["ForeignLimits"]
