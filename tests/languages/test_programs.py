"""Per language: a correct, a wrong, a non-compiling, a crashing and a looping program.

Each program defines ``f(x)`` (Java: ``Solution.f``); its test has three assertions,
``f(1) == 2``, ``f(2) == 3``, ``f(3) == 4``, so every PassRatio and status below is exact.
A crash or a timeout at the second assertion must leave the third one running (resumed in a
fresh process).
"""

from __future__ import annotations

import pytest

from data_builders.execution.compiled.languages import get_language
from data_builders.execution.types import Program, ProgramResult, TestCode
from tests.languages.conftest import need, run, statuses

CPP_TEST = """#include<assert.h>
int main(){
    assert (f(1) == 2);
    assert (f(2) == 3);
    assert (f(3) == 4);
}
"""
CPP = {
    "correct": "int f(int x) { return x + 1; }\n",
    "wrong": "int f(int x) { return x < 3 ? x + 1 : 0; }\n",
    "broken": "int f(int x) { return x + ; }\n",
    "crash": "int f(int x) { if (x == 2) { volatile int* p = nullptr; *p = 1; } return x + 1; }\n",
    "throw": '#include<stdexcept>\nint f(int x) { if (x == 2) throw std::runtime_error("no"); return x + 1; }\n',
    "loop": "int f(int x) { volatile int y = 0; while (x == 2) { y++; } return x + 1; }\n",
}

JAVA_TEST = """public class Main {
    public static void main(String[] args) {
        Solution s = new Solution();
        List<Boolean> correct = Arrays.asList(
                s.f(1) == 2,
                s.f(2) == 3,
                s.f(3) == 4
        );
        if (correct.contains(false)) {
            throw new AssertionError();
        }
    }
}
"""
_JAVA = "import java.util.*;\nimport java.lang.*;\n\nclass Solution {\n    public int f(int x) {\n%s\n    }\n}\n"
JAVA = {
    "correct": _JAVA % "return x + 1;",
    "wrong": _JAVA % "return x < 3 ? x + 1 : 0;",
    "broken": _JAVA % "return x + ;",
    "crash": _JAVA % "if (x == 2) throw new IllegalStateException(); return x + 1;",
    "exit": _JAVA % "if (x == 2) System.exit(3); return x + 1;",
    "loop": _JAVA % "while (x == 2) { x = 2; } return x + 1;",
}

JS_TEST = """const testF = () => {
  console.assert(f(1) === 2)
  console.assert(f(2) === 3)
  console.assert(f(3) === 4)
}
testF()
"""
JS = {
    "correct": "const f = (x) => {\n  return x + 1\n}\n",
    "wrong": "const f = (x) => {\n  return x < 3 ? x + 1 : 0\n}\n",
    "broken": "const f = (x) => {\n  return x + \n}}\n",
    "crash": "const f = (x) => {\n  if (x === 2) { null.boom() }\n  return x + 1\n}\n",
    "exit": "const f = (x) => {\n  if (x === 2) { process.exit(0) }\n  return x + 1\n}\n",
    "loop": "const f = (x) => {\n  while (x === 2) {}\n  return x + 1\n}\n",
}

GO_TEST = """package main

import (
    "testing"
    "github.com/stretchr/testify/assert"
)

func TestF(t *testing.T) {
    assert := assert.New(t)
    assert.Equal(2, F(1))
    assert.Equal(3, F(2))
    assert.Equal(4, F(3))
    assert.Equal(5, F(4))
}
"""
GO = "func F(x int) int {\n    if x == 2 {\n        var m map[int]int\n        m[0] = 1\n    }\n    if x == 3 {\n        return 0\n    }\n    return x + 1\n}\n"

RUST_TEST = """
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_f() {
        assert_eq!(f(1), 2);
        assert_eq!(f(2), 3);
        assert!(f(3) == 4);
    }
}
"""
_RUST = "fn main() {}\nfn f(x: i32) -> i32 {\n%s\n}\n"
RUST = {
    "correct": _RUST % "    x + 1",
    "wrong": _RUST % "    if x < 3 { x + 1 } else { 0 }",
    "broken": _RUST % "    x + ",
    "crash": _RUST % "    let v: Vec<i32> = vec![];\n    if x == 2 { return v[5]; }\n    x + 1",
    "exit": _RUST % "    if x == 2 { std::process::exit(0); }\n    x + 1",
    "loop": _RUST
    % "    let mut y = 0u64;\n    while x == 2 { y = std::hint::black_box(y.wrapping_add(1)); }\n    x + 1",
}

