"""``UniCEModel``: encoder -> layer-wise attention -> pooling -> feed-forward head -> logits."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import torch
from torch import nn
from transformers import AutoModel, PreTrainedModel
from transformers.utils import ModelOutput

from unice.modeling.configuration import UniCEConfig
from unice.modeling.feature_cache import FeatureCache
from unice.modeling.feedforward import FeedForward
from unice.modeling.frozen_encoder import FrozenEncoderMixin, length_groups, pool
from unice.modeling.layerwise_attention import ScalarMix
from unice.modeling.loss import format_loss
from unice.modeling.top_layers import top_parameter_prefixes


@dataclass
class UniCEOutput(ModelOutput):
    """Output of :meth:`UniCEModel.forward`.

    Attributes:
        loss: the format loss when ``labels`` are given (scalar), else ``None``.
        logits: ``(batch, k)`` raw logits: PassRatio, Executability[, Passability].
        trained_logits: the logits the training loss reads: ``logits`` itself, except with
            ``exec_prior``, where ``logits``' Exec column is the ensemble's and this is the
            network's own (``None`` when no model set it).
        sentence_embedding: ``(batch, features)`` the vector fed to the head (the pooled input,
            or the estimator's comparison features).
    """

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    trained_logits: torch.Tensor | None = None
    sentence_embedding: torch.Tensor | None = None


def build_encoder(config: UniCEConfig) -> PreTrainedModel:
    """The backbone from its embedded config (never from the hub); no pooler where possible."""
    try:
        return AutoModel.from_config(config.encoder, add_pooling_layer=False)
    except TypeError:  # encoders without a pooler option
        return AutoModel.from_config(config.encoder)


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


VARIANTS: dict[str, type[UniCEModel]] = {}
"""``config.architecture`` -> the model class of that variant (filled as each is defined:
:class:`~unice.modeling.cross_encoder.CrossEncoderModel`,
:class:`~unice.modeling.estimator.EstimatorModel`)."""


class UniCEModel(FrozenEncoderMixin, UniCEPreTrainedModel):
    """CodeScore estimator trained with UniCE: what its two variants share.

    ``UniCEModel(config)`` (and ``UniCEModel.from_pretrained``, ``unice.load_model``) builds the
    variant ``config.architecture`` names: the cross-encoder (``cross``, the paper) or the
    estimator (``estimator``, COMET's). Both read their encoder the same way (layer-wise mix,
    pooling; fine-tuned, or frozen and cached: :mod:`~unice.modeling.frozen_encoder`) and end in
    the same feed-forward head and loss; each variant's ``forward`` says what it feeds the head.

    Each row of a forward pass is one sample in one input format (g+r, g+n or g+r+n); the model
    does not need to know which. Training sends every format row of a batch through one forward
    (``unice.data.dataset.Collator`` pads them together) and sums the per-format losses
    (``unice.modeling.loss``); ``unice.scoring`` runs one forward per format present.
    """

    architecture: ClassVar[str] = ""
    """The ``config.architecture`` a variant implements (its subclass sets it)."""

    def __new__(cls, config: UniCEConfig | None = None, *args: Any, **kwargs: Any) -> UniCEModel:
        if cls is UniCEModel and config is not None:
            cls = VARIANTS[config.architecture]
        return super().__new__(cls)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("architecture"):
            VARIANTS[cls.architecture] = cls

    def __init__(self, config: UniCEConfig):
        """The shared parts: encoder, layer mix, head, and a frozen encoder's state scaling; a
        variant adds its own, then calls ``post_init``."""
        super().__init__(config)
        self.encoder = build_encoder(config)
        num_layers = int(config.encoder.num_hidden_layers) + 1
        self.layerwise = ScalarMix(num_layers, config.layer_dropout, config.layer_norm)
        self.head = FeedForward(
            config.feature_size,
            config.hidden_sizes,
            config.num_outputs,
            config.activation,
            config.dropout,
        )
        self.tokenizer: Any = None
        # FeatureCache of a frozen encoder (attach with use_feature_cache); not a module, so
        # never saved with the weights
        self.feature_cache: FeatureCache | None = None
        # trainable_top_layers: the names of the top layers that train on cached token states
        self._top_prefixes: tuple[str, ...] = ()
        if config.freeze_encoder:
            self.encoder.requires_grad_(False)
        if config.trainable_top_layers:
            self._top_prefixes = top_parameter_prefixes(self.encoder, config.trainable_top_layers)
            for name, param in self.encoder.named_parameters():
                param.requires_grad_(self.trains_encoder_parameter(name))
        if config.standardize_states:
            # filled by unice.training.state_statistics before training; saved with the
            # weights (the identity until then)
            shape = (num_layers, int(config.encoder.hidden_size))
            self.register_buffer("state_mean", torch.zeros(shape))
            self.register_buffer("state_std", torch.ones(shape))

    def train(self, mode: bool = True) -> UniCEModel:
        """Like ``nn.Module.train``, but a frozen encoder stays in eval mode (no dropout), so
        its states are the same in training and scoring, and may be cached."""
        super().train(mode)
        if self.config.freeze_encoder:
            self.encoder.eval()
        return self

    def _output(
        self,
        features: torch.Tensor,
        logits: torch.Tensor,
        trained: torch.Tensor,
        labels: torch.Tensor | None,
    ) -> UniCEOutput:
        """The forward's output: the loss (with ``labels``) reads the network's own logits
        ``trained``; ``logits`` are what scoring reads (the same, but where a prior votes)."""
        loss = None
        if labels is not None:
            loss, _ = format_loss(trained, labels, self.config.loss_weights)
        return UniCEOutput(
            loss=loss, logits=logits, trained_logits=trained, sentence_embedding=features
        )

    def _embed(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Encoder -> layer-wise mix -> pooling: one vector per input row (a frozen encoder's
        rows: their pooled layers, cached, then mixed)."""
        if self.config.freeze_encoder:
            layers = self.encoder_layers(input_ids, attention_mask, token_type_ids)
            if self.config.standardize_states:
                layers = (layers - self.state_mean) / self.state_std
            return self.layerwise.mix_pooled(layers)
        mixed = self._mix(input_ids, attention_mask, token_type_ids)
        return pool(mixed, attention_mask, self.config.pooling)

    def _mix(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Encoder -> layer-wise mix: ``(rows, seq, hidden)`` token states."""
        hidden_states = self._hidden_states(input_ids, attention_mask, token_type_ids)
        return self.layerwise(hidden_states, attention_mask)

    def _hidden_states(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, ...]:
        """Every layer's ``(rows, seq, hidden)`` states (zeros past a row's last token).

        With ``length_buckets`` > 1 the rows are encoded in that many groups of similar
        length (:func:`~unice.modeling.frozen_encoder.length_groups`), each cut to its own
        longest row; the layer mix still sees the whole batch at once.
        """
        rows = input_ids.shape[0]
        buckets = min(int(getattr(self.config, "length_buckets", 1) or 1), rows)
        if buckets <= 1:
            return self._encode(input_ids, attention_mask, token_type_ids)
        layers: list[torch.Tensor] | None = None
        for chunk, width in length_groups(attention_mask, buckets):
            types = token_type_ids[chunk, :width] if token_type_ids is not None else None
            states = self._encode(input_ids[chunk, :width], attention_mask[chunk, :width], types)
            if layers is None:
                shape = (rows, input_ids.shape[1], states[0].shape[-1])
                layers = [states[0].new_zeros(shape) for _ in states]
            for full, part in zip(layers, states, strict=True):
                full[chunk, :width] = part
        assert layers is not None
        return tuple(layers)

    def _encode(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, ...]:
        encoder_inputs = {"input_ids": input_ids, "attention_mask": attention_mask}
        if token_type_ids is not None:
            encoder_inputs["token_type_ids"] = token_type_ids
        outputs = self.encoder(**encoder_inputs, output_hidden_states=True, return_dict=True)
        return outputs.hidden_states

    def score(
        self,
        *,
        generated: list[str],
        references: list[str | None] | None = None,
        nls: list[str | None] | None = None,
        languages: list[str | None] | None = None,
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
            languages=languages,
            batch_size=batch_size,
            progress=progress,
        )
