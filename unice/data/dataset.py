"""Reading UniCE dataset splits (``DIR/{train,dev,test}.jsonl``) and collating batches.

One batch holds every format its samples have, concatenated into ONE padded tensor batch with
a ``format_ids`` row tag, so the model runs a single forward pass per step. That keeps DDP
happy (one forward, one backward) and lets samples without a reference or NL contribute only
the formats they have -- masking rows, never dropping a batch.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from data_builders.jsonl import iter_jsonl
from unice.data.encoding import InputEncoder
from unice.errors import DatasetFormatError, DatasetMissingError
from unice.modeling.configuration import FORMATS

REQUIRED_FIELDS = ("generated", "pass_ratio", "executable")


@dataclass(frozen=True)
class Sample:
    """One candidate program with its execution labels."""

    id: str
    generated: str
    reference: str
    nl: str
    pass_ratio: float
    executable: bool
    passed: bool

    def labels(self) -> list[float]:
        """``[PassRatio, Executability, Passability]`` as floats."""
        return [self.pass_ratio, float(self.executable), float(self.passed)]


def _to_sample(record: dict[str, Any], where: str) -> Sample:
    ratio = record["pass_ratio"]
    if not isinstance(ratio, (int, float)) or not 0.0 <= float(ratio) <= 1.0 or math.isnan(ratio):
        raise DatasetFormatError(f"{where}: pass_ratio must be a number in [0, 1], got {ratio!r}")
    passed = record.get("passed")
    return Sample(
        id=str(record.get("id", where)),
        generated=str(record["generated"]),
        reference=str(record.get("reference") or ""),
        nl=str(record.get("nl") or ""),
        pass_ratio=float(ratio),
        executable=bool(record["executable"]),
        passed=bool(passed) if passed is not None else float(ratio) >= 1.0,
    )


def read_split(
    folder: str | os.PathLike[str],
    split: str,
    build_command: str = "",
    limit: int | None = None,
) -> list[Sample]:
    """Read ``folder/<split>.jsonl``.

    Args:
        folder: dataset folder built by ``python -m data_builders build ...``.
        split: ``train``, ``dev`` or ``test``.
        build_command: the command that builds this dataset, named in the error if missing.
        limit: keep only the first ``limit`` samples (quick runs).

    Raises:
        DatasetMissingError: the folder or split file is missing (one line naming the fix).
        data_builders.errors.UserError: a malformed line (``file:line``).
    """
    path = Path(folder) / f"{split}.jsonl"
    if not path.is_file():
        fix = build_command or "python -m data_builders build <humaneval|mbpp|apps> --out DIR"
        raise DatasetMissingError(f"dataset split {path} not found; build it with: {fix}")
    samples = []
    for line_number, record in iter_jsonl(path, required=REQUIRED_FIELDS, what="dataset row"):
        samples.append(_to_sample(record, f"{path}:{line_number}"))
        if limit is not None and len(samples) >= limit:
            break
    if not samples:
        raise DatasetMissingError(
            f"dataset split {path} is empty; rebuild it with: {build_command}"
        )
    return samples


class Collator:
    """Turns a list of :class:`Sample` into one padded model batch over all formats.

    Returns a dict with ``input_ids``, ``attention_mask`` (and ``token_type_ids``), each
    ``(rows, seq)``; ``format_ids (rows,)`` indexing ``formats``; ``sample_index (rows,)`` into
    the batch; ``labels (batch, 3)``.
    """

    def __init__(self, encoder: InputEncoder, formats: Sequence[str] = FORMATS):
        self.encoder = encoder
        self.formats = [fmt for fmt in FORMATS if fmt in formats]

    def __call__(self, samples: Sequence[Sample]) -> dict[str, torch.Tensor]:
        joined = self.encoder.join_formats(
            [s.generated for s in samples],
            [s.reference for s in samples],
            [s.nl for s in samples],
            self.formats,
        )
        rows: list[tuple[list[int], list[int]]] = []
        format_ids: list[int] = []
        sample_index: list[int] = []
        for fmt, (index, format_rows) in joined.items():  # padded once, over all formats
            rows += format_rows
            format_ids += [FORMATS.index(fmt)] * len(index)
            sample_index += index
        padded = self.encoder.pad(rows)
        out = {key: torch.tensor(value, dtype=torch.long) for key, value in padded.items()}
        out["format_ids"] = torch.tensor(format_ids, dtype=torch.long)
        out["sample_index"] = torch.tensor(sample_index, dtype=torch.long)
        out["labels"] = torch.tensor([s.labels() for s in samples], dtype=torch.float32)
        return out
