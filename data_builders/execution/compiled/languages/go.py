"""Go (``go test -c``, testify from Debian's ``golang-github-stretchr-testify-dev``).

HumanEval-X's Go tests are ``func TestX(t *testing.T) { assert := assert.New(t); assert.Equal(...) }``:
each ``assert.<Check>(...)`` (testify returns whether it held) becomes
``__unice_case(k, func() bool { return assert.<Check>(...) })``; a panic in a case is a
runtime error. The support code lives in its own file so its imports never clash with the
program's. MultiPL-E's Go tests build a table ``tests := []test{ {actual: A, expected:
E}, ... }`` and compare ``fmt.Sprintf("%v", ...)`` of both: each row becomes a case making
that comparison (the table is left empty, so its loop runs nothing). Start case and result
descriptor come from the environment (the test binary owns its command line).

Host-side verdicts (the token protocol, ``languages/base.py``): ``assert.Equal(L, X)`` (or
``(X, L)``, a message after them) with ``L`` a constant (numbers, strings, runes, ``nil``,
composite literals of built-in types: ``[]int{...}``, ``[2]float64{...}``, ``[][2]int{{...}}``,
``map[string]int{...}``, ``[2]interface{}{...}``) becomes ``__unice_value(k, func() interface{}
{ return X })``: the program writes X's value with its Go type (``reflect``), and the host
applies testify's ``ObjectsAreEqual`` (``reflect.DeepEqual``: same types, a nil slice is not
an empty one). ``assert.Equal(true, math.Abs(X - L) < T)`` becomes a value case on X. With a
reference solution (``languages/computed.py``), ``assert.Equal(A, B)`` comparing the candidate
with a value the test computes (``odd_sum``, ``strconv.Itoa(i)`` in a loop) and HumanEval's
``math.Abs(Poly(xs, x)) < T`` are judged from the reference's run, where the test draws the
same inputs in both runs (``same_inputs``). ``L`` is not in the driver; an import the rewritten test no longer uses becomes a blank import. The
token is read by a package-level variable of the support file, which sorts first, so it is
initialised before the program's package variables.
"""

from __future__ import annotations

import re
from pathlib import Path

from data_builders.execution.compiled.checks import Check
from data_builders.execution.compiled.languages import go_build
from data_builders.execution.compiled.languages.base import (
    Driver,
    Language,
    Prelude,
    RunSpec,
    SplitError,
)
from data_builders.execution.compiled.languages.checks import abs_check
from data_builders.execution.compiled.languages.computed import (
    Reference,
    calls_any,
    computed_case,
    poly_case,
    sides,
)
from data_builders.execution.compiled.languages.go_literals import (
    QUOTES,
    is_go_literal,
    parse_go_literal,
)
from data_builders.execution.compiled.languages.go_support import SUPPORT, SUPPORT_FILE
from data_builders.execution.compiled.languages.source import (
    code_mask,
    find_calls,
    find_code,
    inside_loop,
    matching,
    replace_spans,
    split_top_level,
    statement_of_function,
    strip_parens,
    top_level,
)
from data_builders.execution.compiled.literals import NotLiteral

GOPATH = "/usr/share/gocode"
_HEADER = re.compile(r"\A\s*package\s+\w+\s*(?:import\s*(?:\([^)]*\)|\"[^\"]*\")\s*)*")
_CHECK = r"assert\.(?!New\b)[A-Z]\w*"
_TABLE = r"\btests\s*:=\s*\[\]test\s*\{"


def test_helpers(test: str) -> set[str]:
    """Functions and closures the test defines (``func same(...)``, ``same := func(...)``)."""
    return set(re.findall(r"\bfunc\s+(\w+)\s*\(", test)) | set(
        re.findall(r"\b(\w+)\s*:=\s*func\b", test)
    )


def go_check(call: str, helpers: set[str] = frozenset()) -> tuple[str, Check] | None:  # type: ignore[assignment]
    """``(X, check)`` for ``assert.Equal(L, X[, msg...])`` with a constant ``L`` (either
    argument), or ``assert.Equal(true, math.Abs(X - L) < T)``; None leaves it to the
    program, as it does ``assert.Equal(true, same(L, X))`` with a ``helpers`` function (the
    expected value would be an argument in the program)."""
    match = re.match(r"assert\.Equal\s*\(", call)
    if match is None:
        return None
    args = split_top_level(call[match.end() : -1], quotes=QUOTES)
    if len(args) < 2:
        return None
    first, second = args[0], args[1]
    try:
        if first == "true" and re.match(r"math\.Abs\s*\(", second):
            inner = strip_parens(second, QUOTES)
            if top_level(inner, ("&&", "||", "==", "!="), QUOTES):
                return None
            return abs_check(inner, "go", r"math\s*\.\s*Abs\s*\(", False, call, QUOTES)
        for side in (first, second):
            callee = re.match(r"(\w+)\s*\(", side)
            if callee and callee.group(1) in helpers:
                return None
        if is_go_literal(first) and not is_go_literal(second):
            actual, literal = second, first
        elif is_go_literal(second) and not is_go_literal(first):
            actual, literal = first, second
        else:
            return None
        return actual, Check("go", "eq", parse_go_literal(literal), text=call)
    except (NotLiteral, ValueError, IndexError):
        return None


