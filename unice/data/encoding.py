"""Turning (generated, reference, NL) triples into backbone inputs for each format.

Formats follow the paper with generated code first: g+r, g+n and g+r+n, joined with the
backbone's own separators (``<s> g </s></s> r </s>`` for RoBERTa/UniXcoder,
``[CLS] g [SEP] r [SEP]`` for BERT). Token types are 0 up to the first separator and 1 after
it when the encoder has two or more token types.

Truncation follows the spec's priority (``truncation: priority``, the default): each segment
is tokenized alone, every segment first gets a floor (``truncation_floor`` of the budget, or
all of it when shorter), then what is left goes to the generated code first, the reference
next and the NL last -- the generated code is what is being judged, so it is cut last, and the
NL (the prompt, under the input convention of ``data_builders.dataset.convention``) first.
``truncation: fair`` splits the budget by water-filling instead. The public release cut the
joined sequence from the end, so a long generated program silently pushed out the whole NL
and reference. A cut NL keeps its beginning; cut code keeps by default a quarter of its budget
from the start and the rest from the end.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from unice.data.codebertscore_features import CodeBertScoreFeatures
from unice.data.features import clean_generated, exact_features
from unice.data.languages import DEFAULT_LANGUAGE
from unice.data.layout import encode_layout
from unice.errors import ModelConfigError
from unice.modeling.configuration import CODE_TRUNCATIONS, FORMATS

TOKEN_CACHE_SIZE = 200_000
"""Distinct texts whose token ids an encoder keeps (a few hundred MB at most)."""

ESTIMATOR_INPUTS: tuple[str, ...] = (
    "segment_input_ids",
    "segment_attention_mask",
    "generated_index",
    "reference_index",
    "nl_index",
    "exact_features",
)
"""The keys of :meth:`InputEncoder.encode_segments` an ``estimator`` model's forward takes
(``exact_features`` only when the model was built with them)."""
FLOAT_INPUTS: frozenset[str] = frozenset({"exact_features"})
"""Model inputs that are float tensors (every other input holds token ids or indices)."""

CODE_HEAD_FRACTION = 0.25
"""Share of a cut code segment's budget kept from its start with ``head_tail`` truncation."""

FORMAT_SEGMENTS: dict[str, tuple[str, ...]] = {
    "ref": ("generated", "reference"),
    "nl": ("generated", "nl"),
    "ref_nl": ("generated", "reference", "nl"),
}


def fair_budgets(lengths: Sequence[int], budget: int) -> list[int]:
    """Split ``budget`` tokens among segments of ``lengths`` by water-filling.

    Segments shorter than an equal share keep their full length; what they leave is shared
    equally by the longer ones (earlier segments get the odd token first).

    >>> fair_budgets([10, 500, 500], 210)
    [10, 100, 100]
    """
    alloc = [0] * len(lengths)
    remaining = max(budget, 0)
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], -i))
    for rank, index in enumerate(order):
        share = remaining // (len(lengths) - rank)
        alloc[index] = min(lengths[index], share)
        remaining -= alloc[index]
    for index in sorted(range(len(lengths))):  # hand out rounding leftovers
        extra = min(remaining, lengths[index] - alloc[index])
        alloc[index] += extra
        remaining -= extra
    return alloc


def priority_budgets(lengths: Sequence[int], budget: int, floor: float) -> list[int]:
    """Split ``budget`` tokens among segments in priority order, each keeping a floor.

    Every segment first keeps ``min(length, floor * budget)`` tokens; the rest of the budget
    goes to the segments in order (the first is the generated code), each taking what it
    still needs.

    >>> priority_budgets([300, 500, 500], 240, 0.125)
    [180, 30, 30]
    >>> priority_budgets([50, 500, 500], 240, 0.125)
    [50, 160, 30]
    """
    budget = max(budget, 0)
    floor_tokens = int(budget * floor)
    alloc = [min(length, floor_tokens) for length in lengths]
    remaining = budget - sum(alloc)
    for index, length in enumerate(lengths):
        extra = max(min(length - alloc[index], remaining), 0)
        alloc[index] += extra
        remaining -= extra
    return alloc


