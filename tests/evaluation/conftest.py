"""Fixtures for the evaluation tests: a small labelled split and a tiny checkpoint.

The split is hand-made (labels written, not executed): evaluation only reads labels, and a
fixed table makes the expected numbers checkable. It has the cases that matter: a problem whose
samples all fail (constant labels), a problem with one sample, a sample without reference.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

PROBLEMS = {
    "T/0": (
        "Return the sum of a and b.",
        "def add(a, b):\n    return a + b\n",
        [
            ("def add(a, b):\n    return a + b\n", 1.0),
            ("def add(a, b):\n    return b + a\n", 1.0),
            ("def add(a, b):\n    return a - b\n", 0.25),
            ("def add(a, b):\n    return a * b\n", 0.5),
            ("def add(a, b):\n    return a\n", 0.0),
        ],
    ),
    "T/1": (
        "Return True when n is even.",
        "def is_even(n):\n    return n % 2 == 0\n",
        [
            ("def is_even(n):\n    return n % 2 == 0\n", 1.0),
            ("def is_even(n):\n    return n % 2 == 1\n", 0.0),
            ("def is_even(n):\n    return not n % 2\n", 1.0),
            ("def is_even(n):\n    return n > 0\n", 0.5),
        ],
    ),
    "T/2": (
        "Reverse a string.",
        "def rev(s):\n    return s[::-1]\n",
        [
            ("def rev(s):\n    return s\n", 0.0),
            ("def rev(s):\n    return s[1:]\n", 0.0),
            ("def rev(s):\n    return s.upper()\n", 0.0),
        ],
    ),
    "T/3": (
        "Largest element of a list.",
        "def biggest(xs):\n    return max(xs)\n",
        [
            ("def biggest(xs):\n    return max(xs)\n", 1.0),
            ("def biggest(xs):\n    return min(xs)\n", 0.2),
            ("def biggest(xs):\n    return sorted(xs)[-1]\n", 1.0),
            ("def biggest(xs):\n    return xs[0]\n", 0.4),
            ("def biggest(xs):\n    return xs[\n", 0.0),
        ],
    ),
    "T/4": (
        "Square a number.",
        "def sq(x):\n    return x * x\n",
        [("def sq(x):\n    return x ** 2\n", 1.0)],
    ),
}


def fixture_rows() -> list[dict]:
    """Rows in the dataset contract; syntax errors are not executable."""
    rows = []
    for task_id, (nl, reference, samples) in PROBLEMS.items():
        for k, (code, ratio) in enumerate(samples):
            executable = not code.rstrip().endswith("[")
            rows.append(
                {
                    "id": f"{task_id}::fixture::{k}",
                    "task_id": task_id,
                    "nl": nl,
                    "reference": reference,
                    "generated": code,
                    "pass_ratio": ratio,
                    "executable": executable,
                    "passed": ratio == 1.0,
                    "base_passed": ratio == 1.0,
                    "n_tests": 4,
                    "source": "samples:fixture",
                }
            )
    rows[-1]["reference"] = ""  # one sample with no reference: reference-based metrics skip it
    return rows


def write_rows(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory):
    """The ICE-Score reply cache is on by default: keep it out of ~/.cache and per test."""
    monkeypatch.setenv("UNICE_CACHE_DIR", str(tmp_path_factory.mktemp("unice-cache")))


@pytest.fixture
def dataset_dir(tmp_path: Path) -> Path:
    """A dataset folder with test.jsonl and a stats.json recording execution time."""
    folder = tmp_path / "fixture-eval"
    write_rows(folder / "test.jsonl", fixture_rows())
    (folder / "stats.json").write_text(
        json.dumps({"execution_seconds": 12.5, "input_convention": 2}), encoding="utf-8"
    )
    return folder


@pytest.fixture(scope="session")
def tiny_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny random UniCE checkpoint (skips if the model package is not there yet)."""
    testing = pytest.importorskip("unice.testing")
    return Path(testing.save_tiny_checkpoint(tmp_path_factory.mktemp("ckpt") / "tiny"))
