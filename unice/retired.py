"""Settings of rejected arms whose code is gone: one table, and the one-line refusal each gets.

Why one table: a switch of an arm that was not adopted is taken out with its code, but old
``config.json`` files, experiment configs and command lines still name it. Where it holds
today's behaviour it loads (and is dropped); any other value is refused in one line naming the
last commit with its code, instead of training or scoring without it in silence. Model
switches are read by :class:`~unice.modeling.configuration.UniCEConfig` (checkpoints) and
:mod:`unice.training.settings` (training configs and ``train.py``'s overrides); data keys by the
training loop. To retire a setting, add its row here and delete its code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from unice.errors import ModelConfigError, TrainingConfigError

SECTIONS: tuple[str, ...] = ("model", "loss_weights", "data")
"""Where a retired key lived: a ``model`` field (and ``config.json`` key), a ``loss_weights``
term, or a ``data`` config key."""

ISSUE_27_ARMS_AT = "5bbd199"
FAULT_HEAD_AT = "a686e74"
EDIT_FEATURES_AT = "6aff5df"
LIKELIHOOD_FEATURES_AT = "68f4548"
REFERENCE_FREE_AT = "519b8b8"
BALANCE_AT = "34c3f18"


@dataclass(frozen=True)
class Retired:
    """One retired setting.

    Attributes:
        section: one of :data:`SECTIONS`.
        key: its name in that section.
        kept: the one value that is today's behaviour (loads, and is dropped); ``None``: any
            unset, false or zero value.
        commit: the last commit with its code.
        why: the arm it belonged to, and why it was not kept.
        idle_unless: the setting without which it did nothing: then any value of it loads (an
            old checkpoint saved it at whatever value, unread).
    """

    section: str
    key: str
    kept: Any
    commit: str
    why: str
    idle_unless: str | None = None

    def holds_today(self, value: Any) -> bool:
        """Whether ``value`` is today's behaviour (so a config holding it loads)."""
        return not value if self.kept is None else value == self.kept

    def refusal(self, value: Any) -> str:
        """The one line a config holding ``value`` is refused with."""
        supports = f"with commit {self.commit}, the last that supports it"
        if self.section == "data":
            return (
                f"data.{self.key} was retired after {self.why}; its code is at commit {self.commit}"
            )
        if self.section == "loss_weights":
            return (
                f"loss_weights.{self.key}={value!r}: this loss term was retired with the "
                "rejected arm's code (issue 27; only 0 is today's behaviour); load this "
                f"checkpoint or run this config {supports}"
            )
        return (
            f"{self.key}={value!r}: this switch was retired with the rejected arm's code (issue "
            f"27; only {self.kept!r} is today's behaviour); load this checkpoint or run this "
            f"config {supports}"
        )


_ARM_27 = "an issue 27 item 7 arm, not adopted (docs/model.md)"
_FAULT_HEAD = (
    "stage three's arm C, the fault head (on A, mean MBPP dev within-problem rho .474 "
    "against A's .464, +.010 < the .02 margin, not credited)"
)
_EDIT = (
    "the head reading what g changed in r (the token diff's size, places and token kinds): not "
    "adopted by multilingual stage two (dev .707 against .724) nor by make quality's arm K "
    "(MBPP dev mean .480 against I's .480)"
)
_LIKELIHOOD = (
    "the head reading a causal code LM's coder and reviewer likelihoods: not adopted by make "
    "quality's arm M (MBPP dev mean .479 against I's .480); the scores stay as reference-free "
    "baseline columns (unice.evaluation.likelihoods)"
)

RETIRED: tuple[Retired, ...] = (
    Retired("model", "token_alignment", False, ISSUE_27_ARMS_AT, _ARM_27),
    Retired("model", "untrained_cosine", False, ISSUE_27_ARMS_AT, _ARM_27),
    Retired("model", "comparison_only", False, ISSUE_27_ARMS_AT, _ARM_27),
    Retired("model", "ranking_pair_weight", "uniform", ISSUE_27_ARMS_AT, _ARM_27),
    Retired("model", "exact_scores", False, ISSUE_27_ARMS_AT, _ARM_27),
    Retired("model", "structure_target", "prior", ISSUE_27_ARMS_AT, _ARM_27, "structure_features"),
    Retired("model", "exec_prior_mode", "ensemble", ISSUE_27_ARMS_AT, _ARM_27, "exec_prior"),
    Retired("model", "fault_head", False, FAULT_HEAD_AT, _FAULT_HEAD),
    Retired("model", "edit_features", False, EDIT_FEATURES_AT, _EDIT),
    Retired("model", "likelihood_features", False, LIKELIHOOD_FEATURES_AT, _LIKELIHOOD),
    Retired(
        "model",
        "likelihood_model",
        "smollm2",
        LIKELIHOOD_FEATURES_AT,
        _LIKELIHOOD,
        "likelihood_features",
    ),  # fmt: skip
    Retired("loss_weights", "faults", None, FAULT_HEAD_AT, _FAULT_HEAD),
    Retired(
        "data",
        "reference_free_generators",
        None,
        REFERENCE_FREE_AT,
        "stage three's arm H (stub rows read without their reference) was not kept (docs/model.md)",
    ),
    Retired(
        "data",
        "balance",
        None,
        BALANCE_AT,
        "issue 43's arm T3 (batches balanced by generator family and pass/fail) was not "
        "adopted on the transfer dev (docs/experiments/transfer.md)",
    ),
)
"""Every retired setting, oldest arms first."""


def retired_keys(section: str) -> dict[str, Retired]:
    """The retired settings of ``section``, by key."""
    if section not in SECTIONS:
        raise ValueError(f"section={section!r}; choose one of {', '.join(SECTIONS)}")
    return {row.key: row for row in RETIRED if row.section == section}


def refuse_retired(
    section: str, values: Mapping[str, Any], context: Mapping[str, Any] | None = None
) -> None:
    """Stop ``values`` (a section of a config) where a retired key holds anything but today's
    behaviour, in one line naming the last commit with its code. ``context`` holds the live
    settings a retired key's ``idle_unless`` names (default: ``values`` itself)."""
    context = values if context is None else context
    for key, row in retired_keys(section).items():
        if key not in values:
            continue
        value = values[key]
        idle = row.idle_unless is not None and not context.get(row.idle_unless)
        if not idle and not row.holds_today(value):
            error = TrainingConfigError if section == "data" else ModelConfigError
            raise error(row.refusal(value))


def without_retired(
    section: str, values: Mapping[str, Any], context: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``values`` without its retired keys, after :func:`refuse_retired` let them through."""
    refuse_retired(section, values, context)
    retired = retired_keys(section)
    return {key: value for key, value in values.items() if key not in retired}
