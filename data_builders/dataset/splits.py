"""Train/dev/test splits by problem, seeded.

Why by problem: samples of one task share NL, reference and tests; splitting by sample would
leak them between train and test (the paper leaves this open; we remove the doubt).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from data_builders.problems.base import Problem, task_number

SPLITS = ("train", "dev", "test")


def split_counts(n: int, ratios: Sequence[float]) -> list[int]:
    """Tasks per split: largest-remainder rounding of ``n * ratio``, and at least one task
    for every non-zero ratio when there are enough tasks."""
    total = sum(ratios)
    exact = [n * r / total for r in ratios]
    counts = [int(x) for x in exact]
    by_remainder = sorted(range(len(ratios)), key=lambda i: (counts[i] - exact[i], i))
    for i in by_remainder[: n - sum(counts)]:
        counts[i] += 1
    for i, ratio in enumerate(ratios):
        if ratio > 0 and counts[i] == 0 and max(counts) > 1:
            counts[counts.index(max(counts))] -= 1
            counts[i] += 1
    return counts


def assign_splits(
    task_ids: Sequence[str],
    ratios: Sequence[float],
    seed: int,
    held_out_from: int | None = None,
) -> dict[str, str]:
    """task_id -> split name.

    Tasks are shuffled with ``random.Random(seed)`` from their dataset order, then cut by
    :func:`split_counts`. With ``held_out_from``, the split is fixed by task number instead of
    drawn: every task numbered ``held_out_from`` or above is test, and the others are shuffled
    and cut into train and dev by the train:dev share of ``ratios`` (ratios without train or
    dev, a test-only set, make every task test). Why: HumanEval-X is the
    same 164 problems in six languages, and a multilingual model must hold out the same
    problems in every language (a problem trained on in C++ is not unseen in Rust).

    Args:
        task_ids: every task of the dataset, in dataset order (not only this shard's).
        ratios: (train, dev, test) weights.
        seed: the build seed.
        held_out_from: the first test task number (``None``: ratios decide the test split too).
    """
    if held_out_from is None:
        order = list(task_ids)
        random.Random(seed).shuffle(order)
        counts = split_counts(len(order), ratios)
        names = [name for name, count in zip(SPLITS, counts, strict=True) for _ in range(count)]
        return dict(zip(order, names, strict=True))
    if ratios[0] + ratios[1] <= 0:  # a test-only set (--split-ratios 0,0,1): all of it
        return dict.fromkeys(task_ids, "test")
    split_of = {t: "test" for t in task_ids if task_number(t) >= held_out_from}
    rest = [t for t in task_ids if t not in split_of]
    random.Random(seed).shuffle(rest)
    train, dev = split_counts(len(rest), [ratios[0], ratios[1]]) if rest else (0, 0)
    split_of.update(dict.fromkeys(rest[:train], "train"))
    split_of.update(dict.fromkeys(rest[train : train + dev], "dev"))
    return split_of


def split_problems(
    problems: Sequence[Problem],
    split: str,
    ratios: Sequence[float],
    seed: int,
    held_out_from: int | None = None,
) -> list[Problem]:
    """The problems of one split, by the builder's own splitting (all problems, dataset order,
    the config's seed, ratios and held-out tasks), so they are exactly the build's ``split``
    problems."""
    split_of = assign_splits([p.task_id for p in problems], ratios, seed, held_out_from)
    return [p for p in problems if split_of[p.task_id] == split]
