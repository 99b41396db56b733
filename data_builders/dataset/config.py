"""Builder defaults: one dataclass, filled from ``configs/build/<dataset>.yaml``.

The YAML files hold the values (seeds, split ratios, extension targets, sampling); this
module only gives them types and validates them, so a typo in a key is an error, not a
silently ignored setting. Candidates' time limits are *not* a dataset setting: ``build`` and
``label`` share one policy, the ``python`` section of ``configs/build/limits.yaml`` (per-test
limits from the reference's time on each test, :mod:`data_builders.execution.calibrate`),
loaded here into ``BuildConfig.limits`` so the build's fingerprint covers it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from data_builders.dataset.decontaminate import DecontaminationConfig
from data_builders.errors import UserError
from data_builders.execution import DEFAULT_LIMITS_FILE as DEFAULT_CONFIG
from data_builders.execution import LimitConfigError, LimitPolicy
from data_builders.execution import load_limit_policy as load_policy
from data_builders.extension.config import ExtensionConfig  # importable from here too
from data_builders.settings_file import check_known, read_mapping

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs" / "build"
DATASETS = ("humaneval", "mbpp", "apps", "humaneval-x")


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
    # the first test task number: tasks numbered at or above it are test, the rest train/dev
    # by split_ratios' train:dev share (data_builders.dataset.splits.assign_splits)
    held_out_from: int | None = None
    extension: ExtensionConfig = field(default_factory=ExtensionConfig)
    limits: LimitPolicy = field(default_factory=LimitPolicy)  # from limits.yaml, not here
    mutants: MutantConfig = field(default_factory=MutantConfig)
    generation: GenerationConfig = field(default_factory=GenerationConfig)
    decontamination: DecontaminationConfig = field(default_factory=DecontaminationConfig)

    def to_dict(self) -> dict[str, Any]:
        """The settings as plain data; ``held_out_from`` only when set, so builds made before
        it existed keep their fingerprint (and resume instead of being refused)."""
        out = dataclasses.asdict(self)
        if out["held_out_from"] is None:
            del out["held_out_from"]
        return out

    def fingerprint(self) -> str:
        blob = json.dumps(self.to_dict(), sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]


_SECTIONS = {
    "extension": ExtensionConfig,
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


def check_shard(num_shards: int, shard_index: int) -> None:
    """``--num-shards K --shard-index I`` (``build``, ``sample``): I in 0..K-1, else one line."""
    if num_shards < 1 or not 0 <= shard_index < num_shards:
        raise UserError(
            f"--shard-index must be in 0..{num_shards - 1} for --num-shards {num_shards}"
        )


RETIRED = {
    "timeouts": "candidates' time limits now come from configs/build/limits.yaml (per-test "
    "limits, shared with `label`); delete the 'timeouts' section (pass --limits FILE for "
    "other values)",
    "limits": "time limits are read from configs/build/limits.yaml, not the dataset config; "
    "delete the 'limits' section (pass --limits FILE for other values)",
}


def load_config(
    dataset: str, path: str | Path | None = None, limits: str | Path | None = None
) -> BuildConfig:
    """Read ``configs/build/<dataset>.yaml`` (or ``path``) into a :class:`BuildConfig`, with
    the time-limit policy of ``limits`` (default ``configs/build/limits.yaml``)."""
    source = Path(path) if path else CONFIG_DIR / f"{dataset}.yaml"
    raw = read_mapping(source, "no such config file", "builder settings")
    for key, why in RETIRED.items():
        if key in raw:
            raise UserError(f"{source}: '{key}' is no longer a build setting: {why}")
    check_known(source, raw, {f.name for f in dataclasses.fields(BuildConfig)} - set(RETIRED))
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key in _SECTIONS:
            values[key] = _section(key, value, source)
        elif key == "split_ratios":
            values[key] = parse_ratios(value)
        else:
            values[key] = value
    try:
        values["limits"] = load_policy(Path(limits) if limits else DEFAULT_CONFIG)
    except LimitConfigError as exc:
        raise UserError(f"{exc} (fix the file or pass --limits FILE)") from None
    return BuildConfig(**values)
