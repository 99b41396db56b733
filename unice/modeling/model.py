"""``UniCEModel``: encoder -> layer-wise attention -> pooling -> feed-forward head -> logits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from transformers import AutoModel, PreTrainedModel
from transformers.utils import ModelOutput

from unice.modeling.configuration import UniCEConfig
from unice.modeling.feedforward import FeedForward
from unice.modeling.layerwise_attention import ScalarMix
from unice.modeling.loss import format_loss


@dataclass
class UniCEOutput(ModelOutput):
    """Output of :meth:`UniCEModel.forward`.

    Attributes:
        loss: the format loss when ``labels`` are given (scalar), else ``None``.
        logits: ``(batch, k)`` raw logits: PassRatio, Executability[, Passability].
        sentence_embedding: ``(batch, hidden)`` mixed first-token vector fed to the head.
    """

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    sentence_embedding: torch.Tensor | None = None


def build_encoder(config: UniCEConfig) -> PreTrainedModel:
    """The backbone from its embedded config (never from the hub); no pooler where possible."""
    try:
        return AutoModel.from_config(config.encoder, add_pooling_layer=False)
    except TypeError:  # encoders without a pooler option
        return AutoModel.from_config(config.encoder)


def pool(states: torch.Tensor, attention_mask: torch.Tensor, mode: str) -> torch.Tensor:
    """The sentence vector: the first token's state, or the mean over real tokens.

    Why both: the paper reads the first token (UniXcoder's ``<s>``); sentence encoders such as
    all-MiniLM-L6-v2 were trained so that the *mean* of their token states carries the
    meaning, and their first token was never trained to summarise anything.
    """
    if mode == "first":
        return states[:, 0]
    mask = attention_mask.unsqueeze(-1).to(states.dtype)
    return (states * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


class UniCEPreTrainedModel(PreTrainedModel):
    """Weight init and loading conventions shared by UniCE models."""

    config_class = UniCEConfig
    base_model_prefix = "unice"
    supports_gradient_checkpointing = True

    def _init_weights(self, module: nn.Module) -> None:
        std = float(getattr(self.config.encoder, "initializer_range", 0.02) or 0.02)
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=std)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, ScalarMix):
            nn.init.zeros_(module.scalars)
            nn.init.ones_(module.gamma)


class UniCEModel(UniCEPreTrainedModel):
    """CodeScore estimator trained with UniCE.

    Each row of a forward pass is one sample in one input format (g+r, g+n or g+r+n); the model
    does not need to know which. Training sends every format row of a batch through one forward
    (``unice.data.dataset.Collator`` pads them together) and sums the per-format losses
    (``unice.modeling.loss``); ``unice.scoring`` runs one forward per format present.
    """

    def __init__(self, config: UniCEConfig):
        super().__init__(config)
        self.encoder = build_encoder(config)
        num_layers = int(config.encoder.num_hidden_layers) + 1
        self.layerwise = ScalarMix(num_layers, config.layer_dropout, config.layer_norm)
        self.head = FeedForward(
            int(config.encoder.hidden_size),
            config.hidden_sizes,
            config.num_outputs,
            config.activation,
            config.dropout,
        )
        self.tokenizer: Any = None
        self.post_init()

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        **_: Any,
    ) -> UniCEOutput:
        """Score a batch of rows (any mix of input formats).

        Args:
            input_ids: ``(batch, seq)`` token ids.
            attention_mask: ``(batch, seq)``, 1 for real tokens.
            token_type_ids: ``(batch, seq)``, 0 for the generated segment, 1 after it
                (omitted for encoders without token types).
            labels: optional ``(batch, 3)`` PassRatio, Executability, Passability in [0, 1].

        Returns:
            :class:`UniCEOutput` with ``loss`` (when labels are given) and ``logits (batch, k)``.
        """
        encoder_inputs = {"input_ids": input_ids, "attention_mask": attention_mask}
        if token_type_ids is not None:
            encoder_inputs["token_type_ids"] = token_type_ids
        outputs = self.encoder(**encoder_inputs, output_hidden_states=True, return_dict=True)
        mixed = self.layerwise(outputs.hidden_states, attention_mask)
        features = pool(mixed, attention_mask, self.config.pooling)
        logits = self.head(features)
        loss = None
        if labels is not None:
            loss, _ = format_loss(logits, labels, self.config.loss_weights)
        return UniCEOutput(loss=loss, logits=logits, sentence_embedding=features)

    def score(
        self,
        *,
        generated: list[str],
        references: list[str | None] | None = None,
        nls: list[str | None] | None = None,
        batch_size: int = 32,
        progress: bool = False,
    ) -> list[dict[str, float | None]]:
        """CodeScore and Exec probability per sample, per format; see :func:`unice.scoring.score`."""
        from unice.scoring import score

        return score(
            self,
            generated=generated,
            references=references,
            nls=nls,
            batch_size=batch_size,
            progress=progress,
        )
