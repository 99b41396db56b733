"""Building a fresh UniCE model (and its tokenizer) around a backbone for training."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch
from transformers import AutoConfig, AutoModel, AutoTokenizer

from unice.backbones import resolve_backbone
from unice.data.layout import add_layout_tokens, drops_layout
from unice.errors import BackboneUnavailableError
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
    if is_unice_checkpoint(path):
        return _continue_from_checkpoint(path, config)
    encoder_config = AutoConfig.from_pretrained(path)
    for key, value in (encoder_overrides or {}).items():
        setattr(encoder_config, key, value)
    tokenizer = AutoTokenizer.from_pretrained(path)
    vocab = int(getattr(encoder_config, "vocab_size", 0) or 0)
    if tokenizer.pad_token is None or (vocab and tokenizer.pad_token_id >= vocab):
        # causal LMs (Llama, SmolLM2) have no pad token, or one the model never saw: pad
        # with EOS (padding is masked anyway)
        tokenizer.pad_token = tokenizer.eos_token
    unice_config = UniCEConfig(encoder=encoder_config, backbone=backbone, **config)
    layout = unice_config.layout == "tokens" or (
        unice_config.layout == "auto" and drops_layout(tokenizer)
    )
    unice_config.layout_active = layout
    unice_config.base_vocab_size = len(tokenizer)
    limit = _position_limit(encoder_config)
    if limit is not None and unice_config.max_length > limit:
        unice_config.max_length = limit
    model = UniCEModel(unice_config)
    with _quiet_transformers():
        if pretrained:
            _load_encoder_weights(model, path, backbone)
        if layout and add_layout_tokens(tokenizer):
            # new rows start from the old embeddings' mean/covariance (transformers default);
            # a frozen encoder never trains them, so they are drawn from a fixed seed: every
            # run and seed then shares one encoder, and its cached states
            with _fixed_rng(unice_config.freeze_encoder):
                model.encoder.resize_token_embeddings(len(tokenizer))
            model.config.encoder.vocab_size = len(tokenizer)
    model.tokenizer = tokenizer
    return model, tokenizer


@contextmanager
def _fixed_rng(active: bool, seed: int = 0) -> Iterator[None]:
    """Draw from ``torch.manual_seed(seed)`` inside, leaving the global RNG as it was (when
    ``active``; otherwise a no-op, so unfrozen runs keep their draws)."""
    if not active:
        yield
        return
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        yield


@contextmanager
def _quiet_transformers() -> Iterator[None]:
    """Hide load reports about the pooler we drop and the embedding-resize notice."""
    from transformers.utils import logging as hf_logging

    level = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        yield
    finally:
        hf_logging.set_verbosity(level)


def _load_encoder_weights(model: UniCEModel, path: str, backbone: str) -> None:
    """Copy the pretrained backbone's weights into ``model.encoder`` (its pooler is unused)."""
    try:
        weights = AutoModel.from_pretrained(path, add_pooling_layer=False)
    except TypeError:
        weights = AutoModel.from_pretrained(path)
    missing, _ = model.encoder.load_state_dict(weights.state_dict(), strict=False)
    if missing:
        raise BackboneUnavailableError(
            f"backbone {backbone!r} lacks weights for {', '.join(missing[:5])}; "
            "is it an encoder checkpoint?"
        )


def is_unice_checkpoint(path: str) -> bool:
    """Whether ``path`` is a folder holding a trained UniCE checkpoint (to fine-tune further)."""
    config_file = Path(path) / "config.json"
    if not config_file.is_file():
        return False
    try:
        return json.loads(config_file.read_text(encoding="utf-8")).get("model_type") == "unice"
    except (json.JSONDecodeError, UnicodeDecodeError):
        return False


def _continue_from_checkpoint(path: str, config: dict[str, Any]) -> tuple[UniCEModel, Any]:
    """Fine-tune a trained UniCE model (e.g. APPS-Eval -> MBPP-Eval, as in the paper).

    The architecture (backbone, head sizes, layout, formats) is the checkpoint's; only the
    regularisation and loss settings given in ``config`` are taken over.
    """
    from unice.loading import load_model

    model = load_model(path, device="cpu")
    for key in ("dropout", "layer_dropout", "loss_weights"):
        if key in config and config[key] is not None:
            setattr(model.config, key, config[key])
    model.layerwise.layer_dropout = model.config.layer_dropout
    for module in model.head.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = float(model.config.dropout)
    model.train()
    return model, model.tokenizer


def _position_limit(encoder_config) -> int | None:
    """Longest input the encoder's position table allows (RoBERTa reserves pad + 1 slots)."""
    positions = getattr(encoder_config, "max_position_embeddings", None)
    if positions is None:
        return None
    if getattr(encoder_config, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
        return int(positions) - int(getattr(encoder_config, "pad_token_id", 1) or 1) - 1
    return int(positions)
