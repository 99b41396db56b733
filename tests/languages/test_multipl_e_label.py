"""``label --problems multipl-e`` on MultiPL-E-shaped rows, one per language.

Each row is written the way MultiPL-E's humaneval-<lang> rows are (prompt ending at the
function header, tests that close it where the stop token cut it, the language's own
assertions). The correct completion carries text after its stop token that would not
compile: it must be cut. The wrong completion returns ``x`` for ``add(x, y)``, so exactly
one of the three assertions holds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.execution.compiled.languages import get_language

ROWS = {
    "cpp": {
        "prompt": "#include<assert.h>\n#include<bits/stdc++.h>\n// Add two numbers x and y\n"
        "long add(long x, long y) {\n",
        "stop_tokens": ["\n}"],
        "tests": "}\nint main() {\n    auto candidate = add;\n    assert(candidate((0), (1)) == (1));\n"
        "    assert(candidate((1), (0)) == (1));\n    assert(candidate((2), (3)) == (5));\n}\n",
        "correct": "    return x + y;\n}\n\nint junk( {",
        "wrong": "    return x;\n}\n",
    },
    "java": {
        "prompt": "import java.util.*;\nimport java.lang.reflect.*;\nimport org.javatuples.*;\n"
        "import java.security.*;\nimport java.math.*;\nimport java.io.*;\nimport java.util.stream.*;\n"
        "class Problem {\n    // Add two numbers x and y\n    public static long add(long x, long y) {\n",
        "stop_tokens": ["\n    }\n"],
        "tests": "    }\n    public static void main(String[] args) {\n    assert(add((0l), (1l)) == (1l));\n"
        "    assert(add((1l), (0l)) == (1l));\n    assert(add((2l), (3l)) == (5l));\n    }\n\n}\n",
        "correct": "        return x + y;\n    }\n    junk( {",
        "wrong": "        return x;\n    }\n",
    },
    "js": {
        "prompt": "//Add two numbers x and y\nfunction add(x, y){\n",
        "stop_tokens": ["\nfunction ", "\n/*", "\n//", "\nconsole.log"],
        "tests": "\nconst assert = require('node:assert');\n\n\nfunction test() {\n  let candidate = add;\n"
        "  assert.deepEqual(candidate(0, 1),1);\n  assert.deepEqual(candidate(1, 0),1);\n"
        "  assert.deepEqual(candidate(2, 3),5);\n}\n\ntest();",
        "correct": "  return x + y;\n}\n\nfunction junk( {",
        "wrong": "  return x;\n}\n",
    },
    "rs": {
        "prompt": "/// Add two numbers x and y\nfn add(x: isize, y: isize) -> isize {\n",
        "stop_tokens": ["\n}"],
        "tests": "}\n\nfn main() {\n    let candidate = add;\n    assert_eq!(candidate(0, 1), 1);\n"
        "    assert_eq!(candidate(1, 0), 1);\n    assert_eq!(candidate(2, 3), 5);\n}\n",
        "correct": "    x + y\n}\n\nfn junk( {",
        "wrong": "    x\n}\n",
    },
    "go_test.go": {
        "prompt": 'package add_test\n\nimport (\n    "testing"\n    "fmt"\n)\n\n// Add two numbers x and y\n'
        "func add(x int, y int) int {\n",
        "stop_tokens": ["\nfunc", "struct", "\n// "],
        "tests": "func TestAdd(t *testing.T) {\n  candidate := add\n\ttype test struct {\n\t\tactual   interface{}\n"
        "\t\texpected interface{}\n\t}\n   tests := []test{\n     { actual: candidate(0, 1), expected: 1 },\n"
        "     { actual: candidate(1, 0), expected: 1 },\n     { actual: candidate(2, 3), expected: 5 },\n   }\n\n"
        '\tfor i, tc := range tests {\n\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n'
        '\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n'
        "\t\t\t\tt.Errorf(\"expected '%s', got '%s'\", tc.expected, tc.actual)\n\t\t\t}\n\t\t})\n\t}\n}\n",
        "correct": "    return x + y\n}\n\nfunc junk( {",
        "wrong": "    return x\n}\n",
    },
}
ALIAS = {"rs": "rust", "go_test.go": "go"}


@pytest.mark.parametrize("language", list(ROWS))
def test_multipl_e_rows_label_per_assertion(language: str, tmp_path: Path) -> None:
    missing = get_language(ALIAS.get(language, language)).missing_toolchain()
    if missing:
        pytest.skip(missing)
    spec = ROWS[language]
    name = f"HumanEval_53_add_{language.split('_')[0]}"
    row = {
        "name": name,
        "language": language,
        **{k: spec[k] for k in ("prompt", "tests", "stop_tokens")},
    }
    problems = tmp_path / "rows.jsonl"
    problems.write_text(json.dumps(row) + "\n")
    samples = tmp_path / "samples.jsonl"
    samples.write_text(
        "".join(
            json.dumps({"task_id": name, "completion": spec[k]}) + "\n"
            for k in ("correct", "wrong")
        )
    )
    out = tmp_path / "out.jsonl"
    argv = ["label", "--problems", "multipl-e", "--problems-file", str(problems)]
    assert main([*argv, "--samples", str(samples), "--out", str(out), "--workers", "2"]) == 0
    correct, wrong = [json.loads(line) for line in out.read_text().splitlines()]
    assert correct["passed"] and correct["n_tests"] == 3, correct
    assert wrong["pass_ratio"] == pytest.approx(1 / 3) and wrong["executable"], wrong
    assert wrong["status_counts"]["wrong_answer"] == 2


def test_multipl_e_without_file_or_language_is_one_line(tmp_path: Path, capsys) -> None:
    samples = tmp_path / "s.jsonl"
    samples.write_text(json.dumps({"task_id": "x", "completion": ""}) + "\n")
    assert (
        main(
            [
                "label",
                "--problems",
                "multipl-e",
                "--samples",
                str(samples),
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--problems-file" in err and "--language" in err
