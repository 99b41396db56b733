"""Sandboxed, fast execution of untrusted programs against tests.

One executor type for every language (:class:`Executor`, ``executor.py``): Python's programs
run on its pool of pre-imported workers (``python/pool.py``), the compiled languages' on the
foreign pool (``compiled/pool.py``), either on Ray (``ray/backend.py``). See docs/execution.md for
statuses, comparison rules, isolation levels and the threat model, docs/languages.md for the
compiled languages.
Every public name is imported lazily: worker processes import this package (for their own
submodules), and each module they import makes every per-program fork dearer — the data
model needs ``dataclasses`` and ``inspect``, the pool needs ``threading``, none of which a
worker uses.

This package's names are the executor's whole public API: a module outside
``data_builders.execution`` imports from here, never from a submodule (the layering test,
tests/foundation/test_layering.py, fails on such an import). The layout behind it: the seam
here (executor, pools, backend, data model, limits and calibration, isolation, seccomp,
process groups and trees, statuses, Python's values and comparisons), Python's workers in
``python/``, the compiled languages in ``compiled/``, the Ray backend in ``ray/``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from data_builders.execution.assertions import split_check
    from data_builders.execution.backend import (
        ExecutorSettings,
        executor_session,
        open_executor,
        settings_from_args,
    )
    from data_builders.execution.backend import add_arguments as add_executor_arguments
    from data_builders.execution.calibrate import calibrated_limits, limits_by_task
    from data_builders.execution.calibrate import default_cache as default_reference_cache
    from data_builders.execution.calibrate import load_policy as load_limit_policy
    from data_builders.execution.compare import stdout_matches
    from data_builders.execution.compiled.languages import ALIASES as LANGUAGE_ALIASES
    from data_builders.execution.compiled.languages import LANGUAGES as COMPILED_LANGUAGES
    from data_builders.execution.compiled.languages import SplitError, get_language
    from data_builders.execution.compiled.languages.source import (
        code_mask,
        find_calls,
        matching,
        split_top_level,
    )
    from data_builders.execution.compiled.plain_harness import whole_program as plain_program
    from data_builders.execution.executor import Executor, ExecutorUnavailableError
    from data_builders.execution.limits import DEFAULT_CONFIG as DEFAULT_LIMITS_FILE
    from data_builders.execution.limits import (
        ExecutorLimits,
        ForeignLimits,
        LimitConfigError,
        LimitPolicy,
        assertion_policy,
        load_limits,
    )
    from data_builders.execution.types import (
        MISSING,
        STATUSES,
        AssertionTest,
        CallTest,
        ExecutionLimits,
        Program,
        ProgramResult,
        StdioTest,
        Test,
        TestCode,
        TestOutcome,
    )
    from data_builders.execution.values import (
        decode_value,
        encode_value,
        int_from_decimal,
        int_to_decimal,
    )

# Public name -> (the submodule that defines it, its name there).
_HOMES: dict[str, tuple[str, str]] = {
    # the executor and its data model
    **{name: ("executor", name) for name in ("Executor", "ExecutorUnavailableError")},
    **{
        name: ("types", name)
        for name in (
            "MISSING",
            "STATUSES",
            "AssertionTest",
            "CallTest",
            "ExecutionLimits",
            "Program",
            "ProgramResult",
            "StdioTest",
            "Test",
            "TestCode",
            "TestOutcome",
        )
    },
    # opening one, here or on Ray, from settings or command-line arguments
    **{
        name: ("backend", name)
        for name in ("ExecutorSettings", "executor_session", "open_executor", "settings_from_args")
    },
    "add_executor_arguments": ("backend", "add_arguments"),
    # limits: the one limits file, and per-test limits calibrated from references
    **{
        name: ("limits", name)
        for name in (
            "ExecutorLimits",
            "ForeignLimits",
            "LimitConfigError",
            "LimitPolicy",
            "assertion_policy",
            "load_limits",
        )
    },
    "DEFAULT_LIMITS_FILE": ("limits", "DEFAULT_CONFIG"),
    "calibrated_limits": ("calibrate", "calibrated_limits"),
    "limits_by_task": ("calibrate", "limits_by_task"),
    "default_reference_cache": ("calibrate", "default_cache"),
    "load_limit_policy": ("calibrate", "load_policy"),
    # Python's tests, values and output comparison
    "split_check": ("assertions", "split_check"),
    "stdout_matches": ("compare", "stdout_matches"),
    **{
        name: ("values", name)
        for name in ("decode_value", "encode_value", "int_from_decimal", "int_to_decimal")
    },
    # the compiled languages: their modules, and the lexer their tests are read with
    "COMPILED_LANGUAGES": ("compiled.languages", "LANGUAGES"),
    "LANGUAGE_ALIASES": ("compiled.languages", "ALIASES"),
    "SplitError": ("compiled.languages", "SplitError"),
    "get_language": ("compiled.languages", "get_language"),
    **{
        name: ("compiled.languages.source", name)
        for name in ("code_mask", "find_calls", "matching", "split_top_level")
    },
    "plain_program": ("compiled.plain_harness", "whole_program"),
}

__all__ = [
    "AssertionTest",
    "COMPILED_LANGUAGES",
    "CallTest",
    "DEFAULT_LIMITS_FILE",
    "ExecutionLimits",
    "Executor",
    "ExecutorLimits",
    "ExecutorSettings",
    "ExecutorUnavailableError",
    "ForeignLimits",
    "LANGUAGE_ALIASES",
    "LimitConfigError",
    "LimitPolicy",
    "MISSING",
    "Program",
    "ProgramResult",
    "STATUSES",
    "SplitError",
    "StdioTest",
    "Test",
    "TestCode",
    "TestOutcome",
    "add_executor_arguments",
    "assertion_policy",
    "calibrated_limits",
    "code_mask",
    "decode_value",
    "default_reference_cache",
    "encode_value",
    "executor_session",
    "find_calls",
    "get_language",
    "int_from_decimal",
    "int_to_decimal",
    "limits_by_task",
    "load_limit_policy",
    "load_limits",
    "matching",
    "open_executor",
    "plain_program",
    "settings_from_args",
    "split_check",
    "split_top_level",
    "stdout_matches",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home[0]}"), home[1])
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
