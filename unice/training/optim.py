"""AdamW parameter groups with layer-wise learning-rate decay in the right direction.

Depth ``d`` of an encoder parameter: 0 for the embeddings, ``i + 1`` for transformer layer
``i``, ``L + 1`` for anything above the last layer (e.g. a final norm). Its learning rate is
``lr_encoder * decay ** (L + 1 - d)``: the top layer learns fastest, the embeddings slowest,
and every parameter -- embeddings and layer 0 included -- is in exactly one group. (The public
release had the decay inverted, left layer 0 out of every group and froze the embeddings.)
The head and the layer mix get ``lr_head``. Biases and norms get no weight decay.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from torch import nn
from torch.optim import AdamW

_LAYER = re.compile(r"(?:^|\.)(?:layer|layers|block|blocks|h)\.(\d+)\.")


@dataclass(frozen=True)
class OptimConfig:
    """Optimizer settings (mirrors ``configs/trainer/*.yaml``)."""

    lr_encoder: float = 2e-5
    lr_head: float = 1e-4
    layer_decay: float = 0.95
    weight_decay: float = 0.01
    betas: tuple[float, float] = (0.9, 0.999)
    eps: float = 1e-8


def encoder_depth(name: str, num_layers: int) -> int:
    """Depth of an encoder parameter name (see module docstring)."""
    if "embeddings" in name.split("."):
        return 0
    match = _LAYER.search(name)
    if match:
        return int(match.group(1)) + 1
    return num_layers + 1


def _no_decay(name: str, param: nn.Parameter) -> bool:
    return param.ndim < 2 or "norm" in name.lower() or name.endswith(".bias")


def parameter_groups(model: nn.Module, cfg: OptimConfig) -> list[dict]:
    """Groups for AdamW; each has ``params``, ``lr``, ``weight_decay`` and a ``name``.

    Args:
        model: a :class:`~unice.modeling.model.UniCEModel` (``encoder`` + ``layerwise`` + ``head``).
        cfg: learning rates and decays.
    """
    num_layers = int(model.config.encoder.num_hidden_layers)
    groups: dict[tuple[str, bool], dict] = {}
    for name, param in model.named_parameters():
        if not param.requires_grad:
            continue
        if name.startswith("encoder."):
            depth = encoder_depth(name[len("encoder.") :], num_layers)
            key = f"encoder.depth{depth:02d}"
            lr = cfg.lr_encoder * cfg.layer_decay ** (num_layers + 1 - depth)
        else:
            key, lr = "head", cfg.lr_head
        decay = not _no_decay(name, param)
        group = groups.setdefault(
            (key, decay),
            {
                "name": f"{key}{'' if decay else '.no_decay'}",
                "params": [],
                "lr": lr,
                "weight_decay": cfg.weight_decay if decay else 0.0,
            },
        )
        group["params"].append(param)
    return [groups[key] for key in sorted(groups)]


def build_optimizer(model: nn.Module, cfg: OptimConfig) -> AdamW:
    """AdamW over :func:`parameter_groups` (initial LRs kept as ``initial_lr`` by schedulers)."""
    return AdamW(parameter_groups(model, cfg), betas=cfg.betas, eps=cfg.eps)
