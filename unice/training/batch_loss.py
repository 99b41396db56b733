"""``batch_loss``: L_Uni of one collated batch, the loss each training step backpropagates.

Why apart from the loop: it is how a batch meets the model (which forward each variant takes,
one per format or one for all), read by the loop, the tests and the throughput benchmark;
the loop around it (schedule, checkpoints, dev) does not change with it.
"""

from __future__ import annotations

import torch

from unice.data.encoding import ESTIMATOR_INPUTS
from unice.modeling.configuration import FORMATS
from unice.modeling.loss import unified_loss


def batch_loss(
    model,
    batch: dict[str, torch.Tensor],
    weights: dict[str, float],
    one_forward: bool = False,
) -> tuple[torch.Tensor, dict[str, float]]:
    """L_Uni of one collated batch: the loss of each format's rows, summed.

    By default one forward per format, each cut to its own longest row (a g+r row is often a
    third of a g+r+n row; padding every format to the longest wastes most of the compute).
    ``one_forward`` runs all rows through a single forward instead, as DDP expects one
    forward per backward. An ``estimator`` batch always runs one forward: its segments are
    shared by the formats' rows. The loss reads the network's own logits
    (``trained_logits``): the Exec ensemble with the fitted prior (``exec_prior``) votes at
    scoring only.
    """
    labels = batch["labels"][batch["sample_index"]]
    groups = batch["group_ids"][batch["sample_index"]]
    if "segment_input_ids" in batch:  # estimator: each distinct text is encoded once anyway
        keys = [k for k in ESTIMATOR_INPUTS if k in batch]
        one_forward = True
    else:
        keys = [k for k in ("input_ids", "attention_mask", "token_type_ids") if k in batch]
    output = model(**{k: batch[k] for k in keys}) if one_forward else None
    per_format = {}
    for position, fmt in enumerate(FORMATS):
        rows = batch["format_ids"] == position
        if output is None:
            if not bool(rows.any()):
                continue
            width = int(batch["attention_mask"][rows].sum(dim=1).max())
            logits = model(**{k: batch[k][rows, :width] for k in keys}).trained_logits
        else:
            logits = output.trained_logits[rows]
        per_format[fmt] = (logits, labels[rows], groups[rows])
    return unified_loss(per_format, weights)
