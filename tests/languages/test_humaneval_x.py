"""HumanEval-X records -> programs, assembled as CodeGeeX's evaluator does (pure, no toolchain)."""

from __future__ import annotations

from data_builders.problems.humaneval_x import language_of, problem_from_record, program_and_test

GO_TASK = {
    "task_id": "Go/0",
    "prompt": 'import (\n    "math"\n)\n\n// Abs.\nfunc Abs(x float64) float64 {\n',
    "import": 'import (\n    "math"\n)\n',
    "declaration": "\nfunc Abs(x float64) float64 {\n",
    "canonical_solution": "    return math.Abs(x)\n}\n",
    "test": "func TestAbs(t *testing.T) {\n    assert := assert.New(t)\n    assert.Equal(1.0, Abs(-1))\n}\n",
    "test_setup": 'package main\n\nimport (\n    "testing"\n    "github.com/stretchr/testify/assert"\n)\n',
    "example_test": "",
}


def test_languages_from_task_ids() -> None:
    assert [language_of(t) for t in ("CPP/1", "Java/2", "JavaScript/3", "Go/4", "Rust/5", "X/1")] == [
        "cpp", "java", "js", "go", "rust", None,
    ]  # fmt: skip


def test_go_program_imports_only_what_the_completion_uses() -> None:
    problem = problem_from_record(GO_TASK, "here")
    source, test = program_and_test(problem, GO_TASK["canonical_solution"])
    assert source.startswith("\n// Abs.") and "import" not in source
    assert test.startswith("package main") and '"math"' in test and "TestAbs" in test
    _, test = program_and_test(problem, "    return x\n}\n")
    assert '"math"' not in test  # an unused import would not compile in Go


def test_cpp_program_gets_missing_helper_includes() -> None:
    record = {
        "task_id": "CPP/0",
        "prompt": "#include<vector>\nusing namespace std;\nint f(){\n",
        "canonical_solution": "return 1;}\n",
        "test": "int main(){ assert(f()==1); }",
    }
    source, _ = program_and_test(problem_from_record(record, "here"), "return 1;}\n")
    assert "#include<string>" in source and source.count("#include<vector>") == 1
    assert source.endswith("int f(){\nreturn 1;}\n")
