"""Scoring with a trained UniCE model: CodeScore and Exec probability per sample and format."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

from unice.data.encoding import ESTIMATOR_INPUTS, FLOAT_INPUTS, InputEncoder
from unice.data.languages import check_language
from unice.errors import ScoringInputError, UniCEError
from unice.modeling.configuration import FORMATS

_KEY_SUFFIX = {"ref": "_ref", "nl": "_nl", "ref_nl": "_ref_nl"}
SCORE_DECIMALS = 6
"""Scores are rounded to 1e-6: a forward pass padded differently gives the same input values
that differ around 1e-8, which correlations would otherwise rank as if they meant something.
(Unrounded float64 scores, ``exact_scores``, changed no dev figure and were retired.)"""


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
    languages: Sequence[str | None] | None = None,
    batch_size: int = 32,
    progress: bool = False,
    tokenizer: Any = None,
) -> list[dict[str, float | None]]:
    """Score generated programs without executing them.

    Each sample is scored in every format it has among those the model was trained with
    (g+r needs a reference, g+n an NL, g+r+n both); ``codescore``/``exec_prob`` are the mean
    over those formats, as the reference implementation averages its passes.

    Inputs follow the convention of ``data_builders.dataset.convention``: ``nls`` hold the
    task as the generator saw it (e.g. the HumanEval prompt), ``generated`` and
    ``references`` the code without that prompt repeated (a HumanEval completion's body).

    Args:
        model: a :class:`~unice.modeling.model.UniCEModel` (e.g. from ``unice.load_model``).
        generated: candidate programs.
        references: reference solutions aligned with ``generated`` (``None``/"" = absent).
        nls: problem descriptions aligned with ``generated`` (``None``/"" = absent).
        languages: each sample's programming language (``python``, ``cpp``, ``java``, ``js``,
            ``go``, ``rust``; ``None`` = Python): how its code is parsed for the exact
            features. A file may mix languages.
        batch_size: samples per forward pass.
        progress: show a progress bar on stderr.
        tokenizer: encode with this tokenizer instead of the model's own (training passes
            the one it trains with).

    Returns:
        One dict per sample with ``codescore``, ``exec_prob`` and per-format
        ``codescore_{ref,nl,ref_nl}`` / ``exec_prob_{ref,nl,ref_nl}`` (``None`` when absent).

    Raises:
        ScoringInputError: lengths differ, a sample has neither reference nor NL, or a
            language is not one of the supported ones.
    """
    if isinstance(generated, str):
        raise ScoringInputError("generated must be a list of strings, not one string")
    generated = list(generated)
    n = len(generated)
    references = _check_lengths("references", references, n)
    nls = _check_lengths("nls", nls, n)
    languages = _check_languages(_check_lengths("languages", languages, n))
    if batch_size < 1:
        raise ScoringInputError(f"batch_size={batch_size} must be >= 1")
    config = model.config
    encoder = InputEncoder.from_config(tokenizer or _tokenizer_of(model), config)
    formats = [fmt for fmt in FORMATS if fmt in config.formats]
    _check_usable(formats, references, nls)
    # identical inputs are scored once and share their scores: ties stay exact ties instead
    # of differing by float noise from different batch padding (and LLM samples repeat a lot)
    first_of: dict[tuple[str, str | None, str | None, str], int] = {}
    source = [
        first_of.setdefault(key, i)
        for i, key in enumerate(zip(generated, references, nls, languages, strict=True))
    ]
    unique = sorted(set(source))
    order = _batch_order(unique, generated, references, nls, config.architecture)
    batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    if progress:
        from tqdm.auto import tqdm

        batches = tqdm(batches, desc="unice-score", unit="batch")
    was_training = model.training
    model.eval()
    rows = [empty_row() for _ in range(n)]
    try:
        for indices in batches:
            texts = (generated, references, nls, languages)
            _score_batch(model, encoder, formats, indices, texts, rows)
    finally:
        model.train(was_training)
    for index in unique:
        _combine(rows[index])
    return [rows[i] if i == first else dict(rows[first]) for i, first in enumerate(source)]


def _check_languages(languages: list[str | None]) -> list[str]:
    """Each sample's language checked against the supported ones (``None`` = Python)."""
    out = []
    for index, language in enumerate(languages):
        try:
            out.append(check_language(language))
        except UniCEError as exc:
            raise ScoringInputError(f"sample {index}: {exc}") from None
    return out


def _chars(*texts: str | None) -> int:
    return sum(len(text or "") for text in texts)


