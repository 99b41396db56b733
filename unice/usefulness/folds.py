"""Outer and inner folds of the usefulness cross-validation, and the rows a fold model reads.

A fold model is an ordinary CodeScore trained by ``train.py``, which reads dataset folders of
the execution contract (``pass_ratio``, ``executable``). The human grade is put on the PassRatio
output as ``grade / 4`` so the head's [0, 1] output is reused unchanged (a regression target; the
correlations reported are scale-free); ``executable`` is true on every row and its loss weight
is 0 (configs/experiment/usefulness.yaml), so the Exec output learns nothing here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.jsonl import write_jsonl

MAX_GRADE = 4.0


def inner_dev_fold(outer: int, n_folds: int) -> int:
    """The inner dev fold of outer fold ``outer``: the next one (pre-registered)."""
    return (outer + 1) % n_folds


def fold_splits(outer: int, n_folds: int) -> dict[str, set[int]]:
    """Which folds are train, dev and test for outer fold ``outer``."""
    if not 0 <= outer < n_folds:
        raise UserError(f"outer fold {outer} is not in 0..{n_folds - 1}")
    dev = inner_dev_fold(outer, n_folds)
    train = set(range(n_folds)) - {outer, dev}
    return {"train": train, "dev": {dev}, "test": {outer}}


def training_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A data/conala row in the training contract: the grade / 4 as ``pass_ratio``."""
    grade = float(row["usefulness"])
    return {
        **{k: v for k, v in row.items() if not k.startswith("study_")},
        "pass_ratio": grade / MAX_GRADE,
        "executable": True,
        "passed": grade >= MAX_GRADE,
    }


def split_rows(
    rows: Sequence[Mapping[str, Any]], outer: int, n_folds: int
) -> dict[str, list[dict[str, Any]]]:
    """The train/dev/test rows of outer fold ``outer`` (every row must carry ``fold``)."""
    splits = fold_splits(outer, n_folds)
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in splits}
    for row in rows:
        fold = row.get("fold")
        if not isinstance(fold, int) or not 0 <= fold < n_folds:
            raise UserError(
                f"row {row.get('id')!r} has fold {fold!r}, not 0..{n_folds - 1}: rebuild the set "
                "with `python -m data_builders build conala --source DIR --out data/conala`"
            )
        for name, folds in splits.items():
            if fold in folds:
                out[name].append(training_row(row))
    return out


def write_fold_data(
    rows: Sequence[Mapping[str, Any]], outer: int, n_folds: int, folder: Path
) -> dict[str, int]:
    """Write ``folder/{train,dev,test}.jsonl`` for outer fold ``outer``; return the row counts."""
    folder.mkdir(parents=True, exist_ok=True)
    counts = {}
    for name, split in split_rows(rows, outer, n_folds).items():
        counts[name] = write_jsonl(folder / f"{name}.jsonl", split)
    return counts
