"""The APPS subset's fetch rules: MapCoder problems as standard-input problems, reference
solutions chosen from passing generated programs, CodeRL's passing human solutions, samples
distinct per problem; and the check's own comparison rules (one tiny real sandbox run)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_builders.fetch import apps_check
from data_builders.fetch.apps import choose_solutions, get_prompt, mapcoder_problem
from data_builders.fetch.apps_check import Checker, Tests, call_matches, normalise_stdout
from data_builders.fetch.runner import Fetcher
from tests.datasets.fetch_fixtures import RawTree

MC = "acme/mapcoder"


def item(problem_id: int, starter: str = "", tests: list | None = None) -> dict:
    return {
        "id": problem_id,
        "description": f"Problem {problem_id}.",
        "difficulty": "introductory",
        "sample_io": [{"input": "1", "output": [2]}],
        "test_list": tests or [{"input": "1", "output": [2]}, {"input": "2", "output": ["4"]}],
        "starter_code": starter,
    }


def test_mapcoder_problem_is_a_stdin_problem() -> None:
    row, tests = mapcoder_problem(item(7, starter="\ndef double(x):\n\t"), "MapCoder selected150")
    assert json.loads(row["input_output"]) == {"inputs": ["1", "2"], "outputs": ["2", "4"]}
    assert tests == Tests(("1", "2"), ("2", "4"))
    assert row["call_based_origin_fn"] == "double"
    assert row["question"] == get_prompt(item(7)) and "Sample Input Format:\n1\n" in row["question"]
    plain, _ = mapcoder_problem(item(8), "MapCoder selected150")
    assert plain["question"] == "Problem 8." and "call_based_origin_fn" not in plain


def test_choose_solutions_one_per_generator_first() -> None:
    passing = [
        {"generator": "b", "solution": "b1"},
        {"generator": "b", "solution": "b2"},
        {"generator": "c", "solution": "c1"},
        {"generator": "a", "solution": "a1"},
    ]
    chosen = choose_solutions(passing, ["a", "b", "c", "d"])
    assert [r["solution"] for r in chosen] == ["a1", "b1", "c1"]
    chosen = choose_solutions(passing[:2], ["a", "b"])
    assert [r["solution"] for r in chosen] == ["b1", "b2"]  # then the rest, in order
    assert choose_solutions([], ["a"]) == []


def test_stdout_and_call_comparison() -> None:
    assert normalise_stdout("1 2  \n3\n\n\n") == normalise_stdout("1 2\n3")
    assert normalise_stdout(" 1") != normalise_stdout("1")
    assert call_matches(3, [3]) and call_matches([3], [3]) and not call_matches(4, [3])
    assert not call_matches([3, 4], 3)


def apps_tree(tmp_path: Path) -> tuple[RawTree, dict]:
    tree = RawTree(tmp_path)
    selected = tree.jsonl(MC, "data/APPS/selected150.jsonl", [item(5), item(6), item(5)])
    reference = tree.add(
        MC, "src/datasets/APPSDataset.py", "# Important: You must follow the input output format.\n"
    )
    good, bad = "print(2 * int(input()))\n", "print(0)\n"
    run_a = tree.jsonl(
        MC, "A.jsonl", [{"id": 5, "source_codes": [bad, good]}, {"id": 6, "source_codes": [bad]}]
    )
    run_b = tree.jsonl(
        MC, "B.jsonl", [{"id": 5, "source_codes": ["print(2*int(input()))\n", "print(0)  \n\n"]}]
    )
    base = "data/APPS/train/0009/"
    tree.add("acme/coderl", base + "question.txt", "Add one.")
    tree.add(
        "acme/coderl",
        base + "input_output.json",
        '{"inputs": [[1]], "outputs": [2], "fn_name": "inc"}',
    )
    tree.add("acme/coderl", base + "metadata.json", '{"difficulty": "interview", "url": "u"}')
    tree.add(
        "acme/coderl",
        base + "solutions.json",
        json.dumps(["def inc(x): return x + 1", "def inc(x) return"]),
    )
    qwen = tree.jsonl(
        "acme/qwen",
        "Q.jsonl",
        [
            {
                "id": 5,
                "source_codes": ["", good, "print(2 *  int(input()))", "print(int(input()) * 2)"],
            }
        ],
    )
    targets = {
        "apps": {
            "kind": "apps",
            "outputs": ["apps_subset/problems.jsonl", "apps_subset/samples.jsonl"],
            "problems": selected,
            "reference": reference,
            "origin": "MapCoder selected150",
            "teamcoder_ids": [5],
            "teamcoder_origin": " + TeamCoder",
            "coderl": {"repo": "acme/coderl", "dir": "data/APPS/train", "ids": ["0009"]},
            "sources": [{**run_a, "generator": "x/a"}, {**run_b, "generator": "x/b"}],
        },
        "apps-more": {
            "kind": "apps_more",
            "output": "apps_subset/samples_more.jsonl",
            "after": "apps",
            "sources": [{**qwen, "generator": "q/m"}],
        },
    }
    return tree, targets


def test_apps_targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Verdicts from a stand-in checker (a program passes when its output doubles the input)."""

    def fake_check(self: Checker, pairs: list, label: str = "") -> list[bool]:
        return ["2" in p and "int(" in p or "x + 1" in p for p, _ in pairs]

    monkeypatch.setattr(apps_check.Checker, "check", fake_check)
    tree, targets = apps_tree(tmp_path)
    manifest, config = tree.write(targets)
    fetcher = Fetcher(
        out=tmp_path / "out", raw=tree.raw, manifest_path=manifest, targets_path=config
    )
    assert "2 problems (1 MapCoder), 3 samples" in fetcher.run("apps")
    problems = [
        json.loads(x)
        for x in (tmp_path / "out/apps_subset/problems.jsonl").read_text().splitlines()
    ]
    assert [p["problem_id"] for p in problems] == [5, 9]  # 6 had no passing program
    assert problems[0]["origin"] == "MapCoder selected150 + TeamCoder"
    assert json.loads(problems[0]["solutions"]) == [
        "print(2 * int(input()))\n",
        "print(2*int(input()))\n",
    ]
    assert problems[0]["solutions_source"] == "generated: x/a, x/b"
    assert json.loads(problems[1]["solutions"]) == ["def inc(x): return x + 1"]
    assert problems[1]["solutions_source"] == "human" and problems[1]["url"] == "u"
    samples = [
        json.loads(x) for x in (tmp_path / "out/apps_subset/samples.jsonl").read_text().splitlines()
    ]
    # B's "print(0)  " is A's "print(0)" after whitespace normalisation: not a new sample
    assert [
        (
            s["task_id"],
            s["sample_id"],
            s["generator"],
            s["passes_original_tests"],
            s["used_as_solution"],
        )
        for s in samples
    ] == [
        ("APPS/problems/0005", 0, "x/a", False, False),
        ("APPS/problems/0005", 1, "x/a", True, True),
        ("APPS/problems/0005", 2, "x/b", True, True),
    ]
    fetcher.run("apps-more")
    more = [
        json.loads(x)
        for x in (tmp_path / "out/apps_subset/samples_more.jsonl").read_text().splitlines()
    ]
    # empty and already-present programs (against samples.jsonl too) are dropped
    assert [(s["sample_id"], s["completion"], s["passes_original_tests"]) for s in more] == [
        (0, "print(int(input()) * 2)", True)
    ]


def test_checker_runs_programs_in_the_sandbox(tmp_path: Path) -> None:
    checker = Checker(tmp_path / "checks.jsonl", workers=1)
    stdin = Tests(("1 2\n", "3 4"), ("3\n", "7  \n\n"))
    call = Tests(([[1, 2], 1],), ([3],), "f")  # List unimported: the check's typing prelude
    pairs = [
        ("a, b = map(int, input().split())\nprint(a + b)", stdin),
        ("print(3)", stdin),
        (
            "class Solution:\n    def f(self, xs: List[int], k):\n        return sum(xs) + k - 1\n",
            call,
        ),
    ]
    assert checker.check(pairs) == [True, False, True]
    assert len((tmp_path / "checks.jsonl").read_text().splitlines()) == 3
    assert Checker(tmp_path / "checks.jsonl").check(pairs) == [True, False, True]  # cached
