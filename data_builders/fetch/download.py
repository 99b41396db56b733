"""Getting one pinned source file: from a raw folder when given, else over HTTPS, always
checked against the manifest's size and sha256 before anything converts it.

Why check before converting: a converter fed a different revision of a file (a moved branch,
a proxy's error page, a truncated download) would write a plausible but different derived
file; the pin makes that an error naming the file instead.
"""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from pathlib import Path

from data_builders.errors import UserError
from data_builders.fetch.manifest import SourceFile

TIMEOUT_S = 20.0


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify(entry: SourceFile, path: Path) -> None:
    """Fail unless ``path`` has the manifest's size and sha256 for ``entry``."""
    size = path.stat().st_size
    if size != entry.size:
        raise UserError(
            f"{path}: {size} bytes, the manifest pins {entry.size} for {entry.repo}@"
            f"{entry.commit[:7]}:{entry.path}; delete it (or fix --raw) and rerun"
        )
    digest = sha256_of(path)
    if digest != entry.sha256:
        raise UserError(
            f"{path}: sha256 {digest[:12]}... differs from the manifest's {entry.sha256[:12]}... "
            f"for {entry.repo}@{entry.commit[:7]}:{entry.path}; delete it (or fix --raw) and rerun"
        )


def download(url: str, target: Path, timeout: float = TIMEOUT_S) -> None:
    """Download ``url`` to ``target`` atomically; any network failure is a one-line UserError
    that names ``--raw`` (the offline way)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".part")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response, tmp.open("wb") as out:
            for block in iter(lambda: response.read(1 << 16), b""):
                out.write(block)
        os.replace(tmp, target)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise UserError(
            f"cannot download {url} ({reason}); offline, pass --raw DIR with the files laid out "
            "as <owner>+<repo>/<commit>/<path>"
        ) from None
    finally:
        if tmp.exists():
            tmp.unlink()


def obtain(
    entry: SourceFile, raw: Path | None, cache_dir: Path, timeout: float = TIMEOUT_S
) -> Path:
    """A verified local copy of ``entry``: ``raw``'s when given (never downloaded then), else the
    cache's, downloading it when absent."""
    if raw is not None:
        path = raw / entry.raw_relpath
        if not path.is_file():
            raise UserError(
                f"{path}: missing from --raw {raw} (expected <owner>+<repo>/<commit>/<path>); "
                "drop --raw to download it"
            )
        verify(entry, path)
        return path
    path = cache_dir / entry.raw_relpath
    if not path.is_file():
        download(entry.url, path, timeout)
    try:
        verify(entry, path)
    except UserError:
        path.unlink()  # a bad download is not kept: the rerun downloads it again
        raise
    return path
