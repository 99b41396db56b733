"""Batches that hold several candidates of the same problem, drawn per folder by weight.

Why: a within-problem ranking loss needs pairs of candidates of one problem in a batch; with
uniform shuffling over thousands of problems almost no batch has any. Here each epoch shuffles
each problem's candidates, cuts them into chunks of ``group_size``, shuffles the chunks, and
packs them into batches. Folders (``origin``) can be weighted: a weight of 2 draws each of its
chunks twice per epoch, 0.5 a seeded half of them.

The order depends only on ``(seed, epoch)``, so a resumed run sees exactly the batches the
interrupted one would have (the loop skips the batches already done).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence

from unice.data.dataset import Sample


class ProblemGroupedBatchSampler:
    """Yields lists of sample indices; see the module docstring.

    Args:
        samples: the training samples (their ``task_id`` and ``origin`` are read).
        batch_size: samples per batch.
        group_size: candidates of one problem kept together (1 = plain shuffling).
        seed: base seed; epoch ``e`` uses ``seed * 1000 + e``.
        weights: ``{origin: weight}``; folders not named weigh 1.
    """

    def __init__(
        self,
        samples: Sequence[Sample],
        batch_size: int,
        group_size: int = 1,
        seed: int = 0,
        weights: Mapping[str, float] | None = None,
    ) -> None:
        if batch_size < 1 or group_size < 1:
            raise ValueError("batch_size and group_size must be >= 1")
        self.batch_size = batch_size
        self.group_size = group_size
        self.seed = seed
        self.epoch = 0
        self.weights = dict(weights or {})
        self.problems: dict[str, dict[str, list[int]]] = {}
        for index, sample in enumerate(samples):
            by_task = self.problems.setdefault(sample.origin, {})
            by_task.setdefault(sample.task_id, []).append(index)

    def set_epoch(self, epoch: int) -> None:
        """Select the epoch whose order :meth:`__iter__` yields next."""
        self.epoch = epoch

    def _chunks(self, rng: random.Random) -> list[list[int]]:
        chunks: list[list[int]] = []
        for origin in sorted(self.problems):
            mine: list[list[int]] = []
            for task_id in sorted(self.problems[origin]):
                indices = list(self.problems[origin][task_id])
                rng.shuffle(indices)
                step = self.group_size
                mine += [indices[i : i + step] for i in range(0, len(indices), step)]
            chunks += _weighted(mine, float(self.weights.get(origin, 1.0)), rng)
        rng.shuffle(chunks)
        return chunks

    def _order(self) -> list[int]:
        rng = random.Random(self.seed * 1000 + self.epoch)
        return [index for chunk in self._chunks(rng) for index in chunk]

    def __iter__(self) -> Iterator[list[int]]:
        order = self._order()
        for start in range(0, len(order), self.batch_size):
            yield order[start : start + self.batch_size]

    def __len__(self) -> int:
        return math.ceil(len(self._order()) / self.batch_size)


def _weighted(chunks: list[list[int]], weight: float, rng: random.Random) -> list[list[int]]:
    """``floor(weight)`` copies of ``chunks`` plus a seeded ``frac(weight)`` share of them."""
    if weight < 0:
        raise ValueError(f"data weight {weight} must be >= 0")
    whole = int(weight)
    part = round((weight - whole) * len(chunks))
    return chunks * whole + rng.sample(chunks, part)
