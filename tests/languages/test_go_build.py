"""Go's direct build (``languages/go_build.py``): compile, vet and link without the ``go``
command, the same statuses as ``go test -c``, and ``go test -c`` wherever the direct build
cannot do what it does (a vet finding, an import it does not have, ``TestMain``); a compile
error of the program's own is final in the direct build."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from data_builders.execution.compiled.languages import go_build
from data_builders.execution.compiled.languages.go import QUOTES
from data_builders.execution.executor import Executor
from data_builders.execution.types import Program, TestCode
from tests.languages.conftest import LIMITS, need, statuses

TEST = """package main

import (
    "testing"
    "github.com/stretchr/testify/assert"
)

func TestAll(t *testing.T) {
    assert := assert.New(t)
    assert.Equal(2, F(1))
    assert.Equal("ab", S("a"))
}
"""
PROGRAMS = {
    "right": 'func F(x int) int { return x + 1 }\nfunc S(s string) string { return s + "b" }\n',
    "wrong": 'func F(x int) int { return x }\nfunc S(s string) string { return s + "b" }\n',
    "panics": 'func F(x int) int { var a []int; return a[x] }\nfunc S(s string) string { return s + "b" }\n',
    "compile_error": "func F(x int) int { return y }\nfunc S(s string) string { return s }\n",
    # the compiler's own errors only: the direct build's error, without go test -c after it
    "unused_import": 'import "math"\nfunc F(x int) int { return y }\n'
    "func S(s string) string { return s }\n",
    # vet's printf check fails go test -c's build: the direct build must fail it too
    "vet_finding": 'import "fmt"\nfunc F(x int) int { return x + 1 }\n'
    'func S(s string) string { return fmt.Sprintf("%d", s) }\n',
    "internal_import": 'import "internal/itoa"\nfunc F(x int) int { return x + 1 }\n'
    'func S(s string) string { return s + itoa.Itoa(0)[:0] + "b" }\n',
    "test_main": 'import "os"\nfunc F(x int) int { return x + 1 }\n'
    'func S(s string) string { return s + "b" }\n'
    "func TestMain(m *testing.M) { os.Exit(m.Run()) }\n",
}
EXPECTED = {
    "right": ["pass", "pass"],
    "wrong": ["wrong_answer", "pass"],
    "panics": ["runtime_error", "pass"],
    "compile_error": ["compile_error"] * 2,
    "unused_import": ["compile_error"] * 2,
    "vet_finding": ["compile_error"] * 2,
    "internal_import": ["compile_error"] * 2,
    "test_main": ["pass", "pass"],
}
DIRECT = {"right", "wrong", "panics"}  # built directly; the compile errors below stop there
FINAL_ERRORS = {"compile_error", "unused_import"}  # the others are go test -c's (fallback)


def test_testmain_lists_tests_in_order_and_defers_what_it_cannot_write() -> None:
    two = "func TestB(t *testing.T) {}\n// func TestC(t *testing.T)\nfunc TestA(t *testing.T) {}\n"
    main = go_build.testmain(two, QUOTES)
    assert main is not None and main.index('"TestB"') < main.index('"TestA"')
    assert "TestC" not in main  # in a comment
    assert "Testlower" not in go_build.testmain("func Testlower() {}\n" + two, QUOTES)  # type: ignore[operator]
    indented = go_build.testmain(two + "var x = 1; func TestD(t *testing.T) {}\n", QUOTES)
    assert indented is not None and '"TestD"' in indented
    for other in ("func TestMain(m *testing.M) {}", "func BenchmarkX(b *testing.B) {}",
                  "func ExampleX() {}", "func FuzzX(f *testing.F) {}", "func TestB() {}",
                  "func TestG[T any](t *testing.T) {}"):  # fmt: skip
        assert go_build.testmain(two + other + "\n", QUOTES) is None, other


@pytest.mark.slow
def test_direct_builds_give_go_test_c_statuses(tmp_path: Path, monkeypatch) -> None:
    need("go")
    builds = tmp_path / "builds"
    with Executor("go", workers=2, limits=LIMITS, cache_dir=builds) as ex:
        ex.run(
            Program(PROGRAMS["right"], TestCode(TEST.replace("F(1))", "F(1)) ")), language="go")
        )  # warm
        names = sorted(PROGRAMS)
        results = ex.map(Program(PROGRAMS[n], TestCode(TEST), language="go") for n in names)
        direct = {n: statuses(r) for n, r in zip(names, results, strict=True)}
    made = {p.parent.name for p in builds.glob("go/*/_testmain.a")}
    # the three that build directly, and the warm-up where the shared Go cache was warm
    assert len(made) in (len(DIRECT), len(DIRECT) + 1)
    # the package's compile error is final in the direct build (its log kept), no go test -c
    errors = [p for p in builds.glob("go/*/compile.log") if p.stat().st_size]
    assert len(errors) == len(FINAL_ERRORS)
    assert all(p.read_text().startswith(str(p.parent)) for p in errors)  # the compiler's own
    monkeypatch.setattr(go_build, "build_argv", lambda build, folder, fallback: fallback)
    with Executor("go", workers=2, limits=LIMITS, cache_dir=tmp_path / "plain") as ex:
        results = ex.map(Program(PROGRAMS[n], TestCode(TEST), language="go") for n in names)
        fallback = {n: statuses(r) for n, r in zip(names, results, strict=True)}
    assert direct == fallback == EXPECTED


def test_the_toolkit_is_made_by_the_base_interpreter_not_a_venv_link() -> None:
    """The compile sandbox mounts a private /tmp: a checkout there (a CI clone) has its .venv
    hidden, so the toolkit must be made by the interpreter the venv links to, or no Go
    program ever builds directly."""
    interpreter = go_build.toolkit_argv(go_build.toolkit())[0]
    assert Path(interpreter).is_file() and interpreter == os.path.realpath(interpreter)
    if sys.prefix != sys.base_prefix:  # in a virtual environment
        assert not interpreter.startswith(sys.prefix + os.sep)
