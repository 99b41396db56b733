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

from data_builders.dataset.convention import stale_folder_message
from data_builders.jsonl import iter_jsonl
from unice.data.encoding import FLOAT_INPUTS, InputEncoder
from unice.data.languages import DEFAULT_LANGUAGE, row_language
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
    task_id: str = ""
    origin: str = ""
    language: str = DEFAULT_LANGUAGE
    generator: str = ""

    def labels(self) -> list[float]:
        """``[PassRatio, Executability, Passability]`` as floats."""
        return [self.pass_ratio, float(self.executable), float(self.passed)]


def _to_sample(record: dict[str, Any], where: str, origin: str = "") -> Sample:
    ratio = record["pass_ratio"]
    if not isinstance(ratio, (int, float)) or not 0.0 <= float(ratio) <= 1.0 or math.isnan(ratio):
        raise DatasetFormatError(f"{where}: pass_ratio must be a number in [0, 1], got {ratio!r}")
    passed = record.get("passed")
    try:
        language = row_language(record)
    except DatasetFormatError as exc:
        raise DatasetFormatError(f"{where}: {exc}") from None
    return Sample(
        id=str(record.get("id", where)),
        generated=str(record["generated"]),
        reference=str(record.get("reference") or ""),
        nl=str(record.get("nl") or ""),
        pass_ratio=float(ratio),
        executable=bool(record["executable"]),
        passed=bool(passed) if passed is not None else float(ratio) >= 1.0,
        task_id=str(record.get("task_id") or record.get("id", where)),
        origin=origin,
        language=language,
        generator=str(record.get("generator") or ""),
    )


def _mutant_parent(record: dict[str, Any]) -> str | None:
    """The parent a mutant row was made from (``task::<parent>``), ``None`` for other rows.

    Mutants of real programs name their parent in ``source`` (``mutant:<operators> of
    <parent>``); mutants of the reference say only ``mutant:<operators>``.
    """
    source = str(record.get("source") or "")
    if not source.startswith("mutant:"):
        return None
    parent = source.rsplit(" of ", 1)[1] if " of " in source else "reference"
    return f"{record.get('task_id', '')}::{parent}"


def read_split(
    folder: str | os.PathLike[str],
    split: str,
    build_command: str = "",
    limit: int | None = None,
    mutants_per_program: int | None = None,
) -> list[Sample]:
    """Read ``folder/<split>.jsonl``.

    Args:
        folder: dataset folder built by ``python -m data_builders build ...``.
        split: ``train``, ``dev`` or ``test``.
        build_command: the command that builds this dataset, named in the error if missing.
        limit: keep only the first ``limit`` samples (quick runs).
        mutants_per_program: keep only the first this-many mutant rows of each parent program
            (in file order, so the choice is fixed); ``None`` keeps all. Why: the mix ratio of
            mutants to real programs is a training choice decided on dev, and rebuilding the
            folder per ratio would relabel the same programs.

    Raises:
        DatasetMissingError: the folder or split file is missing (one line naming the fix).
        data_builders.errors.UserError: a malformed line (``file:line``).
    """
    path = Path(folder) / f"{split}.jsonl"
    stale = stale_folder_message(Path(folder), build_command)
    if stale:
        raise DatasetFormatError(stale)
    if not path.is_file():
        fix = build_command or "python -m data_builders build <humaneval|mbpp|apps> --out DIR"
        raise DatasetMissingError(f"dataset split {path} not found; build it with: {fix}")
    if mutants_per_program is not None and mutants_per_program < 0:
        raise DatasetFormatError(f"mutants_per_program must be >= 0, got {mutants_per_program}")
    samples = []
    kept_mutants: dict[str, int] = {}
    for line_number, record in iter_jsonl(path, required=REQUIRED_FIELDS, what="dataset row"):
        parent = _mutant_parent(record) if mutants_per_program is not None else None
        if parent is not None:
            if kept_mutants.get(parent, 0) >= mutants_per_program:
                continue
            kept_mutants[parent] = kept_mutants.get(parent, 0) + 1
        samples.append(_to_sample(record, f"{path}:{line_number}", Path(folder).name))
        if limit is not None and len(samples) >= limit:
            break
    if not samples:
        raise DatasetMissingError(
            f"dataset split {path} is empty; rebuild it with: {build_command}"
        )
    return samples


