"""Every language's time and resource limits, read from one file: ``configs/build/limits.yaml``.

The file has a section per language:

* ``python``: Python's per-test policy (:class:`LimitPolicy`): each test's CPU limit is
  ``clamp(factor x the reference solution's time on that test, floor, cap)``, as EvalPlus
  does (:mod:`data_builders.execution.calibrate` times the references);
* ``compiled``: the limits C++, Java, JavaScript, Go and Rust share (:class:`ForeignLimits`:
  CPU per assertion, memory, output, compiles, and how ``build humaneval-x`` keeps and
  calibrates translated assertions);
* ``cpp``, ``java``, ``js``, ``go``, ``rust`` (each optional): what differs for that
  language, over ``compiled``: its ``calibrated_floor``.

``build`` and ``label`` read it (``--limits FILE``: another file of these sections) through
:func:`load_limits`; a missing file, bad YAML, an unknown section or key, or a value of the
wrong kind is one :class:`LimitConfigError` line naming the file and the place.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from data_builders.execution.types import ExecutionLimits
from data_builders.languages import COMPILED  # the sections a compiled language may have

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "build" / "limits.yaml"
PER_LANGUAGE = ("calibrated_floor",)  # the keys a compiled language's own section may set


class LimitConfigError(ValueError):
    """The limits config is missing, malformed or holds an unknown or bad value."""


def scaled_limit(reference_seconds: float, factor: float, floor: float, cap: float) -> float:
    """``clamp(factor * reference_seconds, floor, cap)``, to the millisecond: the one formula
    behind ``label``'s per-test limits and the dataset builders' per-problem ones."""
    return round(max(floor, min(cap, factor * reference_seconds)), 3)


@dataclass(frozen=True)
class LimitPolicy:
    """How per-test limits follow from reference times (``python`` in ``limits.yaml``)."""

    factor: float = 20.0
    floor: float = 0.1
    cap: float = 3.0
    load: float = 3.0
    after_timeout: float = 0.01
    reference_runs: int = 1
    reference_limit: float = 3.0

    def __post_init__(self) -> None:
        for name in ("factor", "floor", "cap", "load", "after_timeout", "reference_limit"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or value <= 0:
                raise LimitConfigError(f"limits: {name} must be a positive number, got {value!r}")
        if self.floor > self.cap:
            raise LimitConfigError(f"limits: floor ({self.floor}) is above cap ({self.cap})")
        if type(self.reference_runs) is not int or self.reference_runs < 1:
            raise LimitConfigError("limits: reference_runs must be a whole number >= 1")

    def limit(self, reference_seconds: float | None) -> float:
        """One test's limit; ``None`` (the reference did not pass it) gets the cap."""
        if reference_seconds is None:
            return self.cap
        return scaled_limit(reference_seconds, self.factor, self.floor, self.cap)


