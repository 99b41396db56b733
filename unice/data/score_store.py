"""Two scores per key in a SQLite file: what an expensive frozen scorer already computed.

Why one module: the coder/reviewer likelihoods (``unice.evaluation.likelihoods``) and the
CodeBERTScore features (``unice.data.codebertscore_features``) both score text pairs once and
read them back in later runs, and several processes (seeds, folds) may score side by side.
SQLite's locking makes concurrent readers and one writer safe without a lock file of our own;
WAL mode lets readers go on while one writes.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

IN_MEMORY = ("none", "null", "memory", "")
"""``cache`` values that keep scores in memory only."""


class PairScoreStore:
    """Two named scores per key, in a SQLite file (``path=None``: in memory only).

    Args:
        path: the SQLite file, created with its folder when missing.
        columns: the two scores' names, the table's columns (e.g. ``("f1", "f3")``).
    """

    def __init__(self, path: str | Path | None, columns: tuple[str, str]):
        self.path = Path(path) if path is not None else None
        self.columns = columns
        self._memory: dict[str, tuple[float, float]] = {}
        self._db: sqlite3.Connection | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=120)
            self._db.execute("PRAGMA journal_mode=WAL")
            first, second = columns
            self._db.execute(
                f"CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, {first} REAL, {second} REAL)"
            )
            self._db.commit()

    def get(self, key: str) -> tuple[float, float] | None:
        """The two scores of ``key``, or ``None`` when neither memory nor the file has them."""
        if key in self._memory:
            return self._memory[key]
        if self._db is None:
            return None
        first, second = self.columns
        row = self._db.execute(
            f"SELECT {first}, {second} FROM scores WHERE key = ?", (key,)
        ).fetchone()
        if row is None:
            return None
        self._memory[key] = (float(row[0]), float(row[1]))
        return self._memory[key]

    def put(self, key: str, first: float, second: float) -> None:
        self.put_many([(key, first, second)])

    def put_many(self, entries: Sequence[tuple[str, float, float]]) -> None:
        """Keep ``(key, first, second)`` entries, written to the file in one transaction."""
        for key, first, second in entries:
            self._memory[key] = (first, second)
        if self._db is not None and entries:
            self._db.executemany("INSERT OR REPLACE INTO scores VALUES (?, ?, ?)", entries)
            self._db.commit()


def store_path(cache: str | None, folder: str, namespace: str) -> Path | None:
    """The SQLite file of one scorer's scores: ``auto`` puts it in the UniCE cache
    (``$UNICE_CACHE_DIR/<folder>`` or ``~/.cache/unice/<folder>``); ``None``/``memory``: none."""
    if cache is None or str(cache).lower() in IN_MEMORY:
        return None
    if str(cache) == "auto":
        from data_builders.cache import cache_dir

        return cache_dir(folder) / f"{namespace}.sqlite"
    return Path(str(cache)) / f"{namespace}.sqlite"
