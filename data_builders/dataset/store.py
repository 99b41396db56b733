"""Resumable, append-only build progress.

Layout of ``OUT/.progress/``: ``manifest.json`` (what is being built — a rerun with other
settings is refused instead of mixing two datasets), ``rows.jsonl`` (one labelled candidate
per line) and ``tasks.jsonl`` (one problem per line: its extended-test counts, split key).

Why it survives a kill at any point: lines are only ever appended, each write is flushed
(and fsynced every batch), and on reopening a torn last line — the only thing a kill can
leave — is cut off. The set of ids already present is the "done set": a rerun labels only
what is missing, so nothing is lost and nothing is duplicated.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

from data_builders.errors import UserError
from data_builders.jsonl import atomic_writer, dumps

PROGRESS_DIR = ".progress"
STORE_VERSION = 1


def read_appended(path: Path) -> list[dict[str, Any]]:
    """All complete lines of an append-only file; a torn last line is truncated away."""
    if not path.is_file():
        return []
    data = path.read_bytes()
    good_end = data.rfind(b"\n") + 1
    records = []
    for line in data[:good_end].splitlines():
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                raise UserError(
                    f"{path}: corrupt progress line; delete {path.parent} to rebuild"
                ) from None
    if good_end != len(data):
        with open(path, "r+b") as handle:
            handle.truncate(good_end)
    return records


class ProgressStore:
    """The append-only progress of one build (or one shard) in ``out_dir``."""

    def __init__(self, out_dir: str | os.PathLike[str], manifest: dict[str, Any]) -> None:
        self.out_dir = Path(out_dir)
        self.dir = self.out_dir / PROGRESS_DIR
        self.manifest = {"store_version": STORE_VERSION, **manifest}
        self._check_manifest()
        self.rows = {r["id"]: r for r in read_appended(self.dir / "rows.jsonl")}
        self.tasks = {t["task_id"]: t for t in read_appended(self.dir / "tasks.jsonl")}
        self._handles: dict[str, IO[str]] = {}
        self._pending = 0

    def _check_manifest(self) -> None:
        path = self.dir / "manifest.json"
        if path.is_file():
            try:
                existing = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                existing = None
            if existing != self.manifest:
                changed = sorted(
                    key
                    for key in set(self.manifest) | set(existing or {})
                    if (existing or {}).get(key) != self.manifest.get(key)
                )
                raise UserError(
                    f"{self.out_dir} holds a build with other settings (differs in: "
                    f"{', '.join(changed)}); rerun with the same options to resume, or use "
                    "another --out (or delete the folder) to start afresh"
                )
            return
        with atomic_writer(path) as handle:
            json.dump(self.manifest, handle, indent=2, sort_keys=True)

    def _append(self, name: str, record: dict[str, Any]) -> None:
        handle = self._handles.get(name)
        if handle is None:
            handle = open(self.dir / name, "a", encoding="utf-8")  # noqa: SIM115 - kept open
            self._handles[name] = handle
        handle.write(dumps(record) + "\n")
        handle.flush()
        self._pending += 1
        if self._pending >= 64:
            self.sync()

    def add_row(self, row: dict[str, Any]) -> None:
        if row["id"] in self.rows:
            return
        self.rows[row["id"]] = row
        self._append("rows.jsonl", row)

    def add_task(self, task: dict[str, Any]) -> None:
        if task["task_id"] in self.tasks:
            return
        self.tasks[task["task_id"]] = task
        self._append("tasks.jsonl", task)

    def sync(self) -> None:
        """fsync appended lines so a power cut cannot lose a reported row."""
        for handle in self._handles.values():
            handle.flush()
            os.fsync(handle.fileno())
        self._pending = 0

    def close(self) -> None:
        self.sync()
        for handle in self._handles.values():
            handle.close()
        self._handles.clear()

    def __enter__(self) -> ProgressStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
