"""Test programs for checking harnesses against each other: seeded one-edit mutants of a
solution, and MultiPL-E-style rows built from HumanEval-X problems.

A mutant changes one comparison, arithmetic operator, boolean or constant at a seeded
position, so some mutants pass and some fail or do not compile. A row follows MultiPL-E's
conventions (the completion is cut at MultiPL-E's stop tokens for the language and the tests
close the function, as MultiPL-E's own C++/Java tests do; JavaScript's ``console.assert``
becomes ``node:assert``'s ``assert.ok`` so a failed assertion fails). Nothing here comes
from MultiPL-E's data (never train on MultiPL-E). ``benchmarks/make_multilingual_programs.py``
writes both from a HumanEval-X file.
"""

from __future__ import annotations

import random
import re

from data_builders.languages import COMPILED, language_info

# MultiPL-E's stop tokens for these languages (its dataset rows carry them per problem; the
# language table keeps them, as `build humaneval-x --generate` cuts at them too).
STOP_TOKENS = {name: list(language_info(name).stop_tokens) for name in COMPILED}
# MultiPL-E's language field for these (its Go rows are run as *_test.go files).
MULTIPL_E_LANGUAGE = {name: str(language_info(name).multipl_e) for name in COMPILED}
# What the tests must start with once the completion is cut before the function's end.
TEST_OPENERS = {"cpp": "}\n", "java": "    }\n", "js": "", "go": "", "rust": "}\n"}
QUOTES_GO = "\"'`"
OPERATORS = [
    (r"(?<![<>=!])==(?!=)", "!="),
    (r"!=", "=="),
    (r"<=", "<"),
    (r">=", ">"),
    (r"(?<![<>=-])>(?![>=])", ">="),
    (r"(?<![<])<(?![<=])", "<="),
    (r"(?<![+])\+(?![+=])", "-"),
    (r"\btrue\b", "false"),
    (r"\bfalse\b", "true"),
    (r"\b0\b", "1"),
    (r"\b1\b", "2"),
    (r"&&", "||"),
]


def mutants(code: str, count: int, rng: random.Random) -> list[str]:
    """Up to ``count`` distinct one-edit mutants of ``code`` (operator and site chosen by ``rng``)."""
    if count <= 0:
        return []
    sites = [
        (m.start(), m.end(), new) for pattern, new in OPERATORS for m in re.finditer(pattern, code)
    ]
    rng.shuffle(sites)
    out: list[str] = []
    for start, end, new in sites:
        mutant = code[:start] + new + code[end:]
        if mutant != code and mutant not in out:
            out.append(mutant)
        if len(out) == count:
            break
    return out


def _go_row(problem, name: str) -> tuple[str, str] | None:
    """MultiPL-E's Go shape: ``package <name>_test`` importing testing and fmt (plus the packages
    HumanEval-X's prompt imports, so its canonical solution compiles), and a test that checks a
    table ``{actual, expected}`` by ``fmt.Sprintf("%v")``. None when the HumanEval-X test holds
    anything but testify ``Equal``/``True``/``False`` calls (a loop, a helper)."""
    from data_builders.execution import find_calls, split_top_level

    imports = problem.metadata.get("import", "")
    body = problem.prompt.replace(imports, "") if imports else problem.prompt
    packages = ["testing", "fmt"]
    packages += [p for p in re.findall(r'"([^"]+)"', imports) if p not in packages]
    test = problem.test or ""
    open_brace = test.find("{", test.find("func Test"))
    inner = test[open_brace + 1 : test.rstrip().rfind("}")]
    inner = re.sub(r"assert\s*:=\s*assert\.New\(t\)", "", inner)
    rows, rest, last = [], "", 0
    for start, paren, close in find_calls(inner, r"assert\.\w+", QUOTES_GO):
        rest += inner[last:start]
        last = close + 1
        check = inner[start + len("assert.") : paren]
        args = split_top_level(inner[paren + 1 : close], quotes=QUOTES_GO)
        if check == "Equal" and len(args) == 2:
            rows.append((args[1], args[0]))
        elif check in ("True", "False") and len(args) == 1:
            rows.append((args[0], check.lower()))
        else:
            return None
    if not rows or (rest + inner[last:]).strip():
        return None
    entry = re.search(r"func\s+(\w+)", problem.metadata.get("declaration", "") or body)
    prompt = (
        f"package {name}_test\n\nimport (\n"
        + "".join(f'    "{p}"\n' for p in packages)
        + ")\n\n"
        + body.lstrip("\n")
    )
    table = "".join(f"     {{ actual: {a}, expected: {e} }},\n" for a, e in rows)
    tests = (
        f"func Test{entry.group(1) if entry else 'Candidate'}(t *testing.T) {{\n"
        "\ttype test struct {\n\t\tactual   interface{}\n\t\texpected interface{}\n\t}\n"
        f"   tests := []test{{\n{table}   }}\n\n"
        "\tfor i, tc := range tests {\n"
        '\t\tt.Run(fmt.Sprintf("test num % d", i), func(t *testing.T) {\n'
        '\t\t\tif fmt.Sprintf("%v", tc.actual) != fmt.Sprintf("%v", tc.expected) {\n'
        "\t\t\t\tt.Errorf(\"expected '%s', got '%s'\", tc.expected, tc.actual)\n"
        "\t\t\t}\n\t\t})\n\t}\n}\n"
    )
    return prompt, tests


