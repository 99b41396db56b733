"""Building a fresh UniCE model (and its tokenizer) around a backbone for training."""

from __future__ import annotations

from typing import Any

from transformers import AutoConfig, AutoModel, AutoTokenizer

from unice.backbones import resolve_backbone
from unice.data.layout import add_layout_tokens, drops_layout
from unice.modeling.configuration import UniCEConfig
from unice.modeling.model import UniCEModel


def build_model(
    backbone: str,
    pretrained: bool = True,
    encoder_overrides: dict[str, Any] | None = None,
    **config,
) -> tuple[UniCEModel, Any]:
    """A UniCE model on ``backbone`` with its tokenizer (layout tokens added when needed).

    Args:
        backbone: name or folder, see :func:`unice.backbones.resolve_backbone`.
        pretrained: load the backbone's weights; ``False`` keeps a random init (benchmarks).
        encoder_overrides: fields of the encoder config to change (e.g. dropout).
        **config: :class:`UniCEConfig` fields (head sizes, max_length, loss weights, ...).

    Returns:
        ``(model, tokenizer)``; ``model.tokenizer`` is set too.
    """
    path = resolve_backbone(backbone)
    encoder_config = AutoConfig.from_pretrained(path)
    for key, value in (encoder_overrides or {}).items():
        setattr(encoder_config, key, value)
    tokenizer = AutoTokenizer.from_pretrained(path)
    unice_config = UniCEConfig(encoder=encoder_config, backbone=backbone, **config)
    layout = unice_config.layout == "tokens" or (
        unice_config.layout == "auto" and drops_layout(tokenizer)
    )
    unice_config.layout_active = layout
    limit = _position_limit(encoder_config)
    if limit is not None and unice_config.max_length > limit:
        unice_config.max_length = limit
    model = UniCEModel(unice_config)
    if pretrained:
        try:
            weights = AutoModel.from_pretrained(path, add_pooling_layer=False)
        except TypeError:
            weights = AutoModel.from_pretrained(path)
        missing, _ = model.encoder.load_state_dict(weights.state_dict(), strict=False)
        if missing:
            raise RuntimeError(f"backbone {backbone!r} lacks weights for: {', '.join(missing[:5])}")
    if layout and add_layout_tokens(tokenizer):
        model.encoder.resize_token_embeddings(len(tokenizer))
        model.config.encoder.vocab_size = len(tokenizer)
    model.tokenizer = tokenizer
    return model, tokenizer


def _position_limit(encoder_config) -> int | None:
    """Longest input the encoder's position table allows (RoBERTa reserves pad + 1 slots)."""
    positions = getattr(encoder_config, "max_position_embeddings", None)
    if positions is None:
        return None
    if getattr(encoder_config, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
        return int(positions) - int(getattr(encoder_config, "pad_token_id", 1) or 1) - 1
    return int(positions)
