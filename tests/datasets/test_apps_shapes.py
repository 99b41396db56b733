"""APPS shapes met in the real data (hub layout, written here): outputs as lists of lines,
float outputs, a first solution failing its own tests, a problem no solution passes, and
samples that are a copy of a problem's reference (``--reference-samples``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.problems.apps import load_apps

LINES = {  # stdin; inputs and outputs stored as lists of lines, as in part of APPS
    "problem_id": 10,
    "question": "Read n, then n integers; print their maximum, then their sum, on two lines.",
    "solutions": [
        "n = int(input())\nxs = list(map(int, input().split()))\nprint(max(xs))\nprint(sum(xs))\n"
    ],
    "input_output": {"inputs": [["3", "1 5 2"], ["1", "7"]], "outputs": [["5", "8"], ["7", "7"]]},
}
FLOATS = {  # stdin; the expected output is a rounded float, the reference prints more digits
    "problem_id": 11,
    "question": "Read a and b; print a / b.",
    "solutions": ["a, b = map(int, input().split())\nprint(a / b)\n"],
    "input_output": {"inputs": ["1 3\n", "2 4\n"], "outputs": ["0.3333333333\n", "0.5\n"]},
}
FIRST_FAILS = {  # call-based; solution 0 is wrong, solution 1 right: 1 becomes the reference
    "problem_id": 12,
    "question": "Return x squared.",
    "solutions": ["def sq(x):\n    return x * 2\n", "def sq(x):\n    return x * x\n"],
    "input_output": {"fn_name": "sq", "inputs": [[3], [4]], "outputs": [[9], [16]]},
}
NONE_PASS = {  # no solution passes its own tests: kept, flagged in stats.json
    "problem_id": 13,
    "question": "Print the number read, plus one.",
    "solutions": ["print(int(input()) + 2)\n"],
    "input_output": {"inputs": ["1\n", "5\n"], "outputs": ["2\n", "6\n"]},
}
PROBLEMS = [LINES, FLOATS, FIRST_FAILS, NONE_PASS]


def _write(path: Path) -> Path:
    lines = []
    for problem in PROBLEMS:
        record = {**problem, "starter_code": "", "difficulty": "interview"}
        record["solutions"] = json.dumps(problem["solutions"])
        record["input_output"] = json.dumps(problem["input_output"])
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n")
    return path


def _samples(path: Path) -> Path:
    copy = LINES["solutions"][0].replace("\n", "   \n") + "\n\n"  # the reference, reformatted
    rows = [
        {"task_id": "APPS/problems/0010", "solution": copy},
        {
            "task_id": "APPS/problems/0010",
            "solution": "input()\nprint(max(map(int, input().split())))\n",
        },
        {"task_id": "APPS/problems/0012", "solution": FIRST_FAILS["solutions"][0]},
        {"task_id": "APPS/problems/0012", "solution": FIRST_FAILS["solutions"][1]},
        {
            "task_id": "APPS/problems/0011",
            "solution": "a, b = map(int, input().split())\nprint(f'{a / b:.10f}')\n",
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _rows(out: Path) -> dict[str, dict]:
    rows = [
        json.loads(line)
        for split in ("train", "dev", "test")
        for line in (out / f"{split}.jsonl").read_text().splitlines()
    ]
    return {r["id"]: r for r in rows}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict]]:
    """The same problems and samples built with each --reference-samples mode."""
    root = tmp_path_factory.mktemp("apps-shapes")
    source, samples = _write(root / "problems.jsonl"), _samples(root / "samples.jsonl")
    results = {}
    for mode in ("keep", "flag", "exclude"):
        out = root / mode
        argv = ["build", "apps", "--source", str(source), "--samples", str(samples)]
        argv += ["--out", str(out), "--cache-dir", str(root / "cache"), "--workers", "2"]
        # all test: in train/dev, decontamination would drop "x squared" (HumanEval/41's n**2)
        argv += ["--split-ratios", "0,0,1", "--reference-samples", mode]
        assert main(argv) == 0
        results[mode] = (out, _rows(out))
    return results


def test_problem_shapes_load_and_label(built: dict, tmp_path: Path) -> None:
    problems = {p.task_id: p for p in load_apps(str(_write(tmp_path / "problems.jsonl")))}
    assert problems["APPS/problems/0010"].metadata["inputs"][0] == "3\n1 5 2"
    assert problems["APPS/problems/0010"].metadata["outputs"][0] == "5\n8"
    out, rows = built["keep"]
    stats = json.loads((out / "stats.json").read_text())["tests_per_task"]
    assert stats["APPS/problems/0010"]["reference_passes_original"]
    assert stats["APPS/problems/0011"]["reference_passes_original"]  # 0.333... within 1e-6
    assert stats["APPS/problems/0012"]["reference_passes_original"]  # via the 2nd solution
    assert not stats["APPS/problems/0013"]["reference_passes_original"]
    # the 2nd solution is the reference the rows show; the wrong 1st one fails as a sample
    assert rows["APPS/problems/0012::samples::1"]["reference"] == FIRST_FAILS["solutions"][1]
    assert rows["APPS/problems/0012::samples::0"]["base_passed"] is False
    assert rows["APPS/problems/0012::samples::1"]["passed"] is True
    assert rows["APPS/problems/0010::samples::1"]["pass_ratio"] < 1  # prints the max only
    assert rows["APPS/problems/0011::samples::0"]["base_passed"] is True  # 10 digits agree


def test_reference_samples_keep_flag_exclude(built: dict) -> None:
    keep, flag, exclude = (built[m][1] for m in ("keep", "flag", "exclude"))
    assert len(keep) == 5 and "is_reference" not in next(iter(keep.values()))
    copies = {i for i, r in flag.items() if r["is_reference"]}
    # the reformatted copy of 0010's reference, and both listed solutions of 0012 (the failing
    # first one is listed in solutions too)
    assert copies == {
        "APPS/problems/0010::samples::0",
        "APPS/problems/0012::samples::0",
        "APPS/problems/0012::samples::1",
    }
    assert set(exclude) == set(keep) - copies  # ids of the others do not move
    card = (built["exclude"][0] / "README.md").read_text()
    assert "reference copies excluded" in card