def _rust_row(problem) -> tuple[str, str] | None:
    """MultiPL-E's Rust shape: the assertions in ``fn main`` (a plain ``rustc`` binary), the
    test opening by closing the function. None when the test has no ``#[test]`` function."""
    from data_builders.execution import code_mask, matching
    from data_builders.problems.humaneval_x import program_and_test

    source, test = program_and_test(problem, "")
    prompt = source.replace("\nfn main(){ \n } \n", "", 1)
    found = re.search(r"#\[test\]\s*fn\s+\w+\s*\(\)\s*\{", test)
    if found is None or "/*" in test[: found.start()]:
        return None
    close = matching(test, found.end() - 1, code_mask(test))
    body = test[found.end() : close]
    return prompt, "fn main() {" + body + "}\n"


def _java_row(problem) -> tuple[str, str] | None:
    """MultiPL-E's Java shape: the class is ``Problem``, whose ``main`` holds one
    ``assert(...)`` per element of HumanEval-X's ``correct`` list (MultiPL-E runs ``java -ea
    Problem``); the test opens by closing the method. HumanEval-X's methods are not static, so
    ``main`` makes an instance ``s`` as HumanEval-X's test does. None without a ``correct`` list."""
    from data_builders.execution import code_mask, matching, split_top_level
    from data_builders.problems.humaneval_x import program_and_test

    source, test = program_and_test(problem, "")
    found = re.search(r"List<Boolean>\s+correct\s*=\s*Arrays\.asList\(", test)
    if found is None or "class Solution" not in source:
        return None
    close = matching(test, found.end() - 1, code_mask(test))
    checks = split_top_level(test[found.end() : close])
    prompt = source.replace("class Solution", "class Problem", 1)
    tests = (
        "    public static void main(String[] args) {\n        Problem s = new Problem();\n"
        + "".join(f"        assert({c});\n" for c in checks if c)
        + "    }\n\n}\n"
    )
    return prompt, tests


def multipl_e_row(problem, language: str, name: str) -> dict | None:
    """A MultiPL-E row for a HumanEval-X problem (prompt as the program's head, tests closing
    it); None when the task's test has no MultiPL-E form here (Go/Rust: see their helpers)."""
    from data_builders.problems.humaneval_x import program_and_test

    if language in ("go", "rust", "java"):
        made = {"go": lambda: _go_row(problem, name), "rust": lambda: _rust_row(problem)}.get(
            language, lambda: _java_row(problem)
        )()
        if made is None:
            return None
        prompt, test = made
        return {
            "name": name,
            "language": MULTIPL_E_LANGUAGE[language],
            "prompt": prompt,
            "tests": TEST_OPENERS[language] + test,
            "stop_tokens": STOP_TOKENS[language],
        }
    prompt, test = program_and_test(problem, "")
    if language == "js":
        test = "const assert = require('node:assert');\n" + test.replace(
            "console.assert(", "assert.ok("
        )
    return {
        "name": name,
        "language": MULTIPL_E_LANGUAGE[language],
        "prompt": prompt,
        "tests": TEST_OPENERS[language] + test,
        "stop_tokens": STOP_TOKENS[language],
    }
