"""Dev-set evaluation during training: CodeScore vs PassRatio, Exec accuracy, dev loss."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch.utils.data import DataLoader
from tqdm.auto import tqdm

from unice.data.dataset import Collator, Sample
from unice.metrics import regression_metrics
from unice.modeling.configuration import FORMATS


@torch.inference_mode()
def predict(
    model,
    samples: Sequence[Sample],
    collator: Collator,
    batch_size: int,
    device,
    progress: bool = False,
) -> dict[str, np.ndarray]:
    """Probabilities per sample: ``codescore``/``exec_prob`` (mean over formats) and per format.

    Returns:
        ``{"codescore": (n,), "exec_prob": (n,), "codescore_<fmt>": (n,) with nan where absent}``.
    """
    was_training = model.training
    model.eval()
    n = len(samples)
    per_format = {fmt: np.full((n, 2), np.nan) for fmt in FORMATS}
    loader = DataLoader(list(samples), batch_size=batch_size, collate_fn=collator)
    offset = 0
    for batch in tqdm(loader, desc="dev", unit="batch", disable=not progress, leave=False):
        inputs = {
            k: v.to(device)
            for k, v in batch.items()
            if k in ("input_ids", "attention_mask", "token_type_ids")
        }
        probs = torch.sigmoid(model(**inputs).logits.float()[:, :2]).cpu().numpy()
        for row, (fmt_id, index) in enumerate(
            zip(batch["format_ids"].tolist(), batch["sample_index"].tolist(), strict=True)
        ):
            per_format[FORMATS[fmt_id]][offset + index] = probs[row]
        offset += batch["labels"].size(0)
    model.train(was_training)
    stacked = np.stack([per_format[fmt] for fmt in FORMATS])  # (formats, n, 2)
    with np.errstate(invalid="ignore"):
        mean = np.nanmean(stacked, axis=0) if n else np.zeros((0, 2))
    out = {"codescore": mean[:, 0], "exec_prob": mean[:, 1]}
    for fmt in FORMATS:
        out[f"codescore_{fmt}"] = per_format[fmt][:, 0]
    return out


def dev_metrics(predictions: dict[str, np.ndarray], samples: Sequence[Sample]) -> dict[str, float]:
    """Kendall/Spearman/Pearson/MAE of CodeScore vs PassRatio, per format too, and Exec accuracy."""
    labels = np.array([s.pass_ratio for s in samples])
    usable = ~np.isnan(predictions["codescore"])
    metrics = regression_metrics(predictions["codescore"][usable], labels[usable])
    executable = np.array([s.executable for s in samples])
    exec_pred = predictions["exec_prob"][usable] >= 0.5
    metrics["exec_accuracy"] = (
        float(np.mean(exec_pred == executable[usable])) if usable.any() else float("nan")
    )
    metrics["samples"] = int(usable.sum())
    for fmt in FORMATS:
        scores = predictions[f"codescore_{fmt}"]
        present = ~np.isnan(scores)
        if present.sum() >= 2:
            metrics[f"spearman_{fmt}"] = regression_metrics(scores[present], labels[present])[
                "spearman"
            ]
    return metrics