def _batch_order(
    unique: list[int], generated: list, references: list, nls: list, architecture: str
) -> list[int]:
    """The order samples are batched in (rows are put back in input order after).

    Longest first, so each batch pads to similar lengths. An estimator encodes each distinct
    text of a batch once, so its samples are kept together by problem (reference and NL):
    a batch of one problem's candidates encodes its reference and NL once instead of once
    per sample, which is most of the work when users score many candidates per problem.
    """
    if architecture != "estimator":
        return sorted(unique, key=lambda i: -_chars(generated[i], references[i], nls[i]))
    by_problem: dict[tuple[str | None, str | None], list[int]] = {}
    for i in unique:
        by_problem.setdefault((references[i], nls[i]), []).append(i)
    groups = [
        sorted(members, key=lambda i: -_chars(generated[i])) for members in by_problem.values()
    ]
    groups.sort(key=lambda m: -max(_chars(generated[i], references[i], nls[i]) for i in m))
    return [i for members in groups for i in members]


def has_usable_format(formats: Sequence[str], reference: str | None, nl: str | None) -> bool:
    """Whether a sample with this reference/NL can be scored in one of ``formats``."""
    has_ref, has_nl = bool(reference and reference.strip()), bool(nl and nl.strip())
    return (
        ("ref" in formats and has_ref)
        or ("nl" in formats and has_nl)
        or ("ref_nl" in formats and has_ref and has_nl)
    )


def _check_usable(formats: list[str], references: list, nls: list) -> None:
    """Fail before any compute when a sample has no format this model scores."""
    for index, (ref, nl) in enumerate(zip(references, nls, strict=True)):
        if not has_usable_format(formats, ref, nl):
            raise ScoringInputError(
                f"sample {index} has no usable format: this model scores {', '.join(formats)}; "
                "give it a reference and/or an NL description"
            )


def _score_batch(model, encoder, formats, indices, texts, rows) -> None:
    """Score samples ``indices`` in every format they have; fill their ``rows`` in place."""
    device = next(model.parameters()).device
    generated, references, nls, languages = ([column[i] for i in indices] for column in texts)
    if model.config.architecture == "estimator":
        segments = (generated, references, nls, languages)
        _score_estimator_batch(model, encoder, formats, indices, segments, rows, device)
        return
    encoded = encoder.encode_formats(generated, references, nls, formats, languages)
    for fmt, (positions, batch) in encoded.items():
        tensors = {key: torch.tensor(value, device=device) for key, value in batch.items()}
        probs = _probabilities(model(**tensors).logits)
        for position, prob in zip(positions, probs, strict=True):
            _record(rows[indices[position]], fmt, prob)


def _score_estimator_batch(model, encoder, formats, indices, texts, rows, device) -> None:
    """One forward for every format of an estimator model (its segments are shared)."""
    generated, references, nls, languages = texts
    encoded = encoder.encode_segments(generated, references, nls, formats, languages)
    tensors = {
        key: torch.tensor(
            encoded[key],
            device=device,
            dtype=torch.float32 if key in FLOAT_INPUTS else torch.long,
        )
        for key in ESTIMATOR_INPUTS
        if key in encoded
    }
    probs = _probabilities(model(**tensors).logits)
    rows_of = zip(encoded["format_ids"], encoded["sample_index"], probs, strict=True)
    for format_id, position, prob in rows_of:
        _record(rows[indices[position]], FORMATS[format_id], prob)


def _probabilities(logits: torch.Tensor) -> torch.Tensor:
    """Sigmoid of the logits in float32 on the CPU."""
    return torch.sigmoid(logits.float()).cpu()


def _record(row: dict[str, float | None], fmt: str, prob: torch.Tensor) -> None:
    """Put one format's CodeScore and Exec probability into a sample's result row."""
    row[f"codescore{_KEY_SUFFIX[fmt]}"] = round(float(prob[0]), SCORE_DECIMALS)
    row[f"exec_prob{_KEY_SUFFIX[fmt]}"] = round(float(prob[1]), SCORE_DECIMALS)


def _combine(row: dict[str, float | None]) -> None:
    """The combined prediction: mean over the formats the sample was scored in."""
    scores = [row[f"codescore{s}"] for s in _KEY_SUFFIX.values()]
    execs = [row[f"exec_prob{s}"] for s in _KEY_SUFFIX.values()]
    scores = [value for value in scores if value is not None]
    execs = [value for value in execs if value is not None]
    row["codescore"] = round(sum(scores) / len(scores), SCORE_DECIMALS)
    row["exec_prob"] = round(sum(execs) / len(execs), SCORE_DECIMALS)
