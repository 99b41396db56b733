"""Opening and filling a frozen encoder's feature cache before training starts.

Why a separate pass: with ``model.freeze_encoder`` every distinct input is encoded exactly
once per backbone, and that one-time cost (minutes for MiniLM, much more for a causal LM) is
worth reporting apart from the training steps, which then cost the head's work only. The
pass runs over train and dev in batches of ``trainer.eval_batch_size`` with a progress bar;
texts a previous run (another seed, another arm, an interrupted run) already encoded are
read from the cache folder instead.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

from unice.data.dataset import Collator, Sample
from unice.modeling.feature_cache import FeatureCache
from unice.training.settings import TrainerSettings


def feature_cache_folder(setting: str | None) -> Path | None:
    """``trainer.feature_cache`` as a folder: ``auto`` is the UniCE cache's ``features/``
    (``$UNICE_CACHE_DIR/features`` or ``~/.cache/unice/features``), ``none`` keeps the states
    in memory only, anything else is a folder."""
    if setting is None or str(setting).lower() in ("none", "null", "memory", ""):
        return None
    if str(setting) == "auto":
        from data_builders.cache import cache_dir

        return cache_dir("features")
    return Path(str(setting))


def open_feature_cache(model, setting: str | None) -> FeatureCache:
    """The cache of ``model``'s frozen encoder (``UniCEModel.cache_namespace``: its frozen
    weights' digest and pooling)."""
    return FeatureCache(feature_cache_folder(setting), model.cache_namespace())


def encoder_inputs(
    batch: dict[str, Any], device: torch.device
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """What a collated batch gives the encoder: ``(input_ids, attention_mask, token_type_ids)``
    of its distinct segments (estimator) or of its joined rows (cross), on ``device``."""
    if "segment_input_ids" in batch:
        ids, mask, types = batch["segment_input_ids"], batch["segment_attention_mask"], None
    else:
        ids, mask, types = batch["input_ids"], batch["attention_mask"], batch.get("token_type_ids")
    return ids.to(device), mask.to(device), None if types is None else types.to(device)


def prefill_feature_cache(
    model,
    collator: Collator,
    samples: Sequence[Sample],
    settings: TrainerSettings,
    say: Callable[[str], None] = print,
) -> dict[str, float]:
    """Encode every distinct input of ``samples`` not yet cached; returns and prints what it
    cost (``encode_seconds``, inputs encoded, inputs found in the cache)."""
    from tqdm.auto import tqdm

    cache = model.feature_cache
    if cache is None:
        raise ValueError("prefill_feature_cache needs model.use_feature_cache(...) first")
    order = sorted(range(len(samples)), key=lambda i: (len(samples[i].generated), i))
    size = max(int(settings.eval_batch_size), 1)
    hits, misses = cache.hits, cache.misses
    started = time.perf_counter()
    was_training = model.training
    model.eval()
    device = next(model.parameters()).device
    with torch.no_grad():
        for start in tqdm(
            range(0, len(order), size),
            desc="encode (frozen encoder, once)",
            unit="batch",
            disable=not settings.progress,
        ):
            batch = collator([samples[i] for i in order[start : start + size]])
            model.frozen_entries(*encoder_inputs(batch, device))
    cache.flush()
    model.train(was_training)
    report = {
        "encode_seconds": round(time.perf_counter() - started, 1),
        "encoded": cache.misses - misses,
        "from_cache": cache.hits - hits,
    }
    say(
        f"frozen encoder: {report['encoded']} inputs encoded in {report['encode_seconds']} s, "
        f"{report['from_cache']} read from the cache ({cache.folder or 'memory only'})"
    )
    return report
