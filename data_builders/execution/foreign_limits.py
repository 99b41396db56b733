"""The limits a program in another language runs under (``configs/build/languages.yaml``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

DEFAULT_CONFIG = Path(__file__).resolve().parents[2] / "configs" / "build" / "languages.yaml"


@dataclass(frozen=True)
class ForeignLimits:
    """Limits for one program (defaults: ``configs/build/languages.yaml``)."""

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
        from data_builders.execution.languages import ALIASES, LANGUAGES

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
        from data_builders.execution.languages import ALIASES

        key = ALIASES.get(language.lower(), language.lower())
        return self.calibrated_floors.get(key, self.calibrated_floor)

    def as_settings(self) -> dict[str, Any]:
        """The limits as a row's or card's settings (``calibrated_floors`` only when it names a
        language, so rows labelled before it existed still match)."""
        settings = asdict(self)
        if not settings["calibrated_floors"]:
            del settings["calibrated_floors"]
        return settings

    @classmethod
    def from_yaml(cls, path: Path = DEFAULT_CONFIG, **overrides: Any) -> ForeignLimits:
        """The limits in ``path`` (unknown keys are an error), with ``overrides`` on top;
        a missing, malformed or mistyped file is a one-line ``LimitConfigError``."""
        from data_builders.execution.calibrate import LimitConfigError
        from data_builders.settings_file import check_known, read_mapping

        data = read_mapping(Path(path), "no such limits config", "limit settings", LimitConfigError)
        check_known(Path(path), data, (f.name for f in fields(cls)), LimitConfigError)
        data.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**data)