@dataclass(frozen=True)
class ForeignLimits:
    """Limits for one program in a compiled language (``compiled`` in ``limits.yaml``, with
    each language's own ``calibrated_floor`` in ``calibrated_floors``)."""

    timeout: float = 3.0
    load: float = 10.0
    memory_mb: int = 1024
    runtime_overhead_mb: int = 512
    max_output_bytes: int = 8 * 1024 * 1024
    tmp_size_mb: int = 64
    compile_timeout: float = 60.0
    compile_memory_mb: int = 2048
    compile_output_bytes: int = 256 * 1024 * 1024
    max_wall_factor: float = 5.0
    after_timeout: float | None = None
    # build humaneval-x: a translated assertion is kept only if the canonical solution passes
    # it within extended_reference_limit CPU s; no calibrated limit is below calibrated_floor
    extended_reference_limit: float = 0.5
    calibrated_floor: float = 0.5
    # a language's own floor (by name: cpp, java, js, go, rust), in place of calibrated_floor
    # for its assertions; a language not named keeps calibrated_floor
    calibrated_floors: dict[str, float] = field(default_factory=dict)
    # build humaneval-x: the canonical solution runs this many times, each run on the test the
    # runs before it left; a translated assertion is kept only if it passed every run
    canonical_runs: int = 2

    def __post_init__(self) -> None:
        from data_builders.execution.compiled.languages import ALIASES, LANGUAGES

        floors = {}
        for name, floor in dict(self.calibrated_floors or {}).items():
            language = ALIASES.get(str(name).lower(), str(name).lower())
            if language not in LANGUAGES:
                raise ValueError(
                    f"calibrated_floors: unknown language {name!r} (known: {', '.join(LANGUAGES)})"
                )
            if isinstance(floor, bool) or not isinstance(floor, int | float) or not floor > 0:
                raise ValueError(f"calibrated_floors: {name}: {floor!r} is not a positive number")
            floors[language] = float(floor)
        object.__setattr__(self, "calibrated_floors", floors)

    def floor_for(self, language: str) -> float:
        """The least calibrated limit of an assertion in ``language`` (its own floor where
        ``calibrated_floors`` names it, else ``calibrated_floor``)."""
        from data_builders.execution.compiled.languages import ALIASES

        key = ALIASES.get(language.lower(), language.lower())
        return self.calibrated_floors.get(key, self.calibrated_floor)

    def as_settings(self, *languages: str) -> dict[str, Any]:
        """The limits as a row's or card's settings. ``calibrated_floors`` keeps only the
        entries of ``languages`` (all when none is named) and is left out when none is left:
        a C++ build's manifest must not change when JavaScript's floor does, and rows labelled
        before the per-language floors existed still match."""
        settings = asdict(self)  # the field order is the manifests' key order
        floors = settings["calibrated_floors"]
        if languages:
            floors = {name: floor for name, floor in floors.items() if name in languages}
        if floors:
            settings["calibrated_floors"] = floors
        else:
            del settings["calibrated_floors"]
        return settings

    @classmethod
    def from_yaml(cls, path: Path = DEFAULT_CONFIG, **overrides: Any) -> ForeignLimits:
        """The compiled languages' limits of the limits file ``path`` (:func:`load_limits`),
        with ``overrides`` that are not None on top."""
        limits = load_limits(path).compiled
        return dataclasses.replace(limits, **{k: v for k, v in overrides.items() if v is not None})


ExecutorLimits = ExecutionLimits | ForeignLimits
"""The limits an executor runs under, one type per language family: Python's
:class:`~data_builders.execution.types.ExecutionLimits` (per-test CPU, memory, output, the
cap after a timeout), or the compiled languages' :class:`ForeignLimits` (which add the
compiles' limits, the load limit and the calibration of translated assertions). Two types and
not one because the families' limits differ in kind, not in value: a compile, a runtime's
start-up and a language's own calibrated floor have no Python counterpart."""


def assertion_policy(policy: LimitPolicy, foreign: ForeignLimits, *languages: str) -> LimitPolicy:
    """The per-assertion calibration policy of programs in ``languages`` (``build
    humaneval-x``, ``label --problems humaneval-x``): ``policy``'s factor (``python``'s), its
    floor raised to the languages' calibrated floor (the highest, where they differ; none
    named: ``calibrated_floor``), its cap ``foreign.timeout`` (which an assertion the
    canonical solution fails keeps)."""
    floors = [foreign.floor_for(name) for name in languages] or [foreign.calibrated_floor]
    return dataclasses.replace(policy, floor=max(policy.floor, *floors), cap=foreign.timeout)


@dataclass(frozen=True)
class Limits:
    """The limits file: Python's policy and the compiled languages' limits."""

    python: LimitPolicy
    compiled: ForeignLimits

    def executor_limits(
        self, language: str, timeout: float | None = None, max_timeouts: int | None = None
    ) -> ExecutorLimits:
        """The limits an executor runs ``language``'s programs under (``open_executor``'s
        ``limits``): Python's load limit and its cap after a timeout, or the compiled
        languages' limits. ``timeout`` S: every test gets S seconds (Python: no cap after a
        timeout; ``max_timeouts``: Python's)."""
        if language != "python":
            return self.compiled if timeout is None else replace(self.compiled, timeout=timeout)
        if timeout is not None:
            return ExecutionLimits(timeout=timeout, max_timeouts=max_timeouts)
        python = self.python
        return ExecutionLimits(
            timeout=python.load, max_timeouts=max_timeouts, after_timeout=python.after_timeout
        )

    def calibration(self, languages: Iterable[str]) -> LimitPolicy:
        """The per-test calibration policy of programs in ``languages``: Python's policy, or
        :func:`assertion_policy` of the compiled ones (one policy: their highest floor)."""
        names = sorted(set(languages))
        if names == ["python"]:
            return self.python
        return assertion_policy(self.python, self.compiled, *names)


