"""Translated literals are valid code: each toolchain compiles and runs identity functions over
them, with assertions built by :func:`assertion` (a wrong expected value must fail the run).

Skips, with the reason, where a toolchain is not installed. Two compiles and runs per language
(Go: `go test` with Debian's testify on GOPATH, as HumanEval-X's Go tests need).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from data_builders.languages import language_info
from data_builders.test_translation.assertions import PRELUDES, assertion
from data_builders.test_translation.types import Signature, parse_signature

NASTY = 'q"\\\n\t\x01é😀'
CASES = {
    "cpp": [
        ("int", -2147483648),
        ("long long", -(2**63)),
        ("double", 1e-05),
        ("float", 0.1),
        ("string", NASTY),
        ("char", "'"),
        ("vector<vector<int>>", [[1, 2], []]),
        ("vector<float>", [0.5, 3]),
        ("vector<string>", ["a", ""]),
        ("map<char,int>", {"a": 1, "b": -2}),
        ("map<string,string>", {}),
        ("pair<int,string>", (1, "a")),
        ("tuple<int,bool,double>", (1, True, 0.5)),
    ],
    "java": [
        ("int", -2147483648),
        ("long", 2**40),
        ("double", 1e20),
        ("String", NASTY),
        ("char", "\n"),
        ("List<Integer>", []),
        ("List<Double>", [1, 2.5]),
        ("List<List<Integer>>", [[1], []]),
        ("List<String>", ["x", "é"]),
        ("Map<String, Integer>", {"a": 1, "b": 2}),
        ("Optional<Integer>", None),
        ("Optional<String>", "z"),
        ("Object", "s"),
        ("List<Object>", [1, "a", 2.5]),
    ],
    "js": [(None, v) for v in (-(2**53), 1e-05, NASTY, [1, [2, "x"]], {"a": 1, "b": [True, None]})],
    "go": [
        ("int", -(2**63)),
        ("float64", 1e-05),
        ("string", NASTY),
        ("rune", "é"),
        ("[]int", []),
        ("[][]int", [[1, 2], []]),
        ("[]float64", [0.5, 3]),
        ("[2]int", (1, -1)),
        ("[2]interface{}", [None, 3]),
        ("map[rune]int", {"a": 1}),
        ("map[interface{}]interface{}", {"a": "B", 1: 2.5}),
        ("interface{}", [1, "a"]),
    ],
    "rust": [
        ("i32", -2147483648),
        ("i64", 2**40),
        ("f32", 0.1),
        ("&str", NASTY),
        ("String", NASTY),
        ("char", "'"),
        ("Vec<Vec<i32>>", [[1, 2], []]),
        ("Vec<String>", ["a"]),
        ("Vec<&str>", []),
        ("(i32, i32)", (1, -1)),
        ("Option<String>", None),
        ("HashMap<char, i32>", {"a": 1}),
    ],
}
GOPATH = Path("/usr/share/gocode")  # Debian's golang-github-stretchr-testify-dev
JAVATUPLES = Path("/usr/share/java/javatuples.jar")  # Debian's libjavatuples-java
if JAVATUPLES.is_file():  # MultiPL-E's Java tuples
    CASES["java"] += [
        ("Pair<Integer, String>", (1, "b")),
        ("Triplet<Long, Double, Boolean>", (1, 2, False)),
    ]


def _declare(language: str, index: int, spelled: str | None) -> tuple[str, Signature]:
    """An identity function over ``spelled`` and its parsed signature."""
    if language == "cpp":
        text = f"{spelled} id{index}({spelled} x){{\n"
        body = "    return x;\n}\n"
        row = {"task_id": f"CPP/{index}", "declaration": text, "test": ""}
    elif language == "java":
        text = f"    public {spelled} id{index}({spelled} x) {{\n"
        body = "        return x;\n    }\n"
        row = {"task_id": f"Java/{index}", "declaration": text, "test": ""}
    elif language == "go":
        text = f"func Id{index}(x {spelled}) {spelled} {{\n"
        body = "    return x\n}\n"
        row = {"task_id": f"Go/{index}", "declaration": text, "test": ""}
    elif language == "js":
        text = f"const id{index} = (x) => {{\n"
        body = "  return x;\n}\n"
        row = {"task_id": f"JavaScript/{index}", "declaration": text, "test": ""}
    else:
        ret = "String" if spelled == "&str" else spelled
        text = f"fn id{index}<'a>(x: {spelled}) -> {spelled} {{\n"
        body = "    x\n}\n"
        row = {
            "task_id": f"Rust/{index}",
            "declaration": text.replace("-> " + spelled, "-> " + ret),
            "test": "",
        }
        text = row["declaration"] if ret != spelled else text
        body = "    x.to_string()\n}\n" if ret != spelled else body
    return text + body, parse_signature(row)


def _program(language: str, wrong: bool) -> str:
    functions, checks = [], []
    for index, (spelled, value) in enumerate(CASES[language]):
        source, sig = _declare(language, index, spelled)
        functions.append(source)
        checks.append(assertion(sig, (value,), value))
    if wrong:  # the same first check with another expected value must fail the run
        spelled, value = CASES[language][0]
        _, sig = _declare(language, 0, spelled)
        checks = [assertion(sig, (value,), value + 1)]
    prelude, defs, body = PRELUDES[language], "\n".join(functions), "\n    ".join(checks)
    if language == "cpp":
        return f"{prelude}using namespace std;\n{defs}\nint main(){{\n    {body}\n}}\n"
    if language == "java":
        main = f"        Solution s = new Solution();\n        {body.replace(chr(10), chr(10) + '    ')}"
        if JAVATUPLES.is_file():
            prelude += "import org.javatuples.*;\n"
        return f"{prelude}class Solution {{\n{defs}}}\npublic class Main {{\n    public static void main(String[] args) {{\n{main}\n    }}\n}}\n"
    if language == "js":
        return f"{prelude}{defs}\n{body}\n"
    if language == "go":
        test = f"func TestIds(t *testing.T) {{\n    assert := assert.New(t)\n    {body}\n}}\n"
        return f"package main\n\n{prelude}\n{defs}\n{test}"
    return f"{prelude}{defs}\nfn main() {{\n    {body}\n}}\n"


def _run(language: str, source: str, folder: Path) -> subprocess.CompletedProcess[str]:
    def sh(*cmd: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(cmd, cwd=folder, capture_output=True, text=True, timeout=120)

    if language == "cpp":
        (folder / "main.cpp").write_text(source)
        built = sh("g++", "-std=c++17", "-o", "main", "main.cpp")
        return built if built.returncode else sh("./main")
    if language == "java":
        (folder / "Main.java").write_text(source)
        cp = f".:{JAVATUPLES}"
        built = sh("javac", "-cp", cp, "Main.java")
        return built if built.returncode else sh("java", "-ea", "-cp", cp, "Main")
    if language == "js":
        (folder / "main.js").write_text(source)
        return sh("node", "main.js")
    if language == "go":
        (folder / "main_test.go").write_text(source)
        env = {**os.environ, "GOPATH": str(GOPATH), "GO111MODULE": "off"}
        return subprocess.run(
            ["go", "test", "main_test.go"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )
    (folder / "main.rs").write_text(source)
    built = sh("rustc", "--edition", "2021", "-A", "warnings", "-o", "main", "main.rs")
    return built if built.returncode else sh("./main")


@pytest.mark.parametrize("language", sorted(CASES))
def test_translated_literals_compile_and_round_trip(language, tmp_path):
    missing = [tool for tool in language_info(language).toolchain if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"{language} toolchain absent: {', '.join(missing)} not on PATH")
    if language == "go" and not (GOPATH / "src/github.com/stretchr/testify").is_dir():
        pytest.skip("go: testify absent (apt install golang-github-stretchr-testify-dev)")
    good = _run(language, _program(language, wrong=False), tmp_path)
    assert good.returncode == 0, good.stderr[-2000:]
    bad = _run(language, _program(language, wrong=True), tmp_path)
    assert bad.returncode != 0, "a wrong expected value did not fail the program"
