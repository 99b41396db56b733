"""Builder defaults: one dataclass, filled from ``configs/build/<dataset>.yaml``.

The YAML files hold the values (seeds, split ratios, extension targets, timeouts); this
module only gives them types and validates them, so a typo in a key is an error, not a
silently ignored setting.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from data_builders.dataset.decontaminate import DecontaminationConfig
from data_builders.errors import UserError
from data_builders.execution.calibrate import scaled_limit

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs" / "build"
DATASETS = ("humaneval", "mbpp", "apps")


@dataclass(frozen=True)
class ExtensionConfig:
    """How many tests to aim for and how to get them (see data_builders.extension)."""

    target_tests: int = 120
    overgenerate: float = 1.6
    rounds: int = 2
    reference_timeout: float = 0.5
    max_references: int = 1


@dataclass(frozen=True)
class TimeoutConfig:
    """Per-test CPU limit for candidates: ``clamp(factor * reference time, min, max)``.

    ``probe_tests``/``after_timeout``/``rest_chunk``: see data_builders.dataset.labels.label.
    """

    factor: float = 20.0
    min: float = 0.1
    max: float = 3.0
    probe_tests: int = 5
    after_timeout: float = 0.01
    rest_chunk: int = 0  # >0: the remaining tests run in parts of this size, doubling

    def for_reference(self, reference_time: float) -> float:
        return scaled_limit(reference_time, self.factor, self.min, self.max)


@dataclass(frozen=True)
class MutantConfig:
    max_edits: int = 2


@dataclass(frozen=True)
class GenerationConfig:
    """How ``--generate`` samples (see data_builders.candidates.prompts for the modes).

    ``n``/``temperature``/``top_p`` are overridden by the flags of the same names; ``seed``
    None means the build's seed. ``batch_size`` is the local model's batch (sequences of one
    task generated together); ``concurrency``/``timeout``/``max_retries`` are the served
    client's (requests in flight, seconds per request, retries after 429/5xx).
    """

    n: int = 10
    temperature: float = 0.8
    top_p: float = 0.95
    max_new_tokens: int = 384
    seed: int | None = None
    batch_size: int = 8
    prompt: str = "complete"
    instruction: str = (
        "Complete the following Python function. Reply with the whole function in one "
        "```python code block.\n\n```python\n{prompt}```"
    )
    system: str = ""
    stop: tuple[str, ...] = ("\ndef ", "\nclass ", "\nif __name__", "\nprint(", "\n#")
    chat_stop: tuple[str, ...] = ("\n```\n",)
    concurrency: int = 8
    timeout: float = 120.0
    max_retries: int = 4

    def __post_init__(self) -> None:
        object.__setattr__(self, "stop", tuple(self.stop))
        object.__setattr__(self, "chat_stop", tuple(self.chat_stop))
        if self.prompt not in ("complete", "chat"):
            raise UserError(
                f"generation.prompt: unknown mode {self.prompt!r}; choose complete or chat"
            )
        if self.n < 1 or self.max_new_tokens < 1 or self.batch_size < 1 or self.concurrency < 1:
            raise UserError(
                "generation: n, max_new_tokens, batch_size and concurrency must be >= 1"
            )
        if self.temperature < 0 or not 0 < self.top_p <= 1:
            raise UserError("generation: temperature must be >= 0 and top_p in (0, 1]")


@dataclass(frozen=True)
class BuildConfig:
    """All builder settings; ``fingerprint`` hashes what changes the output rows."""

    seed: int = 20240101
    split_ratios: tuple[float, float, float] = (0.8, 0.1, 0.1)
    extension: ExtensionConfig = field(default_factory=ExtensionConfig)
    timeouts: TimeoutConfig = field(default_factory=TimeoutConfig)
    mutants: MutantConfig = field(default_factory=MutantConfig)
    generation: GenerationConfig = field(default_factory=GenerationConfig)
    decontamination: DecontaminationConfig = field(default_factory=DecontaminationConfig)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def fingerprint(self) -> str:
        blob = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


_SECTIONS = {
    "extension": ExtensionConfig,
    "timeouts": TimeoutConfig,
    "mutants": MutantConfig,
    "generation": GenerationConfig,
    "decontamination": DecontaminationConfig,
}


def _section(name: str, values: Any, source: Path) -> Any:
    cls = _SECTIONS[name]
    if not isinstance(values, dict):
        raise UserError(f"{source}: '{name}' must be a mapping")
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(values) - known)
    if unknown:
        raise UserError(f"{source}: unknown key(s) {unknown} in '{name}'; allowed: {sorted(known)}")
    return cls(**values)


def parse_ratios(text: str | list[float] | tuple[float, ...]) -> tuple[float, float, float]:
    """``"0.8,0.1,0.1"`` or a 3-list -> a validated (train, dev, test) triple."""
    try:
        parts = [float(x) for x in (text.split(",") if isinstance(text, str) else text)]
    except ValueError:
        parts = []
    if len(parts) != 3 or any(p < 0 for p in parts) or sum(parts) <= 0:
        raise UserError(
            f"split ratios {text!r} must be three non-negative numbers train,dev,test "
            "(e.g. 0.8,0.1,0.1)"
        )
    total = sum(parts)
    return (parts[0] / total, parts[1] / total, parts[2] / total)


def load_config(dataset: str, path: str | Path | None = None) -> BuildConfig:
    """Read ``configs/build/<dataset>.yaml`` (or ``path``) into a :class:`BuildConfig`."""
    source = Path(path) if path else CONFIG_DIR / f"{dataset}.yaml"
    if not source.is_file():
        raise UserError(f"{source}: no such config file")
    try:
        raw = yaml.safe_load(source.read_text()) or {}
    except yaml.YAMLError as exc:
        raise UserError(f"{source}: not valid YAML ({exc})") from None
    if not isinstance(raw, dict):
        raise UserError(f"{source}: expected a mapping of builder settings")
    known = {f.name for f in dataclasses.fields(BuildConfig)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise UserError(f"{source}: unknown key(s) {unknown}; allowed: {sorted(known)}")
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _SECTIONS:
            values[key] = _section(key, value, source)
        elif key == "split_ratios":
            values[key] = parse_ratios(value)
        else:
            values[key] = value
    return BuildConfig(**values)
