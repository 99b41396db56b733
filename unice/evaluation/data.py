"""Loading the split to evaluate: a dataset folder + split name, or one JSONL file.

Rows follow the dataset contract (``id``, ``task_id``, ``nl``, ``reference``, ``generated`` and
the execution labels). Labels are mandatory here: without them there is nothing to correlate with.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from data_builders.dataset.convention import stale_folder_message
from data_builders.errors import UserError
from data_builders.jsonl import iter_jsonl
from unice.data.languages import row_language
from unice.errors import DatasetFormatError
from unice.evaluation.errors import EvaluationError
from unice.evaluation.provenance import file_sha256

LABEL_FIELDS = ("pass_ratio", "executable", "passed")
TEXT_FIELDS = ("id", "task_id", "generated")
HUMAN_LABELS = ("usefulness",)
"""Labels that are human grades, not execution results (CoNaLa's 0-4 usefulness): a split
evaluated against one needs that field on every row and no execution labels."""


@dataclass
class EvalData:
    """One split, column-wise.

    Attributes:
        rows: the raw records (kept for external scorers such as ICE-Score).
        path: the JSONL file read.
        sha256: hash of that file's bytes (provenance).
        ids, task_ids, generated, references, nls: per-sample strings.
        pass_ratio: shape ``(n,)`` float; executable, passed: shape ``(n,)`` bool (``nan`` /
            False on rows without execution labels: see ``has_execution``).
        usefulness: shape ``(n,)`` float, the human grade (``nan`` where a row has none).
        reference_sets: every reference of each row (its ``references`` list, else
            ``[reference]``; ``[]`` without one), for multi-reference baselines.
        has_execution: whether every row carries execution labels.
    """

    rows: list[dict[str, Any]]
    path: Path
    sha256: str

    def __post_init__(self) -> None:
        self.ids = [str(r["id"]) for r in self.rows]
        self.task_ids = [str(r["task_id"]) for r in self.rows]
        self.generated = [str(r["generated"]) for r in self.rows]
        self.references = [str(r.get("reference") or "") for r in self.rows]
        self.nls = [str(r.get("nl") or "") for r in self.rows]
        self.reference_sets = [_reference_set(r) for r in self.rows]
        self.languages = self._languages()
        self.has_execution = all(r.get("pass_ratio") is not None for r in self.rows)
        self.pass_ratio = np.asarray(
            [np.nan if r.get("pass_ratio") is None else float(r["pass_ratio"]) for r in self.rows]
        )
        self.executable = np.asarray([bool(r.get("executable")) for r in self.rows])
        self.passed = np.asarray([bool(r.get("passed")) for r in self.rows])
        self.usefulness = np.asarray(
            [np.nan if r.get("usefulness") is None else float(r["usefulness"]) for r in self.rows]
        )

    def _languages(self) -> list[str]:
        """Each row's language, read as the scorer reads it (:func:`row_language`)."""
        out = []
        for number, row in enumerate(self.rows, start=1):
            try:
                out.append(row_language(row))
            except DatasetFormatError as exc:
                raise EvaluationError(f"{self.path}: row {number}: {exc}") from None
        return out

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def n_problems(self) -> int:
        return len(set(self.task_ids))


def _reference_set(row: dict[str, Any]) -> list[str]:
    references = row.get("references")
    if isinstance(references, list) and any(str(r).strip() for r in references):
        return [str(r) for r in references if str(r).strip()]
    reference = str(row.get("reference") or "")
    return [reference] if reference.strip() else []


def resolve_split(data: str | Path | None, split: str) -> Path:
    """The JSONL file for ``data`` (a folder holding ``<split>.jsonl``, or a file)."""
    if data in (None, ""):
        raise EvaluationError(
            "no data given: pass data=DIR (a dataset folder with test.jsonl) or data=FILE.jsonl"
        )
    path = Path(data)
    if path.is_file():
        return path
    if path.is_dir():
        for candidate in (path / f"{split}.jsonl", path / f"{split}.jsonl.gz"):
            if candidate.is_file():
                return candidate
        found = sorted(p.name.split(".")[0] for p in path.glob("*.jsonl*"))
        raise EvaluationError(
            f"split '{split}' not found in {path} (splits there: {', '.join(found) or 'none'}); "
            "pass split=NAME or build the dataset with `python -m data_builders build ...`"
        )
    raise EvaluationError(
        f"data {path} does not exist: pass data=DIR (built by `python -m data_builders build`) "
        "or data=FILE.jsonl"
    )


def _check_labels(path: Path, line: int, row: dict[str, Any]) -> None:
    ratio = row["pass_ratio"]
    if isinstance(ratio, bool) or not isinstance(ratio, (int, float)) or not 0.0 <= ratio <= 1.0:
        raise EvaluationError(f"{path}:{line}: pass_ratio {ratio!r} is not a number in [0, 1]")
    for name in ("executable", "passed"):
        if not isinstance(row[name], bool):
            raise EvaluationError(f"{path}:{line}: {name} {row[name]!r} is not true/false")


def _check_human_label(path: Path, line: int, row: dict[str, Any], label: str) -> None:
    value = row.get(label)
    if value is None:
        raise EvaluationError(
            f"{path}:{line}: sample has no {label!r} grade; evaluate label={label} on a set built "
            "with it (`python -m data_builders build conala --source DIR --out DIR`)"
        )
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 4:
        raise EvaluationError(f"{path}:{line}: {label} {value!r} is not a grade in [0, 4]")


def load_split(
    data: str | Path | None,
    split: str = "test",
    limit: int | None = None,
    label: str = "pass_ratio",
) -> EvalData:
    """Read and validate the split; ``limit`` keeps the first N rows (quick looks only).

    ``label`` names what the rows must carry: the execution labels (``pass_ratio``,
    ``passed``), or a human grade (:data:`HUMAN_LABELS`), in which case execution labels are
    not needed.

    Raises:
        EvaluationError: missing folder/split/file, malformed lines, rows without labels,
            duplicate ids, or an empty file.
    """
    path = resolve_split(data, split)
    stale = stale_folder_message(path.parent)
    if stale:
        raise EvaluationError(stale)
    rows = []
    try:
        for line, row in iter_jsonl(path, required=TEXT_FIELDS, what="sample"):
            if label in HUMAN_LABELS:
                _check_human_label(path, line, row, label)
                rows.append(row)
                if limit is not None and len(rows) >= limit:
                    break
                continue
            missing = [name for name in LABEL_FIELDS if row.get(name) is None]
            if missing:
                raise EvaluationError(
                    f"{path}:{line}: sample has no execution labels ({', '.join(missing)}); "
                    "evaluate a labelled split built by `python -m data_builders build ... --samples "
                    "FILE --out DIR`"
                )
            _check_labels(path, line, row)
            rows.append(row)
            if limit is not None and len(rows) >= limit:
                break
    except UserError as exc:
        raise EvaluationError(str(exc)) from None
    if not rows:
        raise EvaluationError(f"{path} holds no samples: rebuild the dataset")
    counts = Counter(str(r["id"]) for r in rows)
    if len(counts) != len(rows):
        dup = next(i for i, c in counts.items() if c > 1)
        raise EvaluationError(f"{path}: duplicate sample id {dup!r}; ids must be unique")
    return EvalData(rows=rows, path=path, sha256=file_sha256(path))
