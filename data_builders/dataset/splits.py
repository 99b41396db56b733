"""Train/dev/test splits by problem, seeded.

Why by problem: samples of one task share NL, reference and tests; splitting by sample would
leak them between train and test (the paper leaves this open; we remove the doubt).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

SPLITS = ("train", "dev", "test")


def assign_splits(task_ids: Sequence[str], ratios: Sequence[float], seed: int) -> dict[str, str]:
    """task_id -> split name.

    Tasks are shuffled with ``random.Random(seed)`` from their dataset order, then cut by
    ``ratios`` (normalised). Counts are rounded down for train and dev, the rest go to test,
    and a non-zero ratio always gets at least one task when there are enough tasks.

    Args:
        task_ids: every task of the dataset, in dataset order (not only this shard's).
        ratios: (train, dev, test) weights.
        seed: the build seed.
    """
    order = list(task_ids)
    random.Random(seed).shuffle(order)
    total = sum(ratios)
    n = len(order)
    counts = [int(n * r / total) for r in ratios[:2]]
    for i in range(2):
        if ratios[i] > 0 and counts[i] == 0 and n - sum(counts) > 1:
            counts[i] = 1
    if ratios[2] == 0:  # no test split: whatever rounding left goes to train
        counts[0] = n - counts[1]
    bounds = [counts[0], counts[0] + counts[1]]
    out = {}
    for position, task_id in enumerate(order):
        out[task_id] = (
            SPLITS[0] if position < bounds[0] else SPLITS[1] if position < bounds[1] else SPLITS[2]
        )
    return out