_TEST_FUNC = r"\bfunc\s+Test\w*\s*\(\s*\w+\s+\*\s*testing\.T\s*\)\s*\{"
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


def go_computed(
    call: str, names: frozenset[str], helpers: set[str]
) -> tuple[str, str, Check] | None:
    """``(candidate side, expected side, check)`` when ``assert.Equal(A, B)`` compares the
    candidate with a value the test computes (``assert.Equal(odd_sum, F(lst))``,
    ``assert.Equal(strconv.Itoa(i), ChangeBase(i, i+1))``), or is HumanEval's ``find_zero``
    property ``assert.Equal(true, math.Abs(Poly(xs, x)) < T)``: ``languages/computed.py``.
    None for anything else, and where a side calls a helper the test defines (``same(L,
    X)``: its verdict would be the helper's, computed in the program's process)."""
    match = re.match(r"assert\.Equal\s*\(", call)
    if match is None:
        return None
    args = split_top_level(call[match.end() : -1], quotes=QUOTES)
    if len(args) < 2 or calls_any(args[0], helpers) or calls_any(args[1], helpers):
        return None
    if args[0] == "true":
        prop = poly_case(args[1], r"math\s*\.\s*Abs\s*\(", names, "go", call, function="Poly")
        if prop is not None:
            return prop
    found = sides(args[0], args[1], names)
    if found is None:
        return None
    return found[0], found[1], Check("go", "eq", text=call, origin=found[2])


def same_inputs(test: str) -> bool:
    """Whether the test draws the same inputs in every process, so that a reference run's
    values are the expected values of the candidate's run: no clock, and ``math/rand`` only
    through a generator seeded with a constant (``rand.New(rand.NewSource(42))``); its
    global functions (``rand.Int31n``) are seeded at random since Go 1.20."""
    if re.search(r"\btime\s*\.\s*Now\b", test):
        return False
    if any(
        m.group(1) not in ("New", "NewSource") for m in re.finditer(r"\brand\s*\.\s*(\w+)", test)
    ):
        return False
    seeds = re.findall(r"\brand\s*\.\s*NewSource\s*\(([^()]*)\)", test)
    return all(re.fullmatch(r"\s*-?\d+\s*", seed) for seed in seeds)


def _kept_in_use(sides_: tuple[str, str], written: str) -> str:
    """``_ = v; `` for each side the driver no longer evaluates that is a bare variable, so
    that Go does not reject the test's variable as declared and not used."""
    return "".join(
        f"_ = {side}; " for side in sides_ if side != written and _IDENTIFIER.fullmatch(side)
    )


_IMPORT_BLOCK = re.compile(r"\bimport\s*\(([^)]*)\)")


def blank_unused_imports(text: str, original: str | None = None) -> str:
    """``text`` with every import it no longer uses made a blank import (``_ "math"``): a
    value case can take the last use of a package out of the test. With ``original`` (the
    program and test as written), only the imports ``original`` uses: an import the program
    never used stays, and fails to compile as it does in Go (MultiPL-E's
    ``HumanEval_27_go`` prompt imports ``strings``; a completion without it is a
    ``SyntaxError`` there)."""
    block = _IMPORT_BLOCK.search(text)
    if block is None:
        return text
    rest = _outside_imports(text)
    before = _outside_imports(original) if original is not None else None
    lines = []
    for line in block.group(1).split("\n"):
        path = re.fullmatch(r'\s*"([\w./-]+)"\s*', line)
        if path:
            name = path.group(1).rsplit("/", 1)[-1]
            used = rf"(?<![\w.]){re.escape(name)}\s*\."
            if find_code(rest, used, QUOTES) is None and (
                before is None or find_code(before, used, QUOTES) is not None
            ):
                line = line.replace(f'"{path.group(1)}"', f'_ "{path.group(1)}"')
        lines.append(line)
    return text[: block.start(1)] + "\n".join(lines) + text[block.end(1) :]


