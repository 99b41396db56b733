"""The plain (MultiPL-E-style) harness and the generated test programs of the benchmarks."""

from __future__ import annotations

import importlib.util
import random
import shutil
import sys
from pathlib import Path

import pytest

from data_builders.problems.multipl_e import problem_from_row

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


harness = _load("label_vs_plain_harness")
maker = _load("make_multilingual_programs")


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
    assert harness._java_main_class(humaneval_x) == ("Main", "Main")
    assert harness._java_main_class(multipl_e) == ("Problem", "Problem")


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
    ],
)
def test_plain_verdicts(language, program, stage):
    missing = [t for t in harness.TOOLS[language] if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{language} toolchain absent: {', '.join(missing)}")
    verdict = harness.run_plain(language, program, timeout=2.0 if stage == "timeout" else 60.0)
    assert verdict.stage == stage and verdict.passed == (stage == "ok")
