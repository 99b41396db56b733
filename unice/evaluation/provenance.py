"""What produced a report: command, checkpoint, data hash, code version, package versions."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

PACKAGES = (
    "unice",
    "torch",
    "transformers",
    "numpy",
    "scipy",
    "scikit-learn",
    "sacrebleu",
    "rouge-score",
    "nltk",
    "codebleu",
    "crystalbleu",
    "code-bert-score",
)
EXECUTION_KEYS = ("execution_seconds", "exec_seconds", "label_seconds", "labelling_seconds")


def package_versions() -> dict[str, str]:
    """Installed versions of the packages whose behaviour changes the numbers."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def git_commit(cwd: Path | None = None) -> str | None:
    """The checkout's commit (with ``-dirty`` when it has changes), or ``None`` outside git."""
    cwd = cwd or Path(__file__).resolve().parents[2]
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=cwd, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=cwd,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("-dirty" if dirty else "")


def file_sha256(path: Path) -> str | None:
    if not path.is_file():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checkpoint_info(ckpt_path: str | None) -> dict[str, Any] | None:
    """Folder and hashes of the checkpoint's config and weights (identifies the exact model)."""
    if not ckpt_path:
        return None
    folder = Path(ckpt_path)
    return {
        "path": str(folder.resolve()),
        "config_sha256": file_sha256(folder / "config.json"),
        "weights_sha256": file_sha256(folder / "model.safetensors"),
    }


def execution_cost(
    split_file: Path, split: str, rows: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Seconds spent executing the tests, from the most specific record available.

    The dataset contract does not store execution time, so in order of preference: an
    ``exec_seconds`` field on every row (this split exactly); ``stats.json`` keys
    :data:`EXECUTION_KEYS` (under ``splits.<split>`` or top level); ``build_info.json``
    ``seconds`` (the whole build: test extension and labelling of every split, an upper bound).
    """
    if rows and all(isinstance(r.get("exec_seconds"), (int, float)) for r in rows):
        total = float(sum(r["exec_seconds"] for r in rows))
        return {"seconds": total, "note": "sum of the rows' exec_seconds (this split)"}
    folder = split_file.parent
    stats = _read_json(folder / "stats.json")
    split_stats = (stats.get("splits") or {}).get(split) if isinstance(stats, dict) else None
    for scope, source in (("this split", split_stats), ("whole dataset", stats)):
        if isinstance(source, dict):
            for key in EXECUTION_KEYS:
                if isinstance(source.get(key), (int, float)):
                    return {
                        "seconds": float(source[key]),
                        "note": f"{key} from stats.json ({scope})",
                    }
    info = _read_json(folder / "build_info.json")
    if isinstance(info, dict) and isinstance(info.get("seconds"), (int, float)):
        return {
            "seconds": float(info["seconds"]),
            "note": "whole dataset build (extension + labelling, all splits) from build_info.json",
        }
    return {"seconds": None, "note": "not recorded by the dataset"}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None


def provenance(ckpt_path: str | None) -> dict[str, Any]:
    return {
        "command": " ".join([Path(sys.argv[0]).name, *sys.argv[1:]]),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "checkpoint": checkpoint_info(ckpt_path),
        "git_commit": git_commit(),
        "python": sys.version.split()[0],
        "packages": package_versions(),
    }
