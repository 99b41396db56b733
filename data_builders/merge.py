"""``python -m data_builders merge --out DIR SHARD_DIR...``: join shard builds into one dataset.

Each shard (``build ... --num-shards K --shard-index I --out SHARD_DIR``) keeps its labelled
rows in ``SHARD_DIR/.progress``. Merging checks that all K shards are present, complete and
built with the same settings, then writes the same files a single-machine build writes
(same rows, same order, same splits, same statistics; only the measured ``exec_seconds``
and ``execution_seconds`` differ from a single-machine run, as between any two runs).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from data_builders.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``merge`` subcommand to the ``python -m data_builders`` parser."""
    parser = subparsers.add_parser(
        "merge",
        help="merge shard builds into one dataset",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("shards", nargs="+", type=Path, help="shard output folders")
    parser.add_argument("--out", required=True, type=Path, help="merged dataset folder")
    parser.set_defaults(func=run)


def _read_shard(folder: Path) -> tuple[dict[str, Any], dict[str, Any], list, list]:
    from data_builders.dataset.store import PROGRESS_DIR, read_appended

    info_path = folder / "build_info.json"
    manifest_path = folder / PROGRESS_DIR / "manifest.json"
    if not manifest_path.is_file():
        raise UserError(f"{folder}: not a shard build (no {PROGRESS_DIR}/manifest.json)")
    try:
        info = json.loads(info_path.read_text()) if info_path.is_file() else {}
        manifest = json.loads(manifest_path.read_text())
    except json.JSONDecodeError as exc:
        raise UserError(f"{folder}: unreadable shard metadata ({exc.msg})") from None
    if not info.get("complete"):
        raise UserError(f"{folder}: shard build not finished; rerun its build command first")
    rows = read_appended(folder / PROGRESS_DIR / "rows.jsonl")
    tasks = read_appended(folder / PROGRESS_DIR / "tasks.jsonl")
    return info, manifest, rows, tasks


def merge_shards(shards: list[Path], out: Path) -> dict[str, Any]:
    """Check and join shards; returns the merged statistics."""
    from data_builders.dataset.datasets import card_extras
    from data_builders.dataset.finalize import finalize

    read = [(_read_shard(folder), folder) for folder in shards]
    manifests = [m for (_, m, _, _), _ in read]
    common = [{k: v for k, v in m.items() if k != "shard_index"} for m in manifests]
    if any(c != common[0] for c in common):
        raise UserError(
            "shards were built with different settings; rebuild them with one command line"
        )
    expected = common[0]["num_shards"]
    indices = sorted(m["shard_index"] for m in manifests)
    if indices != list(range(expected)):
        raise UserError(f"need shards 0..{expected - 1} exactly once, got {indices}")
    rows = [row for (_, _, r, _), _ in read for row in r]
    tasks = [task for (_, _, _, t), _ in read for task in t]
    meta = read[0][0][0].get("meta")
    if meta is None:
        raise UserError(f"{shards[0]}: shard metadata lacks provenance; rebuild the shard")
    return finalize(out, rows, tasks, meta, card_extras(meta))


def run(args: argparse.Namespace) -> int:
    stats = merge_shards(args.shards, args.out)
    counts = " / ".join(f"{k} {v['samples']}" for k, v in stats["splits"].items())
    print(f"merged {len(args.shards)} shards into {args.out}: {counts}")
    return 0
