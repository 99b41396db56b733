"""Scoring the split with a UniCE checkpoint, in every input format the samples allow."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

import unice
from unice.errors import UniCEError
from unice.evaluation.columns import MetricColumn
from unice.evaluation.data import EvalData
from unice.evaluation.errors import EvaluationError

FORMAT_COLUMNS = {
    "_ref": "CodeScore (Ref-only)",
    "_nl": "CodeScore (NL-only)",
    "_ref_nl": "CodeScore (Ref&NL)",
    "": "CodeScore (avg)",
}
"""Output-key suffix -> column name. ``avg`` is the mean over the formats a sample has (what the
reference implementation reports); ``Ref&NL`` is the single g+r+n pass."""


def _column(rows: list[dict], key: str) -> np.ndarray:
    return np.asarray([np.nan if r.get(key) is None else float(r[key]) for r in rows])


def score_checkpoint(
    ckpt_path: str | Path,
    data: EvalData,
    batch_size: int = 32,
    device: str | None = None,
    progress: bool = True,
) -> list[MetricColumn]:
    """CodeScore columns (one per format present) with their Exec probabilities.

    The model scores every format in one pass over the data, so the time is measured once for
    the whole run (model loading excluded, reported in ``settings``) and shared by the columns.

    Raises:
        EvaluationError: the checkpoint is missing/incomplete or the samples cannot be scored.
    """
    start = time.perf_counter()
    try:
        model = unice.load_model(ckpt_path, device=device)
    except UniCEError as exc:
        raise EvaluationError(f"{exc} (pass ckpt_path=DIR of a trained checkpoint)") from None
    load_seconds = time.perf_counter() - start
    start = time.perf_counter()
    try:
        rows = model.score(
            generated=data.generated,
            references=[r or None for r in data.references],
            nls=[n or None for n in data.nls],
            languages=data.languages,
            batch_size=batch_size,
            progress=progress,
        )
    except UniCEError as exc:
        raise EvaluationError(f"cannot score {data.path}: {exc}") from None
    seconds = time.perf_counter() - start
    settings = {"checkpoint": str(ckpt_path), "load_seconds": round(load_seconds, 3)}
    columns = []
    for suffix, name in FORMAT_COLUMNS.items():
        scores = _column(rows, f"codescore{suffix}")
        if not np.isfinite(scores).any():
            continue
        columns.append(
            MetricColumn(
                name=name,
                scores=scores,
                kind="codescore",
                seconds=seconds,
                exec_probs=_column(rows, f"exec_prob{suffix}"),
                time_note=f"one run for all formats (+{load_seconds:.1f}s loading)",
                settings=settings,
            )
        )
    return columns
