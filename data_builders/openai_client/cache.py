"""A disk cache of chat replies, one small JSON file per request.

Why one file per request: replies are written the moment they arrive (atomically, by rename),
so a crash, a Ctrl-C or a dead server loses nothing already paid for, several threads can
write at once without a lock, and a rerun of the same command asks only for what is missing.

The key is the SHA-256 of the canonical JSON of ``(backend, model, prompt messages,
generation parameters)``. The server URL is deliberately *not* part of it: the same model
served from another host or port (another replica) gives the same replies at temperature 0 or
with the same seed, so a run resumes whatever endpoints it is given the second time.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from data_builders.openai_client.errors import ClientConfigError

CACHE_VERSION = 1


def request_key(backend: str, model: str, messages: list[dict[str, str]], params: dict) -> str:
    """Stable hex key for one request; equal inputs give equal keys across runs and machines."""
    payload = {
        "v": CACHE_VERSION,
        "backend": backend,
        "model": model,
        "messages": messages,
        "params": params,
    }
    canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ReplyCache:
    """Get/put JSON entries by key under ``root/<key[:2]>/<key>.json``."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ClientConfigError(
                f"cannot create cache folder {self.root} ({exc.strerror}); pass another --cache"
            ) from None

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        """The stored entry, or ``None`` when absent or unreadable (then it is simply redone)."""
        try:
            with open(self._path(key), encoding="utf-8") as handle:
                entry = json.load(handle)
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) and "reply" in entry else None

    def put(self, key: str, entry: dict[str, Any]) -> None:
        """Store ``entry`` atomically (temporary file in the same folder, then rename)."""
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(entry, handle, ensure_ascii=False)
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)

    def count(self) -> int:
        """Number of stored replies (not ``__len__``: an empty cache must still be truthy)."""
        return sum(1 for _ in self.root.glob("*/*.json"))
