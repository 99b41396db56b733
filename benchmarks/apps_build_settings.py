"""Build time and label drift of ``build apps`` under changed settings, side by side.

    python benchmarks/apps_build_settings.py --source ../shared/data/apps_subset/problems.jsonl \
        --samples ../shared/data/apps_subset/samples.jsonl \
        --set extension.reference_timeout=0.25 --set timeouts.after_timeout=0.01

Runs the real command (``python -m data_builders build apps ... --reference-samples exclude``)
twice, each from a cold extended-test cache in a scratch folder: with
``configs/build/apps.yaml`` as it is, then with the ``--set`` overrides applied to a copy of
it. Prints each build's wall seconds, its summed ``exec_seconds`` (the CPU the sandbox measured
on the candidates' tests) and how many rows' labels differ between the two, field by field.

Why: the ten-minute target for the real-APPS subset cannot be met without changing what the
tests are (see docs/datasets.md). This measures what a given change buys and what it costs in
labels, on the same machine in one run, so the choice is made on figures.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
LABEL_FIELDS = ("pass_ratio", "executable", "passed", "base_passed", "n_tests")


def parse_override(text: str) -> tuple[str, str, Any]:
    """``section.key=value`` -> (section, key, YAML-parsed value)."""
    name, sep, value = text.partition("=")
    section, dot, key = name.partition(".")
    if not sep or not dot:
        raise argparse.ArgumentTypeError(f"--set {text!r}: expected section.key=value")
    return section, key, yaml.safe_load(value)


def variant_config(overrides: list[tuple[str, str, Any]], folder: Path) -> Path:
    """A copy of configs/build/apps.yaml with ``overrides`` applied (keys must exist)."""
    config = yaml.safe_load((REPO / "configs/build/apps.yaml").read_text())
    for section, key, value in overrides:
        if key not in config.get(section, {}):
            sys.exit(f"--set {section}.{key}: no such setting in configs/build/apps.yaml")
        config[section][key] = value
    path = folder / "apps_variant.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def build(args: argparse.Namespace, folder: Path, config: Path | None) -> float:
    """One cold build into ``folder``; returns its wall seconds."""
    command = [
        sys.executable, "-m", "data_builders", "build", "apps",
        "--source", args.source, "--samples", args.samples,
        "--reference-samples", "exclude", "--workers", str(args.workers),
        "--cache-dir", str(folder / "extension-cache"), "--out", str(folder / "data"),
    ]  # fmt: skip
    if config is not None:
        command += ["--config", str(config)]
    started = time.monotonic()
    subprocess.run(command, cwd=REPO, check=True)
    return time.monotonic() - started


def load_rows(folder: Path) -> dict[str, dict[str, Any]]:
    """A built dataset's rows (all three splits) by ``id``."""
    from data_builders.jsonl import read_jsonl

    splits = ("train", "dev", "test")
    return {row["id"]: row for split in splits for row in read_jsonl(folder / f"{split}.jsonl")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--samples", required=True)
    parser.add_argument(
        "--set", dest="overrides", action="append", type=parse_override, required=True,
        metavar="SECTION.KEY=VALUE", help="a setting of configs/build/apps.yaml to change",
    )  # fmt: skip
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="apps-settings-") as scratch:
        root = Path(scratch)
        (root / "default").mkdir()
        (root / "variant").mkdir()
        config = variant_config(args.overrides, root)
        seconds = {
            "default": build(args, root / "default", None),
            "variant": build(args, root / "variant", config),
        }
        rows = {name: load_rows(root / name / "data") for name in seconds}

    base, other = rows["default"], rows["variant"]
    if set(base) != set(other):
        sys.exit(f"the builds hold different rows: {len(base)} vs {len(other)}")
    changes = " ".join(f"{s}.{k}={v}" for s, k, v in args.overrides)
    print(f"\nAPPS subset, {len(base)} rows, {args.workers} workers, cold caches")
    print(f"{'build':<10} {'wall s':>8} {'exec_seconds':>13}")
    for name, wall in seconds.items():
        cpu = sum(row["exec_seconds"] for row in rows[name].values())
        print(f"{name:<10} {wall:>8.1f} {cpu:>13.1f}")
    print(f"variant: {changes}")
    for field in LABEL_FIELDS:
        differ = [i for i in base if base[i][field] != other[i][field]]
        tasks = sorted({base[i]["task_id"].rsplit("/", 1)[-1] for i in differ})
        print(f"  {field:<12} differs in {len(differ):>4} rows ({len(tasks)} tasks)")
    gaps = [abs(base[i]["pass_ratio"] - other[i]["pass_ratio"]) for i in base]
    print(f"  pass_ratio   mean |diff| {statistics.mean(gaps):.4f}, max {max(gaps):.3f}")
    for field in ("pass_ratio", "executable", "passed"):
        means = [statistics.mean(float(r[field]) for r in rows[n].values()) for n in rows]
        print(f"  mean {field:<10} {means[0]:.4f} -> {means[1]:.4f}")


if __name__ == "__main__":
    main()
