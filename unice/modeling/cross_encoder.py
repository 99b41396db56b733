"""``CrossEncoderModel``: the segments of a format joined into one input (the paper's model).

Why a class of its own: the cross-encoder reads g, r and n as one text, so the encoder itself
relates them and one pooled vector goes to the head; it takes joined rows (``input_ids``),
where the estimator (:mod:`unice.modeling.estimator`) takes the batch's distinct segments.
"""

from __future__ import annotations

from typing import Any

import torch

from unice.modeling.configuration import UniCEConfig
from unice.modeling.model import UniCEModel, UniCEOutput


class CrossEncoderModel(UniCEModel):
    """``architecture=cross``: one joined input per row, one sentence vector, the head."""

    architecture = "cross"

    def __init__(self, config: UniCEConfig):
        super().__init__(config)
        self.post_init()

    def forward(
        self,
        input_ids: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        **_: Any,
    ) -> UniCEOutput:
        """Score a batch of joined rows (any mix of input formats).

        Args:
            input_ids: ``(batch, seq)`` token ids of each row's segments joined.
            attention_mask: ``(batch, seq)``, 1 for real tokens.
            token_type_ids: ``(batch, seq)``, 0 for the generated segment, 1 after it
                (omitted for encoders without token types).
            labels: optional ``(batch, 3)`` PassRatio, Executability, Passability in [0, 1].
        """
        if input_ids is None or attention_mask is None:
            raise ValueError("a cross model takes input_ids and attention_mask")
        features = self._embed(input_ids, attention_mask, token_type_ids)
        logits = self.head(features)
        return self._output(features, logits, logits, labels)
