"""Reference runs for ``ForeignPool`` (``pool.py``): the expected values a test computes.

An assertion whose expected side the test computes (``languages/computed.py``) is judged on
the host against that side's value in a *reference run*: the same test driver with the
task's reference solution (``Program.reference``, HumanEval-X's canonical one) in place of the
candidate, built and run in its own sandboxed process like any program, never in the
candidate's. Its values are the expected values; the candidate's driver is then built with
only those cases split (a case the reference gave no value for stays in the program), and the
values go into the cases' checks, on the host.

A reference run depends only on the language, the reference and the test, so it is run once
per task and kept (``_reference_values``), not once per candidate: labelling a task's
samples costs one more build and run in all.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from typing import Any

from data_builders.execution.compiled.build import Build
from data_builders.execution.compiled.checks import host_cases
from data_builders.execution.compiled.languages import Driver, Language, SplitError
from data_builders.execution.compiled.languages.computed import Reference, defined_names
from data_builders.execution.compiled.values import JOptional, JsObject, Tagged, Turns, decode_value
from data_builders.execution.limits import ForeignLimits
from data_builders.execution.types import Program, TestCode


class References:
    """``ForeignPool``'s reference side (a mixin: ``_build``, ``_release`` and ``_run_once``
    are the pool's)."""

    limits: ForeignLimits
    _locks_lock: threading.Lock
    _reference_cache: dict[str, dict[int, Any]]  # reference values per (language, source, test)
    _reference_locks: dict[str, threading.Lock]  # one per key: a task's reference runs once
    _build: Any
    _release: Any
    _run_once: Any

    def _reference_driver(self, language: Language, program: Program) -> Driver | None:
        """``program``'s driver with its computed cases judged on the host from the reference
        run (None when the program has no reference, or the language takes none)."""
        if program.reference is None or not language.reference_cases:
            return None
        assert isinstance(program.tests, TestCode)
        test = program.tests.text
        names = defined_names(program.reference, language.name)
        values = self._reference_values(language, program.reference, test, names)
        reference = Reference(names, "candidate", frozenset(values))
        driver = language.driver(program.source, test, reference=reference)
        checks = tuple(
            dataclasses.replace(check, expected=values[k])
            if check is not None and check.origin == "reference"
            else check
            for k, check in enumerate(driver.checks or ())
        )
        return dataclasses.replace(driver, checks=checks)

    def _reference_values(
        self, language: Language, source: str, test: str, names: frozenset[str]
    ) -> dict[int, Any]:
        """The reference run's value of each computed case (a list of every turn's for an
        assertion in a loop), computed once per (language, reference, test)."""
        key = hashlib.sha256(f"{language.name}\0{source}\0{test}".encode()).hexdigest()
        with self._locks_lock:
            lock = self._reference_locks.setdefault(key, threading.Lock())
        with lock:  # another worker running the same task's reference: wait for it
            if key not in self._reference_cache:
                self._reference_cache[key] = self._run_reference(language, source, test, names)
            return self._reference_cache[key]

    def _run_reference(
        self, language: Language, source: str, test: str, names: frozenset[str]
    ) -> dict[int, Any]:
        """Build and run the reference's driver once; the values of the cases it settled
        cleanly (nothing when it does not build or its process does not end cleanly: the
        cases then stay in the program)."""
        try:
            driver = language.driver(source, test, reference=Reference(names, "reference"))
        except (SplitError, ValueError):
            return {}
        checks = driver.checks or ()
        wanted = {k: c for k, c in enumerate(checks) if c is not None and c.origin == "reference"}
        if not wanted:
            return {}
        build: Build = self._build(language, driver.files, driver.mode, driver.prelude)
        try:
            if not build.ok:
                return {}
            spec = language.run_spec(self.limits.memory_mb, driver.mode)
            singles, turns = host_cases(checks)
            limits = [self.limits.timeout] * driver.n_cases
            end = self._run_once(language, build.path, spec, limits, 0, singles, turns)
        finally:
            self._release(build)
        if end.killed or end.returncode != 0 or end.running is not None or end.rejected:
            return {}
        return _settled(wanted, end)


def _settled(wanted: dict[int, Any], end: Any) -> dict[int, Any]:
    """Each wanted case's decoded value from a reference run's reports, where it gave one
    without an error."""
    values: dict[int, Any] = {}
    for k, check in wanted.items():
        try:
            if check.each == "turns":
                if end.results.get(k) == "series" and k not in end.errors:
                    values[k] = [decode_value(p) for p in end.series.get(k, [])]
                continue
            if end.results.get(k) != "value":
                continue
            value = decode_value(end.values[k])
        except (ValueError, KeyError, TypeError):
            continue
        if check.each == "list":  # Java: every turn in one value
            if isinstance(value, Turns) and value.error is None:
                values[k] = value.values
            continue
        values[k] = value
    return {k: v for k, v in values.items() if _comparable(v)}


_UNWRITTEN = frozenset(
    ("$opaque", "$toolong", "$function", "$symbol", "$class", "$assertion_panic")
)
"""Tags of what the support code writes instead of a value (a type of the program's own, as
Rust's ``RtnType``; a value over the cap; a function)."""


def _comparable(value: Any) -> bool:
    """Whether a reference value can be an expected value: nothing in it stands for a value
    the reference's process could not write (compared with it, every candidate would fail;
    the case stays in the program instead, as without a reference)."""
    if isinstance(value, Tagged):
        return value.tag not in _UNWRITTEN and _comparable(value.value)
    if isinstance(value, list | tuple):
        return all(_comparable(item) for item in value)
    if isinstance(value, JsObject):
        return all(_comparable(item) for _, item in value.items)
    if isinstance(value, JOptional):
        return _comparable(value.value)
    return True
