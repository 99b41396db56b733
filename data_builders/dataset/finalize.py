"""Turn a build's progress (rows + task records) into the published dataset files.

Used by both ``build`` (single machine) and ``merge`` (shards), so the two produce
byte-identical files from the same rows: rows are sorted by their dataset order, splits
are assigned over all tasks from the seed, and every file is written atomically.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from data_builders.dataset import decontaminate
from data_builders.dataset.card import CardExtras, plot_pass_ratio, render_card
from data_builders.dataset.splits import SPLITS, assign_splits
from data_builders.dataset.stats import dataset_stats
from data_builders.jsonl import atomic_writer, write_jsonl


def public_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row without private bookkeeping fields (``_order``)."""
    return {key: value for key, value in row.items() if not key.startswith("_")}


def finalize(
    out_dir: str | Path,
    rows: Sequence[Mapping[str, Any]],
    tasks: Sequence[Mapping[str, Any]],
    meta: Mapping[str, Any],
    extras: CardExtras | None = None,
) -> dict[str, Any]:
    """Write ``{train,dev,test}.jsonl``, ``stats.json``, ``README.md`` and ``pass_ratio.png``.

    Args:
        out_dir: the dataset folder.
        rows: labelled candidates, each with ``_order`` (its position in the dataset order).
        tasks: one record per problem, each with ``_index`` (the problem's dataset position).
        meta: provenance recorded in ``stats.json`` (dataset, seed, split_ratios, ...).
        extras: what this dataset adds to ``stats.json`` and the card
            (:func:`data_builders.dataset.datasets.card_extras`); None: nothing.

    Returns:
        The statistics written to ``stats.json``.
    """
    out_dir = Path(out_dir)
    tasks = sorted(tasks, key=lambda t: t["_index"])
    split_of = assign_splits(
        [t["task_id"] for t in tasks],
        meta["split_ratios"],
        meta["seed"],
        meta.get("held_out_from"),
    )
    dropped = [t for t in tasks if t.get("dropped")]  # by decontamination, after the split
    gone = {t["task_id"] for t in dropped}
    tasks = [t for t in tasks if t["task_id"] not in gone]
    rows = [r for r in rows if r["task_id"] not in gone]
    by_split: dict[str, list[dict[str, Any]]] = {name: [] for name in SPLITS}
    for row in sorted(rows, key=lambda r: r["_order"]):
        by_split[split_of[row["task_id"]]].append(public_row(row))
    for name in SPLITS:
        write_jsonl(out_dir / f"{name}.jsonl", by_split[name])
    stats = dataset_stats(by_split, tasks, split_of, meta)
    settings = (meta.get("config") or {}).get("decontamination")
    stats["decontamination"] = decontaminate.summary(dropped, split_of, settings)
    extras = extras or CardExtras()
    for key, compute in extras.stats.items():
        stats[key] = compute(tasks)
    with atomic_writer(out_dir / "stats.json") as handle:
        json.dump(stats, handle, indent=2)
        handle.write("\n")
    with atomic_writer(out_dir / "README.md") as handle:
        handle.write(render_card(stats, extras))
    plot_pass_ratio(by_split, out_dir / "pass_ratio.png")
    return stats
