"""Scoring with a trained UniCE model: CodeScore and Exec probability per sample and format."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from unice.data.encoding import InputEncoder
from unice.errors import ScoringInputError
from unice.modeling.configuration import FORMATS

_KEY_SUFFIX = {"ref": "_ref", "nl": "_nl", "ref_nl": "_ref_nl"}


def _check_lengths(name: str, values: Sequence[Any] | None, n: int) -> list[Any]:
    if values is None:
        return [None] * n
    if isinstance(values, str):
        raise ScoringInputError(f"{name} must be a list of strings, not one string")
    if len(values) != n:
        raise ScoringInputError(f"{name} has {len(values)} items but generated has {n}")
    return list(values)


def _tokenizer_of(model) -> Any:
    if getattr(model, "tokenizer", None) is None:
        from transformers import AutoTokenizer

        source = model.config._name_or_path or getattr(model, "name_or_path", "")
        if not source:
            raise ScoringInputError(
                "this model has no tokenizer; load it with unice.load_model(dir)"
            )
        model.tokenizer = AutoTokenizer.from_pretrained(source)
    return model.tokenizer


def empty_row() -> dict[str, float | None]:
    """A result row with every key of the contract set to ``None``."""
    row: dict[str, float | None] = {"codescore": None, "exec_prob": None}
    for suffix in _KEY_SUFFIX.values():
        row[f"codescore{suffix}"] = None
        row[f"exec_prob{suffix}"] = None
    return row


@torch.inference_mode()
def score(
    model,
    *,
    generated: Sequence[str],
    references: Sequence[str | None] | None = None,
    nls: Sequence[str | None] | None = None,
    batch_size: int = 32,
    progress: bool = False,
) -> list[dict[str, float | None]]:
    """Score generated programs without executing them.

    Each sample is scored in every format it has among those the model was trained with
    (g+r needs a reference, g+n an NL, g+r+n both); ``codescore``/``exec_prob`` are the mean
    over those formats, as the reference implementation averages its passes.

    Args:
        model: a :class:`~unice.modeling.model.UniCEModel` (e.g. from ``unice.load_model``).
        generated: candidate programs.
        references: reference solutions aligned with ``generated`` (``None``/"" = absent).
        nls: problem descriptions aligned with ``generated`` (``None``/"" = absent).
        batch_size: samples per forward pass.
        progress: show a progress bar on stderr.

    Returns:
        One dict per sample with ``codescore``, ``exec_prob`` and per-format
        ``codescore_{ref,nl,ref_nl}`` / ``exec_prob_{ref,nl,ref_nl}`` (``None`` when absent).

    Raises:
        ScoringInputError: lengths differ, or a sample has neither reference nor NL.
    """
    if isinstance(generated, str):
        raise ScoringInputError("generated must be a list of strings, not one string")
    generated = list(generated)
    n = len(generated)
    references = _check_lengths("references", references, n)
    nls = _check_lengths("nls", nls, n)
    if batch_size < 1:
        raise ScoringInputError(f"batch_size={batch_size} must be >= 1")
    config = model.config
    encoder = InputEncoder.from_config(_tokenizer_of(model), config)
    formats = [fmt for fmt in FORMATS if fmt in config.formats]
    was_training = model.training
    model.eval()
    rows = [empty_row() for _ in range(n)]
    starts = range(0, n, batch_size)
    if progress:
        from tqdm.auto import tqdm

        starts = tqdm(starts, desc="unice-score", unit="batch", total=-(-n // batch_size))
    try:
        for start in starts:
            stop = min(start + batch_size, n)
            _score_batch(model, encoder, formats, generated, references, nls, start, stop, rows)
    finally:
        model.train(was_training)
    for index, row in enumerate(rows):
        _combine(row, index)
    return rows


def _score_batch(model, encoder, formats, generated, references, nls, start, stop, rows) -> None:
    device = next(model.parameters()).device
    encoded = encoder.encode_formats(
        generated[start:stop], references[start:stop], nls[start:stop], formats
    )
    for fmt, (index, batch) in encoded.items():
        tensors = {key: torch.tensor(value, device=device) for key, value in batch.items()}
        probs = torch.sigmoid(model(**tensors).logits.float()).cpu()
        for row_index, prob in zip(index, probs, strict=True):
            row = rows[start + row_index]
            row[f"codescore{_KEY_SUFFIX[fmt]}"] = float(prob[0])
            row[f"exec_prob{_KEY_SUFFIX[fmt]}"] = float(prob[1])


def _combine(row: dict[str, float | None], index: int) -> None:
    scores = [
        row[f"codescore{s}"] for s in _KEY_SUFFIX.values() if row[f"codescore{s}"] is not None
    ]
    execs = [row[f"exec_prob{s}"] for s in _KEY_SUFFIX.values() if row[f"exec_prob{s}"] is not None]
    if not scores:
        raise ScoringInputError(
            f"sample {index} has no usable format: give it a reference or an NL description "
            "(this model scores g+r, g+n and g+r+n)"
        )
    row["codescore"] = sum(scores) / len(scores)
    row["exec_prob"] = sum(execs) / len(execs)