def cut(segment: Sequence[int], budget: int, mode: str) -> list[int]:
    """Keep ``budget`` tokens of ``segment``: ``head``, ``tail`` or ``head_tail``."""
    if len(segment) <= budget:
        return list(segment)
    if budget <= 0:
        return []
    if mode == "head":
        return list(segment[:budget])
    if mode == "tail":
        return list(segment[len(segment) - budget :])
    head = math.ceil(budget * CODE_HEAD_FRACTION)
    return list(segment[:head]) + list(segment[len(segment) - (budget - head) :])


@dataclass(frozen=True)
class Separators:
    """The backbone's special tokens: ``prefix g middle r middle n suffix``."""

    prefix: tuple[int, ...]
    middle: tuple[int, ...]
    suffix: tuple[int, ...]

    @classmethod
    def from_tokenizer(cls, tokenizer) -> Separators:
        """Read the pair template off the tokenizer (RoBERTa doubles the middle separator)."""
        cls_id = tokenizer.cls_token_id if tokenizer.cls_token_id is not None else None
        sep_id = tokenizer.sep_token_id
        if cls_id is None:
            cls_id = tokenizer.bos_token_id
        if sep_id is None:
            sep_id = tokenizer.eos_token_id
        if sep_id is None:
            raise ModelConfigError("the tokenizer has no SEP/EOS token to build inputs with")
        # a causal LM's tokenizer may have no BOS at all (Qwen2.5): segments then start bare
        prefix = (cls_id,) if cls_id is not None else ()
        pair = tokenizer("a", "b")["input_ids"]
        n_sep = sum(1 for token in pair if token == sep_id)
        return cls(prefix, (sep_id,) * max(n_sep - 1, 1), (sep_id,))


