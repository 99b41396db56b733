"""Per-test CPU limits derived from the reference solution's own time on each test.

Why: one fixed limit (3 s per test) makes every test that a generated program hangs on cost
3 s of CPU, and labelling time on real generations is dominated by those few programs. The
reference solution says how long each test should take: ``clamp(factor * reference time,
floor, cap)`` (as EvalPlus does) gives a correct program ample headroom and makes a hang
cheap. Values live in ``configs/build/limits.yaml``'s ``python`` section (read by
:mod:`data_builders.execution.limits`, with every language's limits); the reference is timed
``reference_runs`` times (slowest run counts) once per problem and machine, and the times are
cached on disk so repeated runs use the same limits (reproducible labels) without re-timing.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from data_builders.execution.limits import DEFAULT_CONFIG as DEFAULT_CONFIG
from data_builders.execution.limits import LimitConfigError as LimitConfigError
from data_builders.execution.limits import LimitPolicy, load_limits
from data_builders.execution.limits import scaled_limit as scaled_limit
from data_builders.execution.types import Program, TestCode


def load_policy(path: Path = DEFAULT_CONFIG) -> LimitPolicy:
    """Python's per-test policy: the ``python`` section of the limits file ``path``
    (:func:`~data_builders.execution.limits.load_limits`; :class:`LimitConfigError` names the
    file and the fix)."""
    return load_limits(path).python


def _machine() -> str:
    """What makes CPU times comparable: this machine's name and processor."""
    model = ""
    try:
        with open("/proc/cpuinfo") as handle:
            model = next((ln.split(":", 1)[1].strip() for ln in handle if "model name" in ln), "")
    except OSError:
        pass
    return f"{platform.node()}|{platform.machine()}|{model}"


def reference_key(program: Program) -> str:
    """Cache key of a reference program: its code, tests and this machine."""
    blob = json.dumps(
        [program.source, program.setup, program.entry_point, [repr(t) for t in program.tests]],
        sort_keys=True,
    )
    return _machine_key(blob)


def foreign_reference_key(program: Program) -> str:
    """Cache key of a reference program in another language (a ``Program`` whose ``tests``
    is the language's :class:`TestCode`): its language, source, test text and this machine
    (the key the cache had when the test was a plain string)."""
    if not isinstance(program.tests, TestCode):
        raise TypeError(f"a {program.language!r} reference's tests must be a TestCode")
    return _machine_key(json.dumps([program.language, program.source, program.tests.text]))


def _machine_key(blob: str) -> str:
    """A cache key of ``blob`` on this machine (CPU times do not carry across machines)."""
    return hashlib.sha256(f"{_machine()}\n{blob}".encode()).hexdigest()[:32]


def default_cache() -> Path:
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "unice" / "reference_times.json"


class ReferenceTimes:
    """Reference CPU seconds per test (None: the reference did not pass that test), cached
    in a JSON file keyed by ``key`` (:func:`reference_key`; :func:`foreign_reference_key` for
    programs in other languages, timed per assertion); ``path=None`` keeps them in memory."""

    def __init__(self, path: Path | None, key: Callable[[Any], str] = reference_key) -> None:
        self.path = path
        self.key = key
        self.times: dict[str, list[float | None]] = {}
        if path is not None and path.exists():
            try:
                loaded = json.loads(path.read_text())
                self.times = loaded if isinstance(loaded, dict) else {}
            except (OSError, ValueError):
                self.times = {}  # a damaged cache is re-measured, never trusted

    def measure(
        self,
        references: Iterable[Program],
        executor: Any,
        policy: LimitPolicy,
        progress: str | None = "time references",
    ) -> int:
        """Time every reference not cached yet; returns how many were timed."""
        missing = {self.key(p): p for p in references if self.key(p) not in self.times}
        if not missing:
            return 0
        runs = [
            dataclasses.replace(p, timeout=policy.reference_limit, test_timeouts=None)
            for p in missing.values()
            for _ in range(policy.reference_runs)
        ]
        results = iter(executor.map(runs, progress=progress))
        for key in missing:
            slowest: list[float | None] = []
            for run in range(policy.reference_runs):
                outcomes = next(results).outcomes
                seconds = [o.time if o.status == "pass" else None for o in outcomes]
                slowest = (
                    seconds
                    if run == 0
                    else [_slower(a, b) for a, b in zip(slowest, seconds, strict=True)]
                )
            self.times[key] = slowest
        self._save()
        return len(missing)

    def limits(self, reference: Program, policy: LimitPolicy) -> list[float]:
        return [policy.limit(seconds) for seconds in self.times[self.key(reference)]]

    def _save(self) -> None:
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(f".tmp{os.getpid()}")
            temporary.write_text(json.dumps(self.times))
            os.replace(temporary, self.path)
        except OSError:
            pass  # a cache that cannot be written only costs a re-measurement next time


def limits_by_task(
    references: dict[str, Any],
    executor: Any,
    policy: LimitPolicy,
    cache: ReferenceTimes,
    what: str = "reference solutions",
    unit: str = "tests",
) -> dict[str, list[float]]:
    """Per-test CPU limits for each task (task id -> its reference program), from the
    references' cached timings (the missing ones timed now); prints one line saying how many
    were timed and how many tests sit at the floor and at the cap."""
    timed = cache.measure(references.values(), executor, policy, f"time {what}")
    limits = {task: cache.limits(program, policy) for task, program in references.items()}
    n_tests = sum(len(v) for v in limits.values())
    at_floor = sum(limit <= policy.floor for v in limits.values() for limit in v)
    at_cap = sum(limit >= policy.cap for v in limits.values() for limit in v)
    print(
        f"per-{unit[:-1]} CPU limits from {len(references)} {what} ({timed} timed now,"
        f" {len(references) - timed} cached): {at_floor} of {n_tests} {unit} at the"
        f" {policy.floor} s floor, {at_cap} at the {policy.cap} s cap"
    )
    return limits


def calibrated_limits(
    references: dict[str, Any],
    executor: Any,
    policy: LimitPolicy,
    cache: Path | None,
    language: str = "python",
) -> dict[str, list[float] | None]:
    """Per-test CPU limits of each task (task id -> its reference program in ``language``:
    Python's reference solution, or another language's canonical solution, timed per
    assertion) under ``policy``, from the references' timings cached in the file ``cache``
    (None: in memory); in another language, None for a task with no assertion to calibrate
    (the flat limit)."""
    python = language == "python"
    times = ReferenceTimes(cache, reference_key if python else foreign_reference_key)
    what, unit = (
        ("reference solutions", "tests") if python else ("canonical solutions", "assertions")
    )
    per_task = limits_by_task(references, executor, policy, times, what, unit)
    if python:
        return dict(per_task)  # type: ignore[arg-type]
    return {task: per_test or None for task, per_test in per_task.items()}


def _slower(a: float | None, b: float | None) -> float | None:
    """The slower of two runs; a test the reference failed in any run stays uncalibrated."""
    return None if a is None or b is None else max(a, b)