def read_splits(
    folders: Sequence[str | os.PathLike[str]],
    split: str,
    build_commands: Sequence[str] = (),
    limit: int | None = None,
    mutants_per_program: int | None = None,
) -> list[Sample]:
    """One split of several dataset folders, concatenated; each sample's ``origin`` names its
    folder. ``limit`` and ``mutants_per_program`` apply per folder (see :func:`read_split`)."""
    commands = list(build_commands) + [""] * (len(folders) - len(build_commands))
    samples: list[Sample] = []
    for folder, command in zip(folders, commands, strict=True):
        samples += read_split(folder, split, command, limit, mutants_per_program)
    return samples


def check_disjoint_splits(splits: dict[str, Sequence[Sample]]) -> None:
    """Refuse data where one problem is in two splits (e.g. train of one folder, dev of another).

    Why: folders built from the same problems with different candidate sources (real samples,
    mutants) are split by problem with the same seed and agree; folders built otherwise may
    not, and a problem in both train and dev would make every dev figure optimistic.
    """
    seen: dict[str, tuple[str, str]] = {}
    for split, samples in splits.items():
        for sample in samples:
            first = seen.setdefault(sample.task_id, (split, sample.origin))
            if first[0] != split:
                raise DatasetFormatError(
                    f"problem {sample.task_id!r} is in the {first[0]} split of {first[1]} and "
                    f"the {split} split of {sample.origin}: build the folders with the same "
                    "problem source and seed (--seed) so their splits agree"
                )


class Collator:
    """Turns a list of :class:`Sample` into one padded model batch over all formats.

    Returns a dict with ``input_ids``, ``attention_mask`` (and ``token_type_ids``), each
    ``(rows, seq)``; ``format_ids (rows,)`` indexing ``formats``; ``sample_index (rows,)`` into
    the batch; ``labels (batch, 3)``; ``group_ids (batch,)``, equal for samples of the same
    problem (task id), for the within-problem ranking loss. For an ``estimator`` model the
    joined rows are replaced by :meth:`InputEncoder.encode_segments`'s distinct segments and
    per-row indices.
    """

    def __init__(
        self,
        encoder: InputEncoder,
        formats: Sequence[str] = FORMATS,
        architecture: str = "cross",
    ):
        self.encoder = encoder
        self.formats = [fmt for fmt in FORMATS if fmt in formats]
        self.architecture = architecture

    def __call__(self, samples: Sequence[Sample]) -> dict[str, torch.Tensor]:
        texts = (
            [s.generated for s in samples],
            [s.reference for s in samples],
            [s.nl for s in samples],
        )
        languages = [s.language for s in samples]
        if self.architecture == "estimator":
            encoded = self.encoder.encode_segments(*texts, self.formats, languages)
            out = {
                key: torch.tensor(value, dtype=torch.float32 if key in FLOAT_INPUTS else torch.long)
                for key, value in encoded.items()
            }
            return self._with_labels(out, samples)
        joined = self.encoder.join_formats(*texts, self.formats, languages)
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
        return self._with_labels(out, samples)

    @staticmethod
    def _with_labels(
        out: dict[str, torch.Tensor], samples: Sequence[Sample]
    ) -> dict[str, torch.Tensor]:
        out["labels"] = torch.tensor([s.labels() for s in samples], dtype=torch.float32)
        groups: dict[str, int] = {}
        out["group_ids"] = torch.tensor(
            [groups.setdefault(s.task_id, len(groups)) for s in samples],
            dtype=torch.long,
        )
        return out