class InputEncoder:
    """Builds token ids, attention masks and token types of each format.

    Args:
        tokenizer: the backbone's tokenizer (layout tokens already added when used).
        max_length: total length including special tokens.
        use_token_types: 0 for the generated segment, 1 after it; otherwise no token types.
        layout: rewrite text with layout markers first (see ``unice.data.layout``).
        code_truncation: how cut code segments are shortened: ``head``, ``tail``, ``head_tail``.
        truncation: ``priority`` (generated code cut last, NL first) or ``fair``.
        truncation_floor: share of the budget each segment keeps under ``priority``.
        clean: remove generator tell-tales from the generated code first
            (:func:`unice.data.features.clean_generated`).
        features: add each row's :func:`unice.data.features.exact_features` (estimator).
        structure: with ``features``, add its ``structure_features`` too (g's AST node-kind
            counts against the reference's).
        codebertscore: with ``features``, add each row's CodeBERTScore F1/F3 against its
            reference last (:class:`unice.data.codebertscore_features.CodeBertScoreFeatures`;
            rows without a reference read zeros).

    Token ids of each distinct text are computed once and kept (``tokenize``): the reference
    and NL of a problem are shared by all its candidates, and training reads every sample in
    three formats and every epoch.
    """

    def __init__(
        self,
        tokenizer,
        max_length: int,
        use_token_types: bool,
        layout: bool,
        code_truncation: str = "head_tail",
        truncation: str = "priority",
        truncation_floor: float = 0.125,
        clean: bool = False,
        features: bool = False,
        structure: bool = False,
        codebertscore: CodeBertScoreFeatures | None = None,
    ):
        if code_truncation not in CODE_TRUNCATIONS:
            raise ModelConfigError(
                f"code_truncation={code_truncation!r}; choose one of {', '.join(CODE_TRUNCATIONS)}"
            )
        self.code_truncation = code_truncation
        self.truncation = truncation
        self.truncation_floor = truncation_floor
        self._token_cache: dict[str, list[int]] = {}
        self.clean = clean
        self.features = features
        self.structure = structure
        self.codebertscore = codebertscore
        self._clean_cache: dict[tuple[str, str | None], str] = {}
        self._feature_cache: dict[tuple[str, str | None, str | None], list[float]] = {}
        self.tokenizer = tokenizer
        self.max_length = max_length
        self.use_token_types = use_token_types
        self.layout = layout
        self.separators = Separators.from_tokenizer(tokenizer)
        if tokenizer.pad_token_id is None:
            raise ModelConfigError("the tokenizer has no padding token")
        self.pad_id = int(tokenizer.pad_token_id)

    @classmethod
    def from_config(cls, tokenizer, config) -> InputEncoder:
        """The encoder a :class:`~unice.modeling.configuration.UniCEConfig` was trained with."""
        return cls(
            tokenizer,
            config.max_length,
            config.use_token_types,
            config.layout_active,
            config.code_truncation,
            getattr(config, "truncation", "priority"),
            getattr(config, "truncation_floor", 0.125),
            bool(getattr(config, "clean_generated", False)),
            bool(getattr(config, "exact_features", False)),
            bool(getattr(config, "structure_features", False)),
            open_codebertscore(config),
        )

    def cleaned(
        self,
        generated: Sequence[str],
        nls: Sequence[str | None],
        languages: Sequence[str] | None = None,
    ) -> list[str]:
        """The generated code as the model reads it: cleaned of tell-tales when ``clean``
        (Python's tell-tales only: other languages' code is read as it is)."""
        if not self.clean:
            return list(generated)
        cache = self._clean_cache
        if len(cache) > TOKEN_CACHE_SIZE:
            cache.clear()
        out = []
        for code, nl, language in zip(generated, nls, _languages(languages, len(nls)), strict=True):
            key = (code, nl or None, language)
            if key not in cache:
                cache[key] = clean_generated(code, nl or None, language=language)
            out.append(cache[key])
        return out

    def row_features(
        self,
        generated: str,
        reference: str | None,
        nl: str | None,
        language: str = DEFAULT_LANGUAGE,
    ) -> list[float]:
        """:func:`~unice.data.features.exact_features` of one row from the fields its format
        has (``None`` for the others), parsed as ``language``; computed once per distinct row."""
        key = (generated, reference, nl, language)
        cache = self._feature_cache
        if key not in cache:
            if len(cache) > TOKEN_CACHE_SIZE:
                cache.clear()
            values = exact_features(generated, reference, nl, self.structure, language=language)
            if self.codebertscore is not None:
                values = values + self.codebertscore.features(generated, reference)
            cache[key] = values
        return cache[key]

    def tokenize(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each text alone, no special tokens (each distinct text tokenized once)."""
        cache = self._token_cache
        known = {text: cache[text] for text in texts if text in cache}
        todo = list(dict.fromkeys(text for text in texts if text not in known))
        if todo:
            source = [encode_layout(text) for text in todo] if self.layout else todo
            ids = self.tokenizer(source, add_special_tokens=False)["input_ids"]
            fresh = dict(zip(todo, ids, strict=True))
            if len(cache) + len(fresh) > TOKEN_CACHE_SIZE:
                cache.clear()
            cache.update(fresh)
            known.update(fresh)
        return [known[text] for text in texts]

    def join(
        self, segments: Sequence[Sequence[int]], is_code: Sequence[bool] | None = None
    ) -> tuple[list[int], list[int]]:
        """Join tokenized segments of one format fairly truncated: ``(input_ids, token_types)``.

        ``is_code[i]`` selects code truncation for segment ``i`` (default: all but an NL).
        """
        is_code = [True] * len(segments) if is_code is None else list(is_code)
        sep = self.separators
        fixed = len(sep.prefix) + len(sep.suffix) + len(sep.middle) * (len(segments) - 1)
        lengths = [len(s) for s in segments]
        if self.truncation == "fair":
            budgets = fair_budgets(lengths, self.max_length - fixed)
        else:
            budgets = priority_budgets(lengths, self.max_length - fixed, self.truncation_floor)
        ids: list[int] = list(sep.prefix)
        types: list[int] = []
        for position, (segment, budget) in enumerate(zip(segments, budgets, strict=True)):
            mode = self.code_truncation if is_code[position] else "head"
            ids.extend(cut(segment, budget, mode))
            ids.extend(sep.middle if position < len(segments) - 1 else sep.suffix)
            if position == 0:
                types = [0] * len(ids)
        types.extend([1] * (len(ids) - len(types)))
        return ids, types

    def pad(self, rows: Sequence[tuple[list[int], list[int]]]) -> dict[str, list[list[int]]]:
        """Right-pad joined rows to the longest: ids, attention mask and (maybe) token types."""
        width = max((len(ids) for ids, _ in rows), default=0)
        batch: dict[str, list[list[int]]] = {"input_ids": [], "attention_mask": []}
        if self.use_token_types:
            batch["token_type_ids"] = []
        for ids, types in rows:
            gap = width - len(ids)
            batch["input_ids"].append(ids + [self.pad_id] * gap)
            batch["attention_mask"].append([1] * len(ids) + [0] * gap)
            if self.use_token_types:
                batch["token_type_ids"].append(types + [0] * gap)
        return batch

    def encode_formats(
        self,
        generated: Sequence[str],
        references: Sequence[str | None],
        nls: Sequence[str | None],
        formats: Sequence[str] = FORMATS,
        languages: Sequence[str] | None = None,
    ) -> dict[str, tuple[list[int], dict[str, list[list[int]]]]]:
        """Encode a batch in every format its samples have, each format padded on its own.

        Returns:
            ``{format: (sample_indices, padded_batch)}`` for each format with at least one
            sample; a sample is in ``ref`` iff it has a non-empty reference, in ``nl`` iff it
            has a non-empty NL and in ``ref_nl`` iff it has both.
        """
        joined = self.join_formats(generated, references, nls, formats, languages)
        return {fmt: (index, self.pad(rows)) for fmt, (index, rows) in joined.items()}

    def join_formats(
        self,
        generated: Sequence[str],
        references: Sequence[str | None],
        nls: Sequence[str | None],
        formats: Sequence[str] = FORMATS,
        languages: Sequence[str] | None = None,
    ) -> dict[str, tuple[list[int], list[tuple[list[int], list[int]]]]]:
        """Like :meth:`encode_formats` but unpadded: ``{format: (sample_indices, rows)}`` with
        rows of ``(input_ids, token_types)``, for callers that pad several formats together."""
        generated = self.cleaned(generated, nls, languages)
        tokens, members = self._segment_tokens(generated, references, nls, formats)
        joined = {}
        for fmt, index in members.items():
            parts = FORMAT_SEGMENTS[fmt]
            is_code = [p != "nl" for p in parts]
            joined[fmt] = (
                index,
                [self.join([tokens[p][i] for p in parts], is_code) for i in index],
            )
        return joined

    def _segment_tokens(
        self,
        generated: Sequence[str],
        references: Sequence[str | None],
        nls: Sequence[str | None],
        formats: Sequence[str],
    ) -> tuple[dict[str, list], dict[str, list[int]]]:
        """Token ids of each sample's segments (``None`` where absent), and for each of
        ``formats`` (in that order) the samples that have all its segments -- the one
        membership rule of every encoding: ``ref`` needs a non-empty reference, ``nl`` a
        non-empty NL, ``ref_nl`` both. Formats no sample has are left out."""
        has = {
            "generated": [True] * len(generated),
            "reference": [bool(r and r.strip()) for r in references],
            "nl": [bool(n and n.strip()) for n in nls],
        }
        tokens = {
            "generated": self.tokenize(list(generated)),
            "reference": self._tokenize_present(references, has["reference"]),
            "nl": self._tokenize_present(nls, has["nl"]),
        }
        members = {}
        for fmt in formats:
            parts = FORMAT_SEGMENTS[fmt]
            index = [i for i in range(len(generated)) if all(has[p][i] for p in parts)]
            if index:
                members[fmt] = index
        return tokens, members

    def encode_segments(
        self,
        generated: Sequence[str],
        references: Sequence[str | None],
        nls: Sequence[str | None],
        formats: Sequence[str] = FORMATS,
        languages: Sequence[str] | None = None,
    ) -> dict[str, list]:
        """A batch for an ``estimator`` model: each distinct text once, and rows that point at
        them.

        Every text is its own input (``prefix text suffix``, cut to ``max_length`` with code
        truncation; an NL keeps its beginning). Rows are built per format in ``FORMATS`` order,
        with the membership rule of :meth:`join_formats`.

        Returns:
            The model inputs :data:`ESTIMATOR_INPUTS`: ``segment_input_ids`` /
            ``segment_attention_mask`` (padded, one per distinct text), and per row
            ``generated_index``, ``reference_index``, ``nl_index`` (``-1`` where the row's
            format has no such segment), ``exact_features`` when ``features`` is on; and per
            row ``format_ids`` and ``sample_index``. ``languages`` (one per sample, Python
            when ``None``) say how each sample's code is parsed for its exact features.
        """
        languages = _languages(languages, len(generated))
        generated = self.cleaned(generated, nls, languages)
        sep = self.separators
        budget = self.max_length - len(sep.prefix) - len(sep.suffix)
        texts = {"generated": generated, "reference": references, "nl": nls}
        ordered = [fmt for fmt in FORMATS if fmt in formats]
        tokens, members = self._segment_tokens(generated, references, nls, ordered)
        slots: dict[tuple[str, bool], int] = {}
        segments: list[tuple[list[int], list[int]]] = []

        def slot(part: str, i: int) -> int:
            """The segment of sample ``i``'s ``part``; a text met before (a problem's reference
            and NL, a candidate equal to its reference) reuses its segment."""
            key = (str(texts[part][i]), part == "nl")
            if key not in slots:
                mode = "head" if part == "nl" else self.code_truncation
                row = [*sep.prefix, *cut(tokens[part][i], budget, mode), *sep.suffix]
                slots[key] = len(segments)
                segments.append((row, [0] * len(row)))  # one segment: one token type
            return slots[key]

        if self.features and self.codebertscore is not None:  # one scoring call for the batch
            pairs = [(generated[i], references[i]) for fmt, index in members.items()
                     if "reference" in FORMAT_SEGMENTS[fmt] for i in index]  # fmt: skip
            self.codebertscore.prefill(pairs, say=None)
        columns = {"generated": "generated_index", "reference": "reference_index", "nl": "nl_index"}
        rows: dict[str, list[int]] = {column: [] for column in columns.values()}
        format_ids: list[int] = []
        sample_index: list[int] = []
        features: list[list[float]] = []
        for fmt, index in members.items():
            parts = FORMAT_SEGMENTS[fmt]
            for i in index:
                for part, column in columns.items():
                    rows[column].append(slot(part, i) if part in parts else -1)
                format_ids.append(FORMATS.index(fmt))
                sample_index.append(i)
                if self.features:
                    ref = references[i] if "reference" in parts else None
                    nl = nls[i] if "nl" in parts else None
                    features.append(self.row_features(generated[i], ref, nl, languages[i]))
        padded = self.pad(segments)
        out = {
            "segment_input_ids": padded["input_ids"],
            "segment_attention_mask": padded["attention_mask"],
            **rows,
            "format_ids": format_ids,
            "sample_index": sample_index,
        }
        if self.features:
            out["exact_features"] = features
        return out

    def _tokenize_present(self, texts: Sequence[str | None], present: list[bool]) -> list:
        ids = self.tokenize([t for t, ok in zip(texts, present, strict=True) if ok])
        out: list = [None] * len(texts)
        it = iter(ids)
        for i, ok in enumerate(present):
            if ok:
                out[i] = next(it)
        return out


def open_codebertscore(config) -> CodeBertScoreFeatures | None:
    """The CodeBERTScore features a model built with ``codebertscore_features`` reads its rows
    with (``None`` for every other model)."""
    if not getattr(config, "codebertscore_features", False):
        return None
    return CodeBertScoreFeatures.open()


def _languages(languages: Sequence[str] | None, n: int) -> list[str]:
    """One language per sample: Python for all when ``None`` (rows without a ``language``)."""
    if languages is None:
        return [DEFAULT_LANGUAGE] * n
    if len(languages) != n:
        raise ValueError(f"{len(languages)} languages for {n} samples")
    return list(languages)
