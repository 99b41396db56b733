"""Rebuild every data-shelf file from the shelf's raw sources and compare it with the shelf.

    .venv/bin/python scripts/check_fetch.py [--shared ../shared/data] [--out data/fetch-check]
                                            [--only NAME ...] [--no-build]

Runs ``python -m data_builders fetch --raw <shared>/raw --out <out>`` (resumable: finished
targets are skipped), then compares each derived file with ``<shared>/<file>``: JSON/JSONL files
row by row as parsed JSON (same rows, same order), ``.gz`` files by their decompressed content,
other files byte for byte. Prints one line per file and the first differing rows; exits 1 when a
file differs, 2 when the shelf is absent (the shelf exists on the project's machines only).
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from data_builders.fetch.manifest import load_config  # noqa: E402


def parsed(path: Path) -> Any:
    """A file's content for comparison: a list of rows (JSONL), a JSON value, or bytes."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
        name = path.stem
    else:
        name = path.name
    if name.endswith(".jsonl"):
        return [json.loads(line) for line in data.decode("utf-8").splitlines() if line.strip()]
    if name.endswith(".json"):
        return json.loads(data)
    return data


def compare(ours: Path, theirs: Path, show: int = 3) -> tuple[bool, str]:
    """(equal, one-line summary with the first differing rows)."""
    if not ours.is_file():
        return False, "not built"
    a, b = parsed(ours), parsed(theirs)
    if not isinstance(a, list) or not isinstance(b, list):
        return a == b, "equal" if a == b else "content differs"
    differing = [i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y]
    extra = abs(len(a) - len(b))
    if not differing and not extra:
        return True, f"equal ({len(a)} rows)"
    detail = []
    for i in differing[:show]:
        keys = sorted(k for k in set(a[i]) | set(b[i]) if a[i].get(k) != b[i].get(k))
        detail.append(f"row {i + 1}: fields {', '.join(keys)}")
    return False, (
        f"{len(differing)} of {min(len(a), len(b))} rows differ, rows {len(a)} vs {len(b)}; "
        + "; ".join(detail)
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shared", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=REPO / "data" / "fetch-check")
    parser.add_argument("--only", nargs="+", default=None, metavar="NAME")
    parser.add_argument("--no-build", action="store_true", help="compare what --out holds")
    parser.add_argument("--workers", type=int, default=None)
    args = parser.parse_args(argv)
    if not (args.shared / "raw" / "MANIFEST.tsv").is_file():
        print(
            f"error: {args.shared}/raw/MANIFEST.tsv not found: this check needs the data shelf",
            file=sys.stderr,
        )
        return 2
    if not args.no_build:
        command = [
            sys.executable,
            "-m",
            "data_builders",
            "fetch",
            "--raw",
            str(args.shared / "raw"),
            "--out",
            str(args.out),
        ]
        command += ["--only", *args.only] if args.only else []
        command += ["--workers", str(args.workers)] if args.workers else []
        if subprocess.run(command, cwd=REPO).returncode != 0:
            return 1
    targets = load_config()["targets"]
    all_equal = True
    for name, spec in targets.items():
        if args.only and name not in args.only:
            continue
        outputs = list(spec.get("files", {})) or list(spec.get("outputs", [])) or [spec["output"]]
        for output in outputs:
            equal, summary = compare(args.out / output, args.shared / output)
            all_equal &= equal
            print(f"{'OK  ' if equal else 'DIFF'} {output}: {summary}")
    return 0 if all_equal else 1


if __name__ == "__main__":
    sys.exit(main())
