"""Which isolation an executor runs its programs under: one planner for every language.

A level is bubblewrap, seccomp, both or neither (``rlimits``). An executor asks for
``"auto"`` (the best of the levels it can provide that this machine has; it warns once,
loudly, when that is not the full sandbox) or for one level exactly
(:class:`ExecutorUnavailableError`, naming the level and what is missing, when this machine
lacks it). The Python executor provides all four levels (its children load the filter
themselves); compiled languages provide ``bwrap+seccomp`` and ``rlimits`` (bubblewrap loads
their filter). Host side only: it imports ``threading`` and ``dataclasses``, which the
Python worker must not.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass

from data_builders.execution import sandbox

ISOLATION_LEVELS = ("bwrap+seccomp", "bwrap", "seccomp", "rlimits")
"""Every level, best first (the Python executor's)."""

COMPILED_LEVELS = ("bwrap+seccomp", "rlimits")
"""The levels of compiled languages' runs, best first: their filter is loaded by bubblewrap."""

_PARTS = ("bwrap", "seccomp")


class ExecutorUnavailableError(RuntimeError):
    """The requested isolation level cannot be provided on this machine."""


@dataclass(frozen=True)
class IsolationPlan:
    """The parts of the sandbox to use, and why each part left out is missing (``"auto"``
    only: a level asked for exactly is either met or an error)."""

    bwrap: bool
    seccomp: bool
    missing: tuple[str, ...] = ()

    @property
    def level(self) -> str:
        parts = [name for name, on in (("bwrap", self.bwrap), ("seccomp", self.seccomp)) if on]
        return "+".join(parts) or "rlimits"


def _problem(part: str) -> str | None:
    # looked up on the module each time, so that a test can stand in for a missing part
    return sandbox.bwrap_problem() if part == "bwrap" else sandbox.seccomp_problem()


def plan_isolation(requested: str, levels: tuple[str, ...] = ISOLATION_LEVELS) -> IsolationPlan:
    """The plan for ``requested``: ``"auto"`` (the first of ``levels`` whose parts all work
    here) or one of ``levels`` exactly.

    Raises:
        ValueError: ``requested`` is neither ``"auto"`` nor one of ``levels``.
        ExecutorUnavailableError: a part of the level asked for does not work here.
    """
    if requested != "auto" and requested not in levels:
        raise ValueError(f"isolation must be 'auto' or one of {levels}")
    if requested == "rlimits":
        return IsolationPlan(False, False)
    if requested != "auto":
        unmet = [problem for part in _PARTS if part in requested and (problem := _problem(part))]
        if unmet:
            raise ExecutorUnavailableError(
                f"isolation {requested!r} unavailable: {'; '.join(unmet)}"
            )
        return IsolationPlan("bwrap" in requested, "seccomp" in requested)
    problems = {part: _problem(part) for part in _PARTS}
    chosen = next(
        (level for level in levels if not any(problems[p] for p in _PARTS if p in level)),
        "rlimits",
    )
    missing = tuple(p for part, p in problems.items() if p and part not in chosen)
    return IsolationPlan("bwrap" in chosen, "seccomp" in chosen, missing)


_WARNED: set[str] = set()
_WARN_LOCK = threading.Lock()


def warn_once(message: str) -> None:
    """Print ``message`` to stderr, loudly, the first time this process sees it."""
    with _WARN_LOCK:
        if message in _WARNED:
            return
        _WARNED.add(message)
    print(f"\n{'!' * 78}\nwarning: {message}\n{'!' * 78}", file=sys.stderr, flush=True)
