"""Exceptions for user-fixable problems in ``unice`` (CLIs print them as one line and exit 2)."""

from __future__ import annotations


class UniCEError(Exception):
    """Base class: the message says what went wrong and how to fix it."""


class CheckpointError(UniCEError, FileNotFoundError):
    """A checkpoint folder is missing, incomplete or not a UniCE checkpoint."""


class BackboneUnavailableError(UniCEError, OSError):
    """A backbone name cannot be resolved (e.g. a hub name while offline)."""


class DatasetMissingError(UniCEError, FileNotFoundError):
    """A training dataset folder or split file does not exist."""


class ScoringInputError(UniCEError, ValueError):
    """Arguments to ``score`` are inconsistent (lengths differ, no usable format, ...)."""


class DeviceUnavailableError(UniCEError, RuntimeError):
    """The requested device (e.g. ``cuda``) is not available on this machine."""


class TrainingConfigError(UniCEError, ValueError):
    """A ``trainer.*``/``logger`` option of a training run is unknown or out of range."""


class ModelConfigError(UniCEError, ValueError):
    """A model option (``model.*`` / ``UniCEConfig``) is unknown, out of range, or does not fit
    the chosen backbone (e.g. its tokenizer has no padding token)."""


class DatasetFormatError(UniCEError, ValueError):
    """A dataset row holds a value of the wrong type or range (the message names ``file:line``)."""