def _outside_imports(text: str) -> str:
    """``text`` without its import block: where a package's uses are looked for."""
    block = _IMPORT_BLOCK.search(text)
    return text if block is None else text[: block.start()] + text[block.end() :]


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
    quotes = "\"'`"
    token_protocol = True
    reference_cases = True
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

    def _cases(
        self, test: str, reference: Reference | None = None
    ) -> tuple[list[tuple[int, int, str]], list[str], list[Check | None]]:
        table = self._table(test)
        if table is not None:  # MultiPL-E: one case per row, compared as MultiPL-E does
            start, end, rows = table
            cases = [
                f'__unice_case({k}, func() bool {{ return fmt.Sprintf("%v", {a}) =='
                f' fmt.Sprintf("%v", {e}) }})'
                for k, (a, e) in enumerate(rows)
            ]
            splice = "\n".join([*cases, "tests := []test{}"])
            return [(start, end, splice)], [a for a, _ in rows], [None] * len(rows)
        calls = find_calls(test, _CHECK, QUOTES)
        if not calls:
            raise SplitError("no assert.<Check>(...) or tests := []test{...} table in the Go test")
        edits, checks = [], []
        helpers = test_helpers(test)
        if reference is not None and not same_inputs(test):
            reference = None  # a reference run would see other inputs: no computed cases
        for k, (s, _, c) in enumerate(calls):
            call = test[s : c + 1]
            in_loop = inside_loop(test, s, QUOTES)
            found = None if in_loop else go_check(call, helpers)
            keep = ""
            wanted = found is None and reference is not None
            if wanted and (in_loop or statement_of_function(test, s, _TEST_FUNC, QUOTES, False)):
                computed = go_computed(call, reference.names, helpers)
                found = computed_case(k, computed, in_loop, reference, None)  # no pair value
                keep = _kept_in_use(computed[:2], found[0]) if computed and found else ""
            checks.append(found[1] if found else None)
            if found:
                new = f"__unice_value({k}, func() interface{{}} {{ {keep}return {found[0]} }})"
            else:
                new = f"__unice_case({k}, func() bool {{ return {test[s : c + 1]} }})"
            edits.append((s, c + 1, new))
        return edits, [test[s : c + 1] for s, _, c in calls], checks

    def split(self, test: str) -> list[str]:
        return self._cases(test)[1]

    def driver(self, source: str, test: str, reference: Reference | None = None) -> Driver:
        edits, calls, checks = self._cases(test, reference)
        rewritten = replace_spans(test, edits)
        # testify's assert may now be used by no case: keep it used
        rewritten = re.sub(
            r"(\bassert\s*:=\s*assert\.New\(\s*t\s*\))", r"\1; _ = assert", rewritten, count=1
        )
        text = blank_unused_imports(join_program(source, rewritten), join_program(source, test))
        files = {"main_test.go": text, SUPPORT_FILE: SUPPORT}
        main = go_build.testmain(text, QUOTES)  # (built directly: go_build.py)
        files.update({go_build.TESTMAIN_FILE: main} if main is not None else {})
        return Driver(files, len(calls), prelude=go_build.toolkit(), checks=tuple(checks))

    def prelude_argv(self, prelude: Prelude) -> list[str]:
        return go_build.toolkit_argv(prelude)

    def compile_argv(
        self, build: Path, mode: str = "", prelude_dir: Path | None = None
    ) -> list[str]:
        if prelude_dir is not None:
            return go_build.build_argv(build, prelude_dir, self.compile_argv(build, mode))
        # -s -w: no symbol table or DWARF in the test binary: writing them for every program
        # is about half of the link's CPU (0.25 -> 0.13 s on a HumanEval-X test binary).
        # The runtime's own tables (stack traces, runtime.Caller, testify's messages) stay,
        # so a program runs and fails exactly as before. `go test -c` still vets.
        return ["go", "test", "-c", "-ldflags=-s -w", "-o", "prog.test", "."]

    def compile_env(self, build: Path) -> dict[str, str]:
        return {"GOPATH": GOPATH, "GO111MODULE": "off", "CGO_ENABLED": "0"}

    def run_spec(self, memory_mb: int, mode: str = "") -> RunSpec:
        return RunSpec(
            ["{build}/prog.test", "-test.run", "^Test", "-test.count", "1"],
            env={"UNICE_START": "{start}", "UNICE_FD": "{fd}", "GOMEMLIMIT": f"{memory_mb}MiB"},
            address_space_limit=False,
        )
