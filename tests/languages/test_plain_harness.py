"""The plain (MultiPL-E-style) harness and the generated test programs of the benchmarks."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from data_builders.execution.compiled import plain_harness as harness
from data_builders.problems import multipl_e_rows as maker
from data_builders.problems.multipl_e import problem_from_row
from data_builders.problems.plain_programs import build_programs


def test_mutants_are_distinct_one_edit_changes_and_seeded():
    code = "    if (a < b && x == 0) return true;\n"
    first = maker.mutants(code, 3, random.Random(1))
    assert first == maker.mutants(code, 3, random.Random(1))
    assert len(first) == 3 and len(set(first)) == 3 and code not in first
    assert all(len(m.split()) == len(code.split()) for m in first)  # one token replaced
    assert maker.mutants(code, 0, random.Random(1)) == []
    assert maker.mutants("return;", 2, random.Random(1)) == []


def test_multipl_e_rows_close_the_function_in_the_tests():
    pytest.importorskip("data_builders.problems.humaneval_x")
    from data_builders.problems.humaneval_x import problem_from_record

    record = {
        "task_id": "CPP/53",
        "prompt": "#include<stdio.h>\nusing namespace std;\nint add(int x,int y){\n",
        "declaration": "int add(int x,int y){\n",
        "canonical_solution": "    return x+y;\n}\n",
        "test": "#undef NDEBUG\n#include<assert.h>\nint main(){\n    assert (add(0, 1) == 1);\n}\n",
        "example_test": "",
    }
    row = maker.multipl_e_row(problem_from_record(record, "fixture"), "cpp", "HumanEval_53_cpp")
    assert row["stop_tokens"] == ["\n}"] and row["tests"].startswith("}\n#undef NDEBUG")
    program = problem_from_row(row, "row").program(record["canonical_solution"])
    # the body is cut before its closing "\n}", which the tests' leading "}\n" restores
    assert program.endswith(
        "int add(int x,int y){\n    return x+y;" + "\n" + "}\n" + record["test"]
    )


def test_java_file_and_main_class_are_found():
    humaneval_x = (
        "class Solution {\n}\npublic class Main {\n    public static void main(String[] a) {}\n}\n"
    )
    multipl_e = (
        "import java.util.*;\nclass Problem {\n    public static void main(String[] a) {}\n}\n"
    )
    assert harness.java_main_class(humaneval_x) == ("Main", "Main")
    assert harness.java_main_class(multipl_e) == ("Problem", "Problem")


GO_TEST = (
    'package x_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\nvar _ = fmt.Sprint\n\n'
    "func TestX(t *testing.T) {{\n    {body}\n}}\n"
)


@pytest.mark.parametrize(
    ("language", "program", "stage"),
    [
        ("js", "const a = 1;\n", "ok"),
        ("js", "throw new Error('no');\n", "run"),
        ("js", harness.JS_ASSERT_THROWS + "console.assert(1 === 2);\n", "run"),
        ("js", "while (true) {}\n", "timeout"),
        ("cpp", "int main() { return 0; }\n", "ok"),
        ("cpp", "#include <cassert>\nint main() { assert(1 == 2); }\n", "run"),
        ("cpp", "int main() { return x; }\n", "compile"),
        pytest.param(
            "go", GO_TEST.format(body='if 1 != 1 { t.Errorf("no") }'), "ok", marks=pytest.mark.slow
        ),
        pytest.param(
            "go", GO_TEST.format(body='if 1 != 2 { t.Errorf("no") }'), "run", marks=pytest.mark.slow
        ),
        ("rust", "fn main() { assert_eq!(1 + 1, 2); }\n", "ok"),
        ("rust", "fn main() { assert_eq!(1 + 1, 3); }\n", "run"),
        # rustc's default edition (2015), as MultiPL-E runs it: TryFrom is not in the prelude
        ("rust", "fn main() { assert_eq!(i32::try_from(2i64).unwrap(), 2); }\n", "compile"),
    ],
)
def test_plain_verdicts(language, program, stage):
    missing = [t for t in harness.TOOLS[language] if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{language} toolchain absent: {', '.join(missing)}")
    verdict = harness.run_plain(language, program, timeout=2.0 if stage == "timeout" else 60.0)
    assert verdict.stage == stage and verdict.passed == (stage == "ok")


def test_a_timed_out_step_is_killed_with_what_it_started():
    """The whole process group goes at the time limit, not only the command itself (as
    ``subprocess.run`` would): ``go test``'s test binary, a program's own children."""
    import os
    import time

    if shutil.which("node") is None or shutil.which("sleep") is None:
        pytest.skip("node or sleep absent")
    marker = f"{1000 + os.getpid() % 1000}.25"  # this test's own sleep, told from any other
    program = (
        "const { spawn } = require('child_process');\n"
        f"spawn('sleep', ['{marker}'], {{ stdio: 'ignore' }});\n"
        "while (true) {}\n"
    )

    def sleeping() -> list[str]:
        found = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if argv[:2] == [b"sleep", marker.encode()]:
                found.append(pid)
        return found

    assert harness.run_plain("js", program, timeout=2.0).stage == "timeout"
    deadline = time.monotonic() + 5
    while sleeping() and time.monotonic() < deadline:
        time.sleep(0.05)  # SIGKILL is delivered at once; reaping by init may lag
    assert sleeping() == []


def _humaneval_x(task_id: str, prompt: str, solution: str, test: str, **extra: str):
    from data_builders.problems.humaneval_x import problem_from_record

    record = {
        "task_id": task_id,
        "prompt": prompt,
        "declaration": extra.get("declaration", prompt),
        "canonical_solution": solution,
        "test": test,
        "example_test": "",
        **{k: v for k, v in extra.items() if k != "declaration"},
    }
    return problem_from_record(record, "fixture")


def test_go_rows_are_multipl_e_tables_and_other_tests_are_skipped():
    pytest.importorskip("data_builders.problems.humaneval_x")
    test = (
        "func TestAdd(t *testing.T) {\n    assert := assert.New(t)\n"
        "    assert.Equal(3, Add(1, 2))\n    assert.True(Add(0, 0) == 0)\n}\n"
    )
    problem = _humaneval_x("Go/53", "func Add(x int, y int) int {\n", "    return x + y\n}\n", test)
    row = maker.multipl_e_row(problem, "go", "HumanEval_53_go")
    assert row["language"] == "go_test.go" and row["stop_tokens"] == maker.STOP_TOKENS["go"]
    assert row["prompt"].startswith('package HumanEval_53_go_test\n\nimport (\n    "testing"')
    assert "{ actual: Add(1, 2), expected: 3 }" in row["tests"]
    assert "{ actual: Add(0, 0) == 0, expected: true }" in row["tests"]
    looped = test.replace("    assert.Equal(3, Add(1, 2))", "    for i := 0; i < 2; i++ {}")
    problem = _humaneval_x("Go/53", "func Add(x int, y int) int {\n", "", looped)
    assert maker.multipl_e_row(problem, "go", "HumanEval_53_go") is None


def test_java_rows_assert_each_element_of_correct_in_class_problem():
    pytest.importorskip("data_builders.problems.humaneval_x")
    prompt = "import java.util.*;\nclass Solution {\n    public int add(int x, int y) {\n"
    test = (
        "public class Main {\n    public static void main(String[] args) {\n"
        "        Solution s = new Solution();\n        List<Boolean> correct = Arrays.asList(\n"
        "                s.add(1, 2) == 3,\n                s.add(0, 0) == 0\n        );\n"
        "        if (correct.contains(false)) {\n            throw new AssertionError();\n"
        "        }\n    }\n}\n"
    )
    problem = _humaneval_x("Java/53", prompt, "        return x + y;\n    }\n}\n", test)
    row = maker.multipl_e_row(problem, "java", "HumanEval_53_java")
    assert "class Problem {" in row["prompt"] and "class Solution" not in row["prompt"]
    assert row["tests"].startswith("    }\n    public static void main(String[] args) {\n")
    assert "        assert(s.add(1, 2) == 3);\n        assert(s.add(0, 0) == 0);\n" in row["tests"]


def test_humaneval_x_go_programs_run_their_tests_in_the_plain_harness(tmp_path):
    import json

    from data_builders.execution.compiled.languages.go import GOPATH

    if shutil.which("go") is None or not Path(GOPATH, "src/github.com/stretchr/testify").is_dir():
        pytest.skip("go or Debian's golang-github-stretchr-testify-dev absent")
    task = {
        "task_id": "Go/0",
        "prompt": 'import (\n    "math"\n)\n\n// Absolute difference.\nfunc Dist(a, b float64) float64 {\n',
        "import": 'import (\n    "math"\n)\n',
        "declaration": "\nfunc Dist(a, b float64) float64 {\n",
        "canonical_solution": "    return math.Abs(a - b)\n}\n",
        "test": "func TestDist(t *testing.T) {\n    assert := assert.New(t)\n"
        "    assert.Equal(1.0, Dist(1, 2))\n    assert.Equal(2.0, Dist(3, 1))\n}\n",
        "test_setup": 'package main\n\nimport (\n    "testing"\n'
        '    "github.com/stretchr/testify/assert"\n)\n',
        "example_test": "",
    }
    problems = tmp_path / "humaneval_go.jsonl"
    problems.write_text(json.dumps(task) + "\n")
    samples = tmp_path / "samples.jsonl"
    completions = [task["canonical_solution"], "    return a - b\n}\n", "    return a -\n}\n"]
    samples.write_text("".join(json.dumps({"task_id": "Go/0", "completion": c}) + "\n"
                               for c in completions))  # fmt: skip
    programs = build_programs("humaneval-x", "go", problems, samples)
    # the test's package clause and imports lead the file (Go allows them nowhere else)
    assert all(p.lstrip().startswith("package main") for _, p in programs)
    stages = [harness.run_plain("go", p).stage for _, p in programs]
    assert stages == ["ok", "run", "compile"]
