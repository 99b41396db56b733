"""How a model's continuation of a HumanEval-X prompt becomes a program
(``program_from_continuation``): cut at the language's stop tokens, closing braces added."""

from __future__ import annotations

import pytest

from data_builders.problems.humaneval_x import problem_from_record, program_from_continuation


def _problem(task_id: str, prompt: str):
    record = {"task_id": task_id, "prompt": prompt, "canonical_solution": "", "test": ""}
    return problem_from_record(record, "fixture")


@pytest.mark.parametrize(
    ("task_id", "prompt", "text", "program"),
    [
        # C++/Rust stop at "\n}" (MultiPL-E's tests close the function; HumanEval-X's do not)
        ("CPP/0", "int f(int x){\n", "    return x;\n}\nint main(){}\n",
         "int f(int x){\n    return x;\n}\n"),
        ("Rust/0", "fn f(x: i32) -> i32 {\n", "    x\n}\n\nfn main() {}\n",
         "fn f(x: i32) -> i32 {\n    x\n}\n"),
        # Java stops at the method's end: method and class closed
        ("Java/0", "class Solution {\n    public int f(int x) {\n",
         "        return x;\n    }\n\n    public static void main(String[] a) {}\n}\n",
         "class Solution {\n    public int f(int x) {\n        return x;\n}\n}\n"),
        # JS/Go stops fall after the function: nothing to add; braces in strings do not count
        ("JavaScript/0", "const f = (s) => {\n", "  return s + '{';\n}\nfunction g() {}\n",
         "const f = (s) => {\n  return s + '{';\n}"),
        ("Go/0", "func F(s string) string {\n", "    return s + \"}\" // }\n}\n\nfunc main() {}\n",
         "func F(s string) string {\n    return s + \"}\" // }\n}\n"),
        # a continuation that never closes its own block is closed too
        ("CPP/1", "int f(int x){\n", "    if (x) {\n        return 1;",
         "int f(int x){\n    if (x) {\n        return 1;\n}\n}\n"),
    ],
)  # fmt: skip
def test_continuations_are_cut_and_closed(task_id, prompt, text, program):
    assert program_from_continuation(_problem(task_id, prompt), text) == program


def test_a_continuation_that_closes_too_much_is_kept_as_written():
    problem = _problem("CPP/0", "int f(int x){\n")
    assert program_from_continuation(problem, "    return x;}}") == "int f(int x){\n    return x;}}"


def test_the_sampling_settings_choose_the_continuation_not_the_problem():
    from data_builders.candidates.generate import SamplingSettings, to_program

    problem = _problem("CPP/0", "int f(int x){\n")
    text = "    return x;\n}\nint main(){}\n"
    cpp = SamplingSettings(prompt="complete", stop=("\n}",), language="cpp")
    assert to_program(problem, text, False, cpp) == "int f(int x){\n    return x;\n}\n"
    with pytest.raises(ValueError, match="not a java problem"):
        to_program(problem, text, False, SamplingSettings(prompt="complete", language="java"))


RUST_RECORD = {
    "task_id": "Rust/0",
    "prompt": "\n/*\n Add two numbers.\n*/\n",
    "declaration": "\nuse std::cmp::max;\nuse rand::Rng;\n\nfn add(a: i32, b: i32) -> i32{\n\n",
    "canonical_solution": "    a + b\n}\n",
    "test": "",
}


def test_a_rust_model_continues_the_signature_and_its_function_is_closed():
    """HumanEval-X's Rust prompt is the doc comment alone; the signature is the declaration's
    (program_and_test puts it first). The model must see it, and its brace must be closed."""
    from data_builders.problems.humaneval_x import continuation_prompt, program_and_test

    problem = problem_from_record(RUST_RECORD, "fixture")
    seen = continuation_prompt(problem)
    assert seen.endswith("fn add(a: i32, b: i32) -> i32{\n\n" + RUST_RECORD["prompt"])
    assert "use rand::Rng;" not in seen  # the crates that are not installed are dropped
    program = program_from_continuation(problem, "    a + b\n}\n\nfn main() {}\n")
    assert program == RUST_RECORD["prompt"] + "    a + b\n}\n"  # cut at "\n}", closed again
    source, _ = program_and_test(problem, program[len(problem.prompt) :])
    assert source.endswith(seen + "    a + b\n}\n")
    assert continuation_prompt(_problem("CPP/0", "int f(int x){\n")) == "int f(int x){\n"