P, W, R, T, S, C = "pass", "wrong_answer", "runtime_error", "timeout", "signal", "compile_error"
EXPECTED = {
    "correct": ([P, P, P], 1.0, True),
    "wrong": ([P, P, W], 2 / 3, True),
    "broken": ([C, C, C], 0.0, False),
    "crash": None,  # per language below
    "throw": ([P, R, P], 2 / 3, False),
    "exit": ([P, R, P], 2 / 3, False),
    "loop": ([P, T, P], 2 / 3, False),
}
CASES = [
    ("cpp", CPP, CPP_TEST, {"crash": ([P, S, P], 2 / 3, False)}),
    ("java", JAVA, JAVA_TEST, {"crash": ([P, R, P], 2 / 3, False)}),
    ("js", JS, JS_TEST, {"crash": ([P, R, P], 2 / 3, False)}),
    ("rust", RUST, RUST_TEST, {"crash": ([P, R, P], 2 / 3, False)}),
]


@pytest.fixture(scope="module")
def results(foreign) -> dict[tuple[str, str], ProgramResult]:
    """Every program of every installed language, run two at a time (builds in parallel)."""
    jobs = [
        (lang, kind, Program(source, TestCode(test), language=lang))
        for lang, programs, test, _ in CASES
        if get_language(lang).missing_toolchain() is None
        for kind, source in programs.items()
    ]
    return {
        (lang, kind): result
        for (lang, kind, _), result in zip(jobs, foreign.map(p for _, _, p in jobs), strict=True)
    }


@pytest.mark.parametrize(
    ("language", "kind"),
    [(lang, kind) for lang, programs, _, _ in CASES for kind in programs],
)
def test_program_statuses_and_pass_ratio(results, language: str, kind: str) -> None:
    need(language)
    _, _, _, special = next(c for c in CASES if c[0] == language)
    expected_statuses, ratio, executable = special.get(kind) or EXPECTED[kind]
    result = results[(language, kind)]
    assert statuses(result) == expected_statuses, [o.detail for o in result.outcomes]
    assert result.pass_ratio == pytest.approx(ratio)
    assert result.executable is executable
    assert result.passed is (ratio == 1.0)
    assert result.to_dict()["n_tests"] == 3


def test_js_console_assert_trap(foreign, tmp_path) -> None:
    """Plain Node passes a failing console.assert (exit status 0); the label does not."""
    import shutil
    import subprocess

    result = run(foreign, "js", JS["wrong"], JS_TEST)
    assert statuses(result) == [P, P, W]
    script = tmp_path / "plain.js"
    script.write_text(JS["wrong"] + JS_TEST)
    plain = subprocess.run(
        [shutil.which("node") or "node", str(script)], capture_output=True, check=False
    )
    assert plain.returncode == 0 and b"Assertion failed" in plain.stderr


@pytest.mark.slow
def test_go_statuses(foreign) -> None:
    """One Go program: pass, panic (runtime_error), wrong answer, pass; the first build also
    compiles the standard library and testify into the shared Go cache (slow once)."""
    result = run(foreign, "go", GO, GO_TEST)
    assert statuses(result) == [P, R, W, P], [o.detail for o in result.outcomes]
    assert result.pass_ratio == 0.5 and not result.executable


def test_builds_are_reused(foreign) -> None:
    """A program compiled once is not compiled again (same driver, same hash)."""
    before = foreign.pool.compiles
    run(foreign, "cpp", CPP["correct"], CPP_TEST)
    run(foreign, "cpp", CPP["correct"], CPP_TEST)
    assert foreign.pool.compiles - before <= 1


def test_java_compile_server_and_command_line_agree(foreign, tmp_path) -> None:
    """The warm javac server (default) and one javac per program give the same statuses."""
    need("java")
    from data_builders.execution.executor import Executor
    from tests.languages.conftest import LIMITS

    programs = [
        Program(JAVA[k], TestCode(JAVA_TEST), language="java") for k in ("correct", "broken")
    ]
    with Executor(
        "java", workers=2, limits=LIMITS, cache_dir=tmp_path, compile_servers=False
    ) as plain:
        by_command_line = [statuses(r) for r in plain.map(programs)]
    assert by_command_line == [statuses(r) for r in foreign.map(programs)] == [[P, P, P], [C, C, C]]


