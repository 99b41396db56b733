"""Every benchmark script still runs: each one's ``--smoke`` run, as a subprocess.

A smoke run makes its own tiny input (never ``../shared``, never the network) and writes its
record (``--json-out``: commit, machine, settings, figures, output) like a real run. Where a
toolchain or optional package is missing, the script says so in the record and the test
skips with that reason. The scripts are run, never imported: they are not product code.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCHMARKS = REPO / "benchmarks"
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py") if not p.name.startswith("_"))
# torch and transformers imports or a local Ray cluster: 20-40 s each on a loaded 2-core
# machine, 10-20 s idle (the rest take 1-10 s)
SLOW = {
    "frozen_encoding_cost.py",
    "generate_throughput.py",
    "label_ray_vs_local.py",
    "scoring_vs_execution.py",
    "training_throughput.py",
}
# the summary lines other work quotes and compares: their formats must not drift
PRINTED = {
    "label_vs_plain_harness.py": [
        r"^ratio label/plain programs/s: \d+\.\d\dx; pass/fail agreement \d+/\d+ = \d+\.\d%$",
        r"^label  js, canonical times cached: \d+\.\d\d programs/s; ratio label/plain "
        r"\d+\.\d\dx; same pass/fail as the first label run \d+/\d+$",
    ],
}


def test_every_script_is_listed() -> None:
    assert len(SCRIPTS) >= 20 and set(SCRIPTS) >= SLOW and set(PRINTED) <= set(SCRIPTS)


@pytest.mark.parametrize(
    "script", [pytest.param(s, marks=pytest.mark.slow) if s in SLOW else s for s in SCRIPTS]
)
def test_smoke_run(script: str, tmp_path: Path) -> None:
    out = tmp_path / "record.json"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--smoke", "--json-out", str(out)],
        cwd=tmp_path,  # from anywhere, not only the repository's root
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    record = json.loads(out.read_text())
    if record["skipped"]:
        pytest.skip(f"{script}: {record['skipped']}")
    name = script.removesuffix(".py")
    assert record["benchmark"] == name and record["smoke"] is True
    assert record["figures"], "a run records its figures"
    assert record["settings"]["smoke"] is True
    assert record["machine"]["cpus"] >= 1 and record["machine"]["python"]
    assert record["output"] and set(record["output"]) <= set(done.stdout.splitlines())
    assert out.with_suffix(".md").read_text().startswith(f"# {name} (smoke)\n")
    for pattern in PRINTED.get(script, []):
        assert re.search(pattern, done.stdout, re.M), (pattern, done.stdout)


def test_nothing_imports_benchmark_scripts() -> None:
    """Product code never imports from ``benchmarks/``; tests run the scripts, never load them."""
    names = "|".join(re.escape(s.removesuffix(".py")) for s in SCRIPTS)
    imports = re.compile(rf"^\s*(from|import)\s+(benchmarks\b|_harness\b|(?:{names})\b)", re.M)
    for folder in ("data_builders", "unice", "tests"):
        for path in (REPO / folder).rglob("*.py"):
            if path == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8")
            assert not imports.search(text), path
            loads = "spec_from_file_location" in text and '"benchmarks"' in text
            assert not loads, f"{path} loads a benchmark script as a module"
