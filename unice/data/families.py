"""Generator families: which model wrote a program, grouped, for transfer dev sets.

Why: users score programs of *other* models than the ones CodeScore trained on. A dev set whose
programs come from the training generators rewards fitting them; a dev set of programs written by
a family that contributes no training program measures transfer (issue 43). (Batches balanced
by family and pass/fail were arm T3, not adopted; that code is at commit 34c3f18.)

A family is a list of shell-style patterns (``fnmatch``) over a row's ``generator`` field
(``"gpt-4-turbo/cot"``, ``"local:SmolLM2-135M-Instruct.Q4_1"``); the first family with a
matching pattern wins, in the order the configuration lists them. Families are configuration
(``data.families`` in ``configs/data/transfer.yaml``), never constants here.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Protocol, TypeVar

from omegaconf import OmegaConf

from unice.errors import DatasetFormatError

NO_GENERATOR = "<none>"
"""What a row without a ``generator`` field reads as (a reference solution, a mutant)."""


class _HasGenerator(Protocol):
    generator: str


S = TypeVar("S", bound=_HasGenerator)


def load_families(path: str | os.PathLike[str]) -> dict[str, list[str]]:
    """The ``families`` of a data config file (configs/data/transfer.yaml), in its order: for
    tools that select a family's rows outside training, by the same patterns it trains with."""
    families = OmegaConf.load(path).get("families")
    if not families:
        raise DatasetFormatError(f"{path} has no families: (generator patterns per family)")
    return {str(name): [str(p) for p in patterns] for name, patterns in families.items()}


def family_of(generator: str, families: Mapping[str, Sequence[str]]) -> str | None:
    """The first family (in configuration order) with a pattern matching ``generator``."""
    name = generator or NO_GENERATOR
    for family, patterns in families.items():
        if any(fnmatchcase(name, pattern) for pattern in patterns):
            return family
    return None


def families_of(
    samples: Sequence[_HasGenerator], families: Mapping[str, Sequence[str]], what: str
) -> list[str]:
    """Each sample's family; a generator no family names is an error, so a new generator
    never lands in training or dev unnoticed (the fix: add a pattern to ``data.families``)."""
    out: list[str] = []
    unknown: Counter[str] = Counter()
    for sample in samples:
        family = family_of(sample.generator, families)
        if family is None:
            unknown[sample.generator or NO_GENERATOR] += 1
        out.append(family or "")
    if unknown:
        named = ", ".join(f"{g!r} ({n})" for g, n in unknown.most_common(5))
        raise DatasetFormatError(
            f"{what}: {sum(unknown.values())} rows of generators no family names: {named}; "
            "add a pattern for them to data.families (configs/data/transfer.yaml)"
        )
    return out


def hold_out_family(
    train: Sequence[S],
    dev: Sequence[S],
    families: Mapping[str, Sequence[str]],
    holdout: str,
) -> tuple[list[S], list[S]]:
    """``(train without the family, dev of the family only)``.

    Why both: a family held out contributes no training program, and the dev rows are its
    programs alone, so the dev figure reads how CodeScore does on a model it never saw.
    """
    if holdout not in families:
        raise DatasetFormatError(
            f"data.holdout_family={holdout!r} is not a family of data.families "
            f"({', '.join(families)})"
        )
    train_families = families_of(train, families, "train split")
    dev_families = families_of(dev, families, "dev split")
    kept_train = [s for s, f in zip(train, train_families, strict=True) if f != holdout]
    kept_dev = [s for s, f in zip(dev, dev_families, strict=True) if f == holdout]
    if not kept_dev:
        raise DatasetFormatError(
            f"held-out family {holdout!r} has no dev rows in data.dev_dirs: add the folder "
            "holding its programs of the dev problems to data.dev_dirs"
        )
    return kept_train, kept_dev


def family_counts(
    samples: Sequence[_HasGenerator], families: Mapping[str, Sequence[str]], what: str
) -> dict[str, int]:
    """Rows per family, for the run's log (what was trained and judged on)."""
    return dict(sorted(Counter(families_of(samples, families, what)).items()))