def load_limits(path: str | Path | None = None) -> Limits:
    """Read the limits file ``path`` (default ``configs/build/limits.yaml``)."""
    from data_builders.settings_file import read_mapping

    source = Path(path) if path else DEFAULT_CONFIG
    data = read_mapping(source, "no such limits config", "limit settings", LimitConfigError)
    _check_sections(source, data)
    try:
        python = LimitPolicy(**_section(source, data, "python", LimitPolicy))
    except LimitConfigError as exc:
        raise LimitConfigError(f"{source}: python: {str(exc).removeprefix('limits: ')}") from None
    compiled = _section(source, data, "compiled", ForeignLimits)
    floors = {}
    for language in COMPILED:
        if language in data:
            own = _section(source, data, language, ForeignLimits, PER_LANGUAGE, required=False)
            if "calibrated_floor" in own:
                floors[language] = own["calibrated_floor"]
    _check_numbers(source, compiled)
    try:
        return Limits(python, ForeignLimits(**compiled, calibrated_floors=floors))
    except ValueError as exc:
        raise LimitConfigError(f"{source}: {exc}") from None


def _check_sections(source: Path, data: Mapping[str, Any]) -> None:
    sections = ("python", "compiled", *COMPILED)
    unknown = sorted(str(key) for key in data if key not in sections)
    if unknown:
        keys = {f.name for f in fields(LimitPolicy)} | {f.name for f in fields(ForeignLimits)}
        hint = (
            " (the file holds one section per language: Python's keys go under python:, the"
            " compiled languages' under compiled:)"
            if set(unknown) & keys
            else ""
        )
        raise LimitConfigError(
            f"{source}: unknown section(s) {unknown}; allowed: {list(sections)}{hint}"
        )


def _section(
    source: Path,
    data: Mapping[str, Any],
    name: str,
    kind: type,
    allowed: tuple[str, ...] | None = None,
    required: bool = True,
) -> dict[str, Any]:
    """Section ``name`` of ``data``: a mapping whose keys are ``allowed`` (default: the fields
    of ``kind`` but ``calibrated_floors``, which the language sections give)."""
    if name not in data:
        if required:
            raise LimitConfigError(f"{source}: no '{name}' section")
        return {}
    values = data[name]
    if values is None and not required:
        return {}
    if not isinstance(values, dict):
        raise LimitConfigError(f"{source}: '{name}' must be a mapping of limit settings")
    known = allowed or tuple(f.name for f in fields(kind) if f.name != "calibrated_floors")
    unknown = sorted(str(key) for key in values if key not in known)
    if unknown:
        more = " (the other limits are the compiled languages' own: set them under compiled:)"
        raise LimitConfigError(
            f"{source}: {name}: unknown key(s) {unknown}; allowed: {sorted(known)}"
            + (more if allowed else "")
        )
    if allowed:
        _check_numbers(source, values, name)
    return dict(values)


def _check_numbers(source: Path, values: Mapping[str, Any], section: str = "compiled") -> None:
    """Every value is a positive number (``after_timeout`` may be null, ``canonical_runs`` is a
    whole number)."""
    for key, value in values.items():
        if key == "after_timeout" and value is None:
            continue
        whole = key == "canonical_runs"
        if (
            isinstance(value, bool)
            or not isinstance(value, int if whole else int | float)
            or not value > 0
        ):
            what = "a whole number >= 1" if whole else "a positive number"
            raise LimitConfigError(f"{source}: {section}: {key} must be {what}, got {value!r}")
