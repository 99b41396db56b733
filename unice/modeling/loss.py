"""The UniCE loss: per format MSE on PassRatio plus BCE on Executability (and Passability),
optionally plus a within-problem pairwise ranking term.

Why logits: the public release applied ``BCE-with-logits`` to outputs that had already been
through a sigmoid, which flattens the gradient and caps the loss. Here the head emits raw
logits; BCE-with-logits takes them as they are and the MSE term compares
``sigmoid(pass_ratio_logit)`` with the PassRatio label, so the score stays in [0, 1].
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch
import torch.nn.functional as F

from unice.modeling.configuration import OUTPUTS


def format_loss(
    logits: torch.Tensor, labels: torch.Tensor, weights: Mapping[str, float]
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Loss of one input format.

    Args:
        logits: head outputs, shape ``(batch, k)``; column 0 PassRatio, 1 Exec, 2 Passability.
        labels: targets, shape ``(batch, 3)`` in the same order, floats in [0, 1].
        weights: ``{"pass_ratio", "executable", "passed"}`` term weights; 0 skips a term.

    Returns:
        ``(total, terms)``: the weighted sum (scalar) and each unweighted term (detached).
    """
    if logits.size(0) != labels.size(0):
        raise ValueError(f"logits ({logits.size(0)}) and labels ({labels.size(0)}) differ in batch")
    logits = logits.float()
    labels = labels.float()
    terms: dict[str, torch.Tensor] = {}
    total = logits.new_zeros(())
    for column, name in enumerate(OUTPUTS):
        weight = float(weights.get(name, 0.0))
        if not weight or column >= logits.size(1):
            continue
        if name == "pass_ratio":
            term = F.mse_loss(torch.sigmoid(logits[:, column]), labels[:, column])
        else:
            term = F.binary_cross_entropy_with_logits(logits[:, column], labels[:, column])
        terms[name] = term.detach()
        total = total + weight * term
    return total, terms


def pairwise_ranking_loss(
    scores: torch.Tensor,
    targets: torch.Tensor,
    groups: torch.Tensor,
    margin: float = 1e-6,
) -> torch.Tensor | None:
    """Logistic (RankNet) loss over pairs of candidates of the same problem.

    Why: MSE on PassRatio is minimised by knowing which *problems* are hard; users need the
    order of the candidates *within* a problem. For every pair of rows of one group whose
    PassRatio differs by more than ``margin``, the better one's logit should be higher:
    ``softplus(-(s_better - s_worse))``, averaged over pairs.

    Args:
        scores: ``(n,)`` PassRatio logits.
        targets: ``(n,)`` PassRatio labels.
        groups: ``(n,)`` integer problem ids (rows of different groups are never paired).

    Returns:
        The mean pair loss, or ``None`` when the batch has no such pair.
    """
    same = groups.unsqueeze(0) == groups.unsqueeze(1)
    better = (targets.unsqueeze(1) - targets.unsqueeze(0)) > margin  # [i, j]: i beats j
    pairs = same & better
    if not bool(pairs.any()):
        return None
    diff = scores.unsqueeze(1) - scores.unsqueeze(0)
    return F.softplus(-diff[pairs]).mean()


def unified_loss(
    per_format: Mapping[
        str, tuple[torch.Tensor, torch.Tensor] | tuple[torch.Tensor, torch.Tensor, Any] | None
    ],
    weights: Mapping[str, float],
    format_weights: Mapping[str, float] | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """``L_Uni = L_Ref + L_NL + L_Ref&NL`` over the formats present in a batch.

    A format whose samples are all missing (``None`` or an empty batch) contributes nothing:
    samples without a reference or NL feed only the formats they have.

    Args:
        per_format: ``{format: (logits (n_f, k), labels (n_f, 3)[, groups (n_f,)])}``; with
            groups and a ``ranking`` weight, :func:`pairwise_ranking_loss` is added per format.
        weights: term weights, see :func:`format_loss`; ``ranking`` weighs the pair loss.
        format_weights: optional multiplier per format (default 1 each, the paper's plain sum).

    Returns:
        ``(loss, logs)`` where logs hold ``loss_<format>`` and ``<format>/<term>`` floats.
    """
    total: torch.Tensor | None = None
    logs: dict[str, float] = {}
    for fmt, pair in per_format.items():
        if pair is None or pair[0].size(0) == 0:
            continue
        loss, terms = format_loss(pair[0], pair[1], weights)
        ranking_weight = float(weights.get("ranking", 0.0))
        if ranking_weight and len(pair) > 2 and pair[2] is not None:
            ranking = pairwise_ranking_loss(pair[0][:, 0].float(), pair[1][:, 0].float(), pair[2])
            if ranking is not None:
                loss = loss + ranking_weight * ranking
                terms["ranking"] = ranking.detach()
        loss = loss * float((format_weights or {}).get(fmt, 1.0))
        total = loss if total is None else total + loss
        logs[f"loss_{fmt}"] = float(loss.detach())
        logs.update({f"{fmt}/{name}": float(value) for name, value in terms.items()})
    if total is None:
        raise ValueError("no input format had any sample in this batch")
    return total, logs
