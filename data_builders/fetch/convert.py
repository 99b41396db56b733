"""Converters that need no rules: byte copies and CodeT's CodeGen-16B samples.

Why copies are converters too: CoNaLa's grades, HumanEval-X and the sanitized MBPP problems are
published files used as they are; fetching them through the same pinned, checked path keeps every
shelf file's provenance in one manifest.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.jsonl import read_jsonl


def copy_file(source: Path, target: Path) -> None:
    """Copy ``source`` to ``target`` byte for byte, atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def codet_samples(samples: Path, problems: Path, generator: str) -> Iterator[dict[str, Any]]:
    """CodeT's ``{"prompt", "samples": [...]}`` lines as one row per sample, in file order, with
    the HumanEval task id whose CodeT prompt is exactly that prompt (CodeT's prompts lack the
    doctest examples, so openai's HumanEval prompts would not match)."""
    task_of = {
        row["prompt"]: row["task_id"]
        for row in read_jsonl(problems, required=("prompt", "task_id"))
    }
    for number, line in enumerate(read_jsonl(samples, required=("prompt", "samples")), start=1):
        task_id = task_of.get(line["prompt"])
        if task_id is None:
            raise UserError(f"{samples}:{number}: prompt matches no task of {problems}")
        for index, completion in enumerate(line["samples"]):
            yield {
                "task_id": task_id,
                "sample_id": index,
                "completion": completion,
                "generator": generator,
            }


def write_rows(path: Path, rows: Iterable[dict[str, Any]], compact: bool = True) -> int:
    """Write JSONL atomically: compact and UTF-8 (the generation files), or ``json.dumps``'s
    default spacing and ASCII escapes (CodeT's style, kept for the samples file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    count = 0
    try:
        with tmp.open("w", encoding="utf-8") as handle:
            for row in rows:
                if compact:
                    handle.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
                else:
                    handle.write(json.dumps(row) + "\n")
                count += 1
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
    return count
