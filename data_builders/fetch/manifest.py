"""The project's list of public source files (``configs/fetch/manifest.tsv``) and the
targets built from them (``configs/fetch/targets.yaml``).

Why a manifest in the project: every derived file is rebuilt from files of public
repositories at pinned commits, and the pin (commit, size, sha256, licence, URL) is data about
those public sources, not about our machines. The TSV has the columns of the shelf's
``raw/MANIFEST.tsv`` (``repo``, ``commit``, ``path``, ``bytes``, ``sha256``, ``licence``,
``derived_into``, ``url``, ``role``, ``note``), so a raw folder laid out as
``<owner>+<repo>/<commit>/<path>`` is read as it is.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from data_builders.errors import UserError

CONFIG_DIR = Path(__file__).resolve().parents[2] / "configs" / "fetch"
MANIFEST = CONFIG_DIR / "manifest.tsv"
TARGETS = CONFIG_DIR / "targets.yaml"
COLUMNS = ("repo", "commit", "path", "bytes", "sha256", "licence", "derived_into", "url")


@dataclass(frozen=True)
class SourceFile:
    """One public file at a pinned commit."""

    repo: str
    commit: str
    path: str
    size: int
    sha256: str
    licence: str
    url: str

    @property
    def raw_relpath(self) -> Path:
        """Where the file lies in a raw folder: ``<owner>+<repo>/<commit>/<path>``."""
        return Path(self.repo.replace("/", "+")) / self.commit / self.path

    @property
    def source(self) -> str:
        """The derived rows' ``source`` field: ``owner/repo@<7 hex>:path``."""
        return f"{self.repo}@{self.commit[:7]}:{self.path}"


def load_manifest(path: Path = MANIFEST) -> dict[tuple[str, str], SourceFile]:
    """Read the manifest, keyed by ``(repo, path)`` (one pinned commit per repository)."""
    if not path.is_file():
        raise UserError(f"{path}: fetch manifest missing; restore it from git")
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise UserError(f"{path}: manifest lacks column(s) {', '.join(missing)}")
        files = {}
        for row in reader:
            entry = SourceFile(
                repo=row["repo"],
                commit=row["commit"],
                path=row["path"],
                size=int(row["bytes"]),
                sha256=row["sha256"],
                licence=row["licence"],
                url=row["url"],
            )
            files[(entry.repo, entry.path)] = entry
    return files


def source_file(manifest: dict[tuple[str, str], SourceFile], repo: str, path: str) -> SourceFile:
    """The manifest row of ``repo``'s ``path``; a target naming an unknown file is a config error."""
    try:
        return manifest[(repo, path)]
    except KeyError:
        raise UserError(
            f"fetch manifest: no row for {repo}:{path} (named in the targets file)"
        ) from None


def load_config(path: Path = TARGETS) -> dict[str, Any]:
    """Read the targets file: ``headers`` (harness reference files) and ``targets`` (name ->
    ``{kind, output(s), sources...}`` in build order)."""
    if not path.is_file():
        raise UserError(f"{path}: fetch targets missing; restore it from git")
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return {"headers": dict(raw.get("headers") or {}), "targets": dict(raw.get("targets") or {})}
