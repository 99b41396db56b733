"""MBPP sources: the original release format and HumanEval-shaped files, then a build."""

from __future__ import annotations

import json
from pathlib import Path

from data_builders.__main__ import main
from data_builders.problems.base import compiles, join_completion, reindent
from data_builders.problems.mbpp import load_mbpp_file


def test_original_mbpp_records_become_humaneval_shaped(mbpp_file: Path) -> None:
    problems = load_mbpp_file(mbpp_file)
    assert [p.task_id for p in problems] == ["Mbpp/11", "Mbpp/12"]
    first = problems[0]
    assert first.entry_point == "remove_Occ"
    assert first.nl.startswith("Write a python function to remove first")
    assert first.prompt.startswith("def remove_Occ(s,ch):") and '"""' in first.prompt
    assert "def check(candidate):" in first.test and 'remove_Occ("PHP","P") == "H"' in first.test
    compile(first.reference, "ref", "exec")


def test_humaneval_shaped_solutions_are_reindented(tmp_path: Path) -> None:
    record = {
        "task_id": "MbppEval/2",
        "prompt": "def inc(x):\n    '''\n    Add one.\n    '''\n",
        "entry_point": "inc ",
        "canonical_solution": "  y = x + 1\n  return y\n",
        "test": "def check(candidate):\n    assert inc(1) == 2\n",
    }
    path = tmp_path / "he.jsonl"
    path.write_text(json.dumps(record) + "\n")
    (problem,) = load_mbpp_file(path)
    assert problem.entry_point == "inc" and problem.nl == "Add one."
    assert problem.reference.endswith("    y = x + 1\n    return y\n")
    compile(problem.reference, "ref", "exec")


def test_build_mbpp_from_original_file(mbpp_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "mbpp"
    argv = ["build", "mbpp", "--source", str(mbpp_file), "--out", str(out), "--mutants", "4"]
    argv += ["--cache-dir", str(tmp_path / "c"), "--split-ratios", "1,0,1"]
    assert main(argv) == 0
    stats = json.loads((out / "stats.json").read_text())
    for task in stats["tests_per_task"].values():
        assert task["original"] == 3 and task["reference_passes_original"]
        assert task["extended"] >= 100
    assert stats["overall"]["samples"] == 8


def test_reindent_keeps_block_structure_per_top_level_block() -> None:
    """MBPP style mixes: a tab-indented body, then a 2-space helper after it."""
    code = (
        "\tres = 0 \n\tfor e in xs: \n\t\tif e: \n\t\t\tres += h(e)\n\n\treturn res \n"
        "def h(e):\n  if e > 1:\n    return 2 * e\n  return e\n"
    )
    assert reindent(code) == (
        "    res = 0 \n    for e in xs: \n        if e: \n            res += h(e)\n\n"
        "    return res \ndef h(e):\n    if e > 1:\n        return 2 * e\n    return e\n"
    )
    prompt = "def f(xs):\n    '''Sum.'''\n"
    assert not compiles(prompt + code)
    assert join_completion(prompt, code) == prompt + reindent(code)
    assert join_completion(prompt, "  return (\n") == prompt + "  return (\n"  # still broken
    assert join_completion(prompt, "    return 1\n") == prompt + "    return 1\n"  # as written