@pytest.mark.parametrize(
    ("language", "kind", "text"),
    [("cpp", "throw", "no"), ("java", "crash", "IllegalStateException"),
     ("js", "crash", "TypeError"), ("rust", "crash", "index out of bounds")],
)  # fmt: skip
def test_errors_carry_their_message(results, language: str, kind: str, text: str) -> None:
    need(language)
    assert text in results[(language, kind)].outcomes[1].detail


def test_a_temporary_cache_keeps_builds_only_while_used() -> None:
    """Without a cache_dir, a finished program's build is removed (and rebuilt if needed)."""
    need("cpp")
    from data_builders.execution.executor import Executor
    from tests.languages.conftest import LIMITS

    with Executor("cpp", workers=1, limits=LIMITS) as ex:
        for _ in range(2):
            assert statuses(ex.run(Program(CPP["wrong"], TestCode(CPP_TEST), language="cpp"))) == [
                P,
                P,
                W,
            ]
        assert not [p for p in (ex.pool.cache_dir / "cpp").iterdir()]
        assert ex.pool.compiles == 2


def test_after_a_timeout_the_rest_run_under_the_shorter_limit(tmp_path) -> None:
    """Every assertion still runs (and times out here), the later ones under after_timeout."""
    need("js")
    import dataclasses

    from data_builders.execution.executor import Executor
    from tests.languages.conftest import LIMITS

    hang = "const f = (x) => {\n  while (true) {}\n}\n"
    limits = dataclasses.replace(LIMITS, after_timeout=0.2)
    with Executor("js", workers=1, limits=limits, cache_dir=tmp_path) as ex:
        result = ex.run(Program(hang, TestCode(JS_TEST), language="js"))
    assert statuses(result) == [T, T, T]
    first, *rest = [o.time for o in result.outcomes]
    assert first >= 1.0 and all(t < 0.6 for t in rest), [o.time for o in result.outcomes]


def test_a_broken_compile_server_falls_back_to_the_command_line(tmp_path, monkeypatch, capsys):
    need("java")
    from data_builders.execution.compiled.compile_server import ServerSpec
    from data_builders.execution.compiled.languages.java import Java
    from data_builders.execution.executor import Executor
    from tests.languages.conftest import LIMITS

    broken = ServerSpec({"X.java": "class X {"}, ["javac", "-d", "{dir}", "{dir}/X.java"], ["true"])
    monkeypatch.setattr(Java, "compile_server", broken)
    with Executor(
        "java",
        workers=1,
        limits=LIMITS,
        cache_dir=tmp_path / "b",
        shared_cache_dir=tmp_path / "s",
    ) as ex:
        for kind in ("wrong", "correct"):  # the server build is tried once, then skipped
            assert statuses(ex.run(Program(JAVA[kind], TestCode(JAVA_TEST), language="java")))[
                :2
            ] == [P, P]
    assert capsys.readouterr().err.count("warning: java compile server failed") == 1


def test_a_test_without_assertions_gives_no_tests(foreign) -> None:
    """HumanEval-X's Rust/32 test is commented out: nothing is verified, nothing passes."""
    result = foreign.run(
        Program(JS["correct"], TestCode("/* console.assert(f(1) === 2) */\n"), language="js")
    )
    assert result.n_tests == 0 and result.pass_ratio == 0.0 and not result.passed


def test_one_program_type_each_executor_refuses_the_other_kind(foreign) -> None:
    """``Program`` is every executor's input; ``language`` says which one runs it (issue 28)."""
    from data_builders.execution.python.pool import build_job
    from data_builders.execution.types import CallTest, ExecutionLimits

    python = Program("def f(x):\n    return x + 1\n", [CallTest([1], 2)], entry_point="f")
    assert (
        python.language == "python" and build_job(python, ExecutionLimits())["mode"] == "function"
    )
    with pytest.raises(ValueError, match="foreign executor"):
        build_job(Program(JS["correct"], TestCode(JS_TEST), language="js"), ExecutionLimits())
    with pytest.raises(TypeError, match="Python executor"):
        foreign.run(python)
