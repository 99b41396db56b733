"""Go (``go test -c``, testify from Debian's ``golang-github-stretchr-testify-dev``).

HumanEval-X's Go tests are ``func TestX(t *testing.T) { assert := assert.New(t); assert.Equal(...) }``:
each ``assert.<Check>(...)`` (testify returns whether it held) becomes
``__unice_case(k, func() bool { return assert.<Check>(...) })``; a panic in a case is a
runtime error. The support code lives in its own file so its imports never clash with the
program's. MultiPL-E's Go tests build a table ``tests := []test{ {actual: A, expected:
E}, ... }`` and compare ``fmt.Sprintf("%v", ...)`` of both: each row becomes a case making
that comparison (the table is left empty, so its loop runs nothing). Start case and result
descriptor come from the environment (the test binary owns its command line).
"""

from __future__ import annotations

import re
from pathlib import Path

from data_builders.execution.languages.base import Driver, Language, RunSpec, SplitError
from data_builders.execution.languages.source import (
    code_mask,
    find_calls,
    find_code,
    matching,
    replace_spans,
    split_top_level,
)

GOPATH = "/usr/share/gocode"
_HEADER = re.compile(r"\A\s*package\s+\w+\s*(?:import\s*(?:\([^)]*\)|\"[^\"]*\")\s*)*")
_CHECK = r"assert\.(?!New\b)[A-Z]\w*"
_TABLE = r"\btests\s*:=\s*\[\]test\s*\{"
QUOTES = "\"'`"

SUPPORT = """package main

import (
\t"fmt"
\t"os"
\t"strconv"
\t"strings"
)

var __unice_start, __unice_fd = __unice_args()

// One *os.File for the whole run, held by a global: a File made per report becomes garbage
// and its finalizer closes the result descriptor in the middle of the run.
var __unice_out = os.NewFile(uintptr(__unice_fd), "unice")

func __unice_args() (int, int) {
\tstart, err1 := strconv.Atoi(os.Getenv("UNICE_START"))
\tfd, err2 := strconv.Atoi(os.Getenv("UNICE_FD"))
\tif err1 != nil || err2 != nil {
\t\treturn 0, 2
\t}
\treturn start, fd
}

func __unice_mark(what string, k int) {
\t__unice_out.WriteString(what + " " + strconv.Itoa(k) + "\\n")
}

func __unice_case(k int, f func() bool) bool {
\tif k < __unice_start {
\t\treturn true
\t}
\t__unice_mark("S", k)
\tstatus := "E"
\tfunc() {
\t\tdefer func() {
\t\t\tif r := recover(); r != nil {
\t\t\t\tstatus = "E " + strings.Join(strings.Fields(fmt.Sprint(r)), " ")
\t\t\t}
\t\t}()
\t\tif f() {
\t\t\tstatus = "P"
\t\t} else {
\t\t\tstatus = "F"
\t\t}
\t}()
\tif code, detail, found := strings.Cut(status, " "); found {
\t\t__unice_out.WriteString(code + " " + strconv.Itoa(k) + " " + detail + "\\n")
\t} else {
\t\t__unice_mark(status, k)
\t}
\treturn true
}
"""


def join_program(source: str, test: str) -> str:
    """One Go file of a program and its test: the test's package clause and imports first, then
    the source (its own package clause dropped), then the rest of the test. Go allows imports
    only right after the package clause, and HumanEval-X's tests carry both, so
    ``source + test`` would not compile (HumanEval-X's own harness orders them this way too)."""
    header = _HEADER.match(test)
    head = header.group(0) if header else "package main\n"
    body = test[header.end() :] if header else test
    source_header = re.match(r"\A\s*package\s+\w+\s*", source)
    if source_header:
        source = source[source_header.end() :]
    return f"{head}\n{source}\n{body}\n"


class Go(Language):
    name = "go"
    stop_tokens = ("\nfunc", "struct", "\n// ")
    quotes = "\"'`"
    executables = ("go",)
    install_hint = "apt install golang-go golang-github-stretchr-testify-dev"
    shared_cache_env = "GOCACHE"  # compiled standard library and testify, reused by every build

    def missing_toolchain(self) -> str | None:
        missing = super().missing_toolchain()
        if missing is None and not Path(GOPATH, "src/github.com/stretchr/testify").exists():
            return "go: testify not found (apt install golang-github-stretchr-testify-dev)"
        return missing

    def _table(self, test: str) -> tuple[int, int, list[tuple[str, str]]] | None:
        """MultiPL-E's ``tests := []test{ {actual: A, expected: E}, ... }``: span and rows."""
        match = find_code(test, _TABLE, QUOTES)
        if match is None:
            return None
        close = matching(test, match.end() - 1, code_mask(test, QUOTES))
        rows = []
        for row in split_top_level(test[match.end() : close], quotes=QUOTES):
            if not row:
                continue
            fields = dict(
                (part.split(":", 1)[0].strip(), part.split(":", 1)[1].strip())
                for part in split_top_level(row.strip()[1:-1], quotes=QUOTES)
                if ":" in part
            )
            if "actual" not in fields or "expected" not in fields:
                raise SplitError(f"a Go table row without actual/expected: {row[:80]}")
            rows.append((fields["actual"], fields["expected"]))
        return match.start(), close + 1, rows

    def _cases(self, test: str) -> tuple[list[tuple[int, int, str]], list[str]]:
        table = self._table(test)
        if table is not None:  # MultiPL-E: one case per row, compared as MultiPL-E does
            start, end, rows = table
            cases = [
                f'__unice_case({k}, func() bool {{ return fmt.Sprintf("%v", {a}) =='
                f' fmt.Sprintf("%v", {e}) }})'
                for k, (a, e) in enumerate(rows)
            ]
            return [(start, end, "\n".join([*cases, "tests := []test{}"]))], [a for a, _ in rows]
        calls = find_calls(test, _CHECK, QUOTES)
        if not calls:
            raise SplitError("no assert.<Check>(...) or tests := []test{...} table in the Go test")
        edits = [
            (s, c + 1, f"__unice_case({k}, func() bool {{ return {test[s : c + 1]} }})")
            for k, (s, _, c) in enumerate(calls)
        ]
        return edits, [test[s : c + 1] for s, _, c in calls]

    def split(self, test: str) -> list[str]:
        return self._cases(test)[1]

    def driver(self, source: str, test: str) -> Driver:
        edits, calls = self._cases(test)
        text = join_program(source, replace_spans(test, edits))
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
