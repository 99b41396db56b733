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
        sample_weights: one weight per sample (e.g. :func:`unice.data.families.balance_weights`);
            each chunk then weighs its folder's weight times the mean of its members' weights,
            drawn ``floor(w)`` times plus once more with probability ``frac(w)`` (seeded). Why
            per chunk: the chunks keep a problem's candidates together for the ranking term.
            ``None`` (default) leaves the order exactly as without it.
    """

    def __init__(
        self,
        samples: Sequence[Sample],
        batch_size: int,
        group_size: int = 1,
        seed: int = 0,
        weights: Mapping[str, float] | None = None,
        sample_weights: Sequence[float] | None = None,
    ) -> None:
        if batch_size < 1 or group_size < 1:
            raise ValueError("batch_size and group_size must be >= 1")
        self.batch_size = batch_size
        self.group_size = group_size
        self.seed = seed
        self.epoch = 0
        self.weights = dict(weights or {})
        if sample_weights is not None and len(sample_weights) != len(samples):
            raise ValueError(f"{len(sample_weights)} sample weights for {len(samples)} samples")
        if sample_weights is not None and min(sample_weights, default=0.0) < 0:
            raise ValueError("sample weights must be >= 0")
        self.sample_weights = None if sample_weights is None else list(sample_weights)
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
            weight = float(self.weights.get(origin, 1.0))
            if self.sample_weights is None:
                chunks += _weighted(mine, weight, rng)
            else:
                chunks += _weighted_each(mine, weight, self.sample_weights, rng)
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


def _weighted_each(
    chunks: list[list[int]], weight: float, sample_weights: Sequence[float], rng: random.Random
) -> list[list[int]]:
    """Each chunk ``floor(w)`` times plus once with probability ``frac(w)``, where ``w`` is
    ``weight`` times the mean weight of the chunk's samples."""
    if weight < 0:
        raise ValueError(f"data weight {weight} must be >= 0")
    out: list[list[int]] = []
    for chunk in chunks:
        w = weight * sum(sample_weights[i] for i in chunk) / len(chunk)
        whole = int(w)
        out += [chunk] * (whole + (rng.random() < w - whole))
    return out
