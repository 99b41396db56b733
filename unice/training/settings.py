"""Typed views of the hydra config groups used by the training loop (one dataclass each)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from unice.errors import TrainingConfigError
from unice.retired import refuse_retired, retired_keys

MODEL_FIELDS = (
    "hidden_sizes",
    "activation",
    "dropout",
    "layer_dropout",
    "layer_norm",
    "num_outputs",
    "max_length",
    "token_types",
    "code_truncation",
    "truncation",
    "truncation_floor",
    "pooling",
    "freeze_encoder",
    "standardize_states",
    "trainable_top_layers",
    "architecture",
    "exact_features",
    "structure_features",
    "codebertscore_features",
    "exact_prior",
    "exec_prior",
    "clean_generated",
    "length_buckets",
    "layout",
    "formats",
    "loss_weights",
)

MONITORS = (
    "example_spearman",
    "example_kendall",
    "exec_auroc",
    "kendall",
    "spearman",
    "pearson",
    "mae",
    "exec_accuracy",
    "spearman_ref",
    "spearman_nl",
    "spearman_ref_nl",
    "example_spearman_ref",
    "example_spearman_nl",
    "example_spearman_ref_nl",
)
LOWER_IS_BETTER = frozenset({"mae"})
"""Monitors where a smaller value is better; every other monitor is a correlation/accuracy."""


@dataclass(frozen=True)
class TrainerSettings:
    """Mirrors ``configs/trainer/*.yaml``."""

    accelerator: str = "auto"
    precision: str = "no"
    epochs: int = 5
    max_steps: int | None = None
    # stop training after this many seconds (then the dev pass and export, as at max_steps)
    max_seconds: float | None = None
    batch_size: int = 8
    eval_batch_size: int = 32
    grad_accum: int = 1
    lr_encoder: float = 2e-5
    lr_head: float = 1e-4
    layer_decay: float = 0.95
    weight_decay: float = 0.01
    scheduler: str = "linear"
    warmup_ratio: float = 0.1
    frozen_epochs: int = 0
    grad_clip: float | None = 1.0
    monitor: str = "example_spearman"
    monitor_mode: str | None = None
    patience: int | None = 3
    resume: str | bool = "auto"
    save_every_steps: int | None = 200
    log_every_steps: int = 10
    num_threads: int | None = None
    num_workers: int = 0
    progress: bool = True
    group_size: int = 1
    # model.freeze_encoder: where the frozen encoder's states are cached (auto: the UniCE cache
    # folder's features/, none: memory only, or a folder)
    feature_cache: str | None = "auto"

    @classmethod
    def from_config(cls, cfg: Any) -> TrainerSettings:
        """Build from a mapping, rejecting unknown keys with the allowed ones named."""
        data = dict(cfg)
        allowed = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - allowed)
        if unknown:
            raise TrainingConfigError(
                f"unknown trainer option(s) {unknown}; allowed: {sorted(allowed)}"
            )
        settings = cls(**data)
        settings.validate()
        return settings

    @property
    def best_is(self) -> str:
        """``"min"`` or ``"max"``: ``monitor_mode`` when given, else from the monitor (min for
        ``mae``, max otherwise), so ``trainer.monitor=mae`` alone keeps the lowest-error model."""
        if self.monitor_mode in ("max", "min"):
            return self.monitor_mode
        return "min" if self.monitor in LOWER_IS_BETTER else "max"

    def validate(self) -> None:
        """Raise :class:`TrainingConfigError` naming allowed values for bad choices."""
        choices = {
            "accelerator": ("auto", "cpu", "gpu"),
            "precision": ("no", "fp16", "bf16"),
            "monitor_mode": (None, "auto", "max", "min"),
            "scheduler": ("linear", "cosine", "constant", "constant_with_warmup"),
        }
        for name, allowed in choices.items():
            if getattr(self, name) not in allowed:
                raise TrainingConfigError(
                    f"trainer.{name}={getattr(self, name)!r}; choose one of {_choices(allowed)}"
                )
        if self.monitor not in MONITORS:
            raise TrainingConfigError(
                f"trainer.monitor={self.monitor!r}; choose one of {', '.join(MONITORS)}"
            )
        if min(self.batch_size, self.grad_accum, self.epochs, self.group_size) < 1:
            raise TrainingConfigError(
                "trainer.batch_size, trainer.grad_accum, trainer.epochs and trainer.group_size "
                "must be >= 1"
            )
        if self.max_seconds is not None and not self.max_seconds > 0:
            raise TrainingConfigError(
                f"trainer.max_seconds={self.max_seconds} must be > 0 (null: no time limit)"
            )
        if not 0.0 <= self.warmup_ratio < 1.0:
            raise TrainingConfigError(f"trainer.warmup_ratio={self.warmup_ratio} must be in [0, 1)")


def _choices(allowed: tuple[str | None, ...]) -> str:
    return ", ".join("null" if value is None else value for value in allowed)


def refuse_retired_model_keys(model: Mapping[str, Any]) -> None:
    """Stop a training config whose ``model`` holds a retired switch or loss term
    (:data:`unice.retired.RETIRED`) at anything but today's behaviour, in one line naming the
    last commit with its code, before any data is read. Why here too: a key added with
    ``+model.fault_head=true`` is read by no field any more and would train without it in
    silence."""
    refuse_retired("model", model)
    refuse_retired("loss_weights", dict(model.get("loss_weights") or {}))


def refuse_retired_overrides(overrides: Sequence[str]) -> None:
    """:func:`refuse_retired_model_keys` on ``train.py``'s command-line overrides, before hydra
    composes them: ``model.fault_head=true`` (a key no config has now) would otherwise stop in
    hydra's "not in struct" error instead of naming the commit with the code (stage three's
    C arms in ``configs/experiment/zeroshot_cpu.yaml`` are such overrides). Arguments hydra
    cannot parse are left to hydra."""
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.errors import OverrideParseException

    try:
        parsed = OverridesParser.create().parse_overrides(
            [arg for arg in overrides if not arg.startswith("-")]
        )
    except OverrideParseException:  # hydra reports its own syntax errors
        return
    model: dict[str, Any] = {}
    weights: dict[str, Any] = {}
    switches, terms = retired_keys("model"), retired_keys("loss_weights")
    for override in parsed:
        key = override.key_or_group
        if override.is_delete() or override.is_sweep_override() or not key.startswith("model."):
            continue
        key = key.removeprefix("model.")
        if key in switches:
            model[key] = override.value()
        elif key.removeprefix("loss_weights.") in terms:
            weights[key.removeprefix("loss_weights.")] = override.value()
        elif key == "loss_weights" and isinstance(override.value(), Mapping):
            weights.update(override.value())
    refuse_retired_model_keys({**model, "loss_weights": weights})
