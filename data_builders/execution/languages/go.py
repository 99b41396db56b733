"""Go (``go test -c``, testify from Debian's ``golang-github-stretchr-testify-dev``).

HumanEval-X's Go tests are ``func TestX(t *testing.T) { assert := assert.New(t); assert.Equal(...) }``:
each ``assert.<Check>(...)`` (testify returns whether it held) becomes
``__unice_case(k, func() bool { return assert.<Check>(...) })``; a panic in a case is a
runtime error. The support code lives in its own file so its imports never clash with the
program's. Start case and result descriptor come from the environment (the test binary
owns its command line).
"""

from __future__ import annotations

import re
from pathlib import Path

from data_builders.execution.languages.base import Driver, Language, RunSpec, SplitError
from data_builders.execution.languages.source import find_calls, replace_spans

GOPATH = "/usr/share/gocode"
_HEADER = re.compile(r"\A\s*package\s+\w+\s*(?:import\s*(?:\([^)]*\)|\"[^\"]*\")\s*)*")
_CHECK = r"assert\.(?!New\b)[A-Z]\w*"

SUPPORT = """package main

import (
\t"os"
\t"strconv"
)

var __unice_start, __unice_fd = __unice_args()

func __unice_args() (int, int) {
\tstart, err1 := strconv.Atoi(os.Getenv("UNICE_START"))
\tfd, err2 := strconv.Atoi(os.Getenv("UNICE_FD"))
\tif err1 != nil || err2 != nil {
\t\treturn 0, 2
\t}
\treturn start, fd
}

func __unice_mark(what string, k int) {
\tos.NewFile(uintptr(__unice_fd), "unice").WriteString(what + " " + strconv.Itoa(k) + "\\n")
}

func __unice_case(k int, f func() bool) bool {
\tif k < __unice_start {
\t\treturn true
\t}
\t__unice_mark("S", k)
\tstatus := "E"
\tfunc() {
\t\tdefer func() { recover() }()
\t\tif f() {
\t\t\tstatus = "P"
\t\t} else {
\t\t\tstatus = "F"
\t\t}
\t}()
\t__unice_mark(status, k)
\treturn true
}
"""


class Go(Language):
    name = "go"
    executables = ("go",)
    install_hint = "apt install golang-go golang-github-stretchr-testify-dev"
    shared_cache_env = "GOCACHE"  # compiled standard library and testify, reused by every build

    def missing_toolchain(self) -> str | None:
        missing = super().missing_toolchain()
        if missing is None and not Path(GOPATH, "src/github.com/stretchr/testify").exists():
            return "go: testify not found (apt install golang-github-stretchr-testify-dev)"
        return missing

    def _calls(self, test: str) -> list[tuple[int, int, int]]:
        calls = find_calls(test, _CHECK, "\"'`")
        if not calls:
            raise SplitError("no assert.<Check>(...) in the Go test")
        return calls

    def split(self, test: str) -> list[str]:
        return [test[start : close + 1] for start, _, close in self._calls(test)]

    def driver(self, source: str, test: str) -> Driver:
        calls = self._calls(test)
        edits = [
            (
                start,
                close + 1,
                f"__unice_case({k}, func() bool {{ return {test[start : close + 1]} }})",
            )
            for k, (start, _, close) in enumerate(calls)
        ]
        rewritten = replace_spans(test, edits)
        header = _HEADER.match(rewritten)
        head = header.group(0) if header else "package main\n"
        body = rewritten[header.end() :] if header else rewritten
        source_header = re.match(r"\A\s*package\s+\w+\s*", source)
        if source_header:
            source = source[source_header.end() :]
        text = f"{head}\n{source}\n{body}\n"
        return Driver({"main_test.go": text, "unice_support_test.go": SUPPORT}, len(calls))

    def compile_argv(self, build: Path, mode: str = "") -> list[str]:
        return ["go", "test", "-c", "-o", "prog.test", "."]

    def compile_env(self, build: Path) -> dict[str, str]:
        return {"GOPATH": GOPATH, "GO111MODULE": "off", "CGO_ENABLED": "0"}

    def run_spec(self, memory_mb: int, mode: str = "") -> RunSpec:
        return RunSpec(
            ["{build}/prog.test", "-test.run", "^Test", "-test.count", "1"],
            env={"UNICE_START": "{start}", "UNICE_FD": "{fd}", "GOMEMLIMIT": f"{memory_mb}MiB"},
            address_space_limit=False,
        )
