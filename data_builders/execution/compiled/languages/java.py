"""Java (``javac`` / ``java -ea``, javatuples on the class path).

HumanEval-X tests build ``List<Boolean> correct = Arrays.asList(e1, ..., en)`` and throw if
it contains ``false``: each ``e_k`` becomes a case. Other statements of ``main`` that throw
``AssertionError`` (a loop of random checks), and MultiPL-E's ``assert(...)`` statements
(its ``main`` sits in ``class Problem``, which is then the class run), become one case each. One JVM runs every case of a program (start-up is
paid once per program, not per assertion).

Host-side verdicts (the token protocol, ``languages/base.py``): an element of the ``correct``
list of the form ``X.equals(L)``, ``Objects.equals(X, L)``, ``X == L`` (``!=``) with a
primitive ``L``, ``Math.abs(X - L) < T`` or a bare ``s.f(...)`` / ``!s.f(...)``, with ``L`` a
constant (``Arrays.asList``, ``List.of``, ``new ArrayList<>(...)``, ``Optional``, strings,
numbers with their boxed type), becomes ``__unice_value(k, () -> (X))``: the program writes
X's value and the host judges it with Java's ``equals``/``==`` (``compiled/checks.py``); ``L``
is not in the driver (a string literal's ``==`` is identity: the program writes whether its
string is the pooled instance). With a reference solution (``languages/computed.py``), an
``assert`` statement or a loop's ``if (C) throw new AssertionError()`` comparing with a value
the test computes writes only the candidate's side, and the reference's run writes the
other. The token is read from stdin by ``main`` before the program's classes are first used.

Here: the walk over the test's ``main`` (which statements are cases), the driver and the
build. Which assertions the host judges, and the code that replaces them:
``languages/java_checks.py``; the support code the driver carries: ``languages/java_support.py``.
"""

from __future__ import annotations

import re
from pathlib import Path

from data_builders.execution.compiled.checks import Check
from data_builders.execution.compiled.compile_server import ServerSpec
from data_builders.execution.compiled.languages.base import Driver, Language, RunSpec, SplitError
from data_builders.execution.compiled.languages.computed import Reference
from data_builders.execution.compiled.languages.java_checks import (
    ASSERTING,
    constant_maps,
    java_check,
    java_statement,
    java_throwing_check,
)
from data_builders.execution.compiled.languages.java_support import SUPPORT
from data_builders.execution.compiled.languages.source import (
    closing,
    code_mask,
    find_code,
    matching,
    replace_spans,
    split_top_level,
    statements,
)

JAVATUPLES = "/usr/share/java/javatuples.jar"

_MAIN = (
    r"public\s+static\s+void\s+main\s*\(\s*String\s*(?:\[\]\s*\w+|\w+\s*\[\]|\.\.\.\s*\w+)\s*\)"
    r"(?:\s*throws\s+[\w.]+(?:\s*,\s*[\w.]+)*)?"  # replaced by "throws Exception"
)
_CLASS_NAME = re.compile(r"\bclass\s+(\w+)")
_PUBLIC_CLASS = re.compile(r"\bpublic\s+(?:final\s+)?class\s+(\w+)")


def enclosing_class(text: str, at: int) -> str | None:
    """The innermost class whose body holds position ``at`` (where ``main`` is declared: the
    class the JVM is told to run). A class declared before ``main`` that ends before it, as
    a helper class local to a method (``class IsPrime { ... }`` in MultiPL-E's
    ``HumanEval_75_java``), is not the owner, though it is the last ``class`` before it."""
    mask = code_mask(text)
    owner = None
    for match in _CLASS_NAME.finditer(text[:at]):
        if not mask[match.start()]:
            continue
        brace = next((i for i in range(match.end(), at) if mask[i] and text[i] == "{"), None)
        close = closing(text, brace, mask=mask) if brace is not None else None
        if close is not None and brace < at < close:
            owner = match.group(1)
    return owner


_CORRECT = re.compile(r"List\s*<\s*Boolean\s*>\s+correct\s*=\s*Arrays\.asList\s*\(")
_CORRECT_CHECK = re.compile(
    r"if\s*\(\s*correct\.contains\s*\(\s*false\s*\)\s*\)\s*\{?\s*throw\s+new\s+AssertionError\s*\([^)]*\)\s*;\s*\}?\s*$"
)


def _gaps(spans: set[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """The parts of ``range(length)`` outside ``spans``."""
    out, at = [], 0
    for start, end in sorted(spans):
        out.append((at, start))
        at = end
    out.append((at, length))
    return out


def _server_source() -> str:
    return (Path(__file__).parent / "java_server" / "UniceJavac.java").read_text()


class Java(Language):
    name = "java"
    token_protocol = True
    reference_cases = True

    def missing_toolchain(self) -> str | None:
        missing = super().missing_toolchain()
        if missing is None and not Path(JAVATUPLES).exists():
            return f"java: {JAVATUPLES} not found (apt install libjavatuples-java)"
        return missing

    def _cases(
        self, test: str, reference: Reference | None = None
    ) -> tuple[list[tuple[int, int, str]], list[str], tuple[int, int], list[Check | None]]:
        """(edits to the test, case sources, main header span, host-side checks)."""
        mask = code_mask(test)
        header = find_code(test, _MAIN)
        if header is None:
            raise SplitError("no 'public static void main(String[] args)' in the Java test")
        open_brace = test.index("{", header.end())
        close = matching(test, open_brace, mask)
        body_start = open_brace + 1
        body = test[body_start:close]
        edits: list[tuple[int, int, str]] = []
        cases: list[str] = []
        checks: list[Check | None] = []
        # Expected maps built from constants: judged on the host when every use of the map
        # is one correct element's X.equals(map), and then not built in the program.
        maps, map_spans = constant_maps(body)
        builders = {span for spans in map_spans.values() for span in spans}
        outside = "".join(
            body[a:b] for a, b in _gaps(builders, len(body))
        )  # the body without the builders
        for name in list(maps):
            uses = len(re.findall(rf"\b{name}\b", outside))
            equals = len(re.findall(rf"\.\s*equals\s*\(\s*{name}\s*\)", outside))
            if uses != equals:
                del maps[name], map_spans[name]
        removed = {span for spans in map_spans.values() for span in spans}
        for start, end in statements(body):
            text = body[start:end]
            if (start, end) in removed:
                edits.append((body_start + start, body_start + end, ""))
                continue
            correct = _CORRECT.match(text)
            if correct:
                inner_close = matching(text, correct.end() - 1, code_mask(text))
                parts = [p for p in split_top_level(text[correct.end() : inner_close]) if p]
                calls = []
                for part in parts:
                    found = java_check(part, maps)
                    if found:
                        calls.append(f"__unice_value({len(cases)}, () -> ({found[0]}));")
                    else:
                        calls.append(f"__unice_case({len(cases)}, () -> ({part}));")
                    cases.append(part)
                    checks.append(found[1] if found else None)
                edits.append((body_start + start, body_start + end, "\n".join(calls)))
            elif _CORRECT_CHECK.match(text):
                edits.append((body_start + start, body_start + end, ""))
            elif ASSERTING.search(text):
                k = len(cases)
                cases.append(text)
                computed = java_throwing_check(text, k)
                if computed is None and reference is not None:
                    computed = java_statement(text, k, reference)
                if computed is not None:
                    checks.append(computed[1])
                    edits.append((body_start + start, body_start + end, computed[0]))
                    continue
                checks.append(None)
                edits.append(
                    (
                        body_start + start,
                        body_start + end,
                        f"__unice_block({k}, () -> {{ {text} }});",
                    )
                )
        if not cases:
            raise SplitError(
                "no assertion (correct list, throw AssertionError, assert) in the Java test"
            )
        return edits, cases, (header.start(), header.end()), checks

    def split(self, test: str) -> list[str]:
        return self._cases(test)[1]

    def driver(self, source: str, test: str, reference: Reference | None = None) -> Driver:
        edits, cases, (h_start, h_end), checks = self._cases(test, reference)
        # The support methods go into the class that holds main, just before main.
        edits.append(
            (
                h_start,
                h_end,
                SUPPORT + "\n    static void __unice_main(String[] __unice_args) throws Exception",
            )
        )
        rewritten = replace_spans(test, edits)
        text = f"{source}\n{rewritten}\n"
        main_class = enclosing_class(text, len(source) + 1 + h_start) or "Main"
        public = _PUBLIC_CLASS.search(text)
        file = f"{public.group(1) if public else main_class}.java"
        return Driver({file: text}, len(cases), f"{main_class} {file}", checks=tuple(checks))

    @property
    def compile_server(self) -> ServerSpec:
        """One warm javac for all programs (~0.15 CPU-s per program instead of ~1)."""
        return ServerSpec(
            files={"UniceJavac.java": _server_source()},
            build_argv=["javac", "-nowarn", "-d", "{dir}", "{dir}/UniceJavac.java"],
            run_argv=[
                "java",
                "-XX:+UseSerialGC",
                "-Xmx1g",
                "-XX:-UsePerfData",
                "-cp",
                "{dir}",
                "UniceJavac",
                JAVATUPLES,
            ],  # fmt: skip
        )

    def compile_argv(self, build: Path, mode: str = "") -> list[str]:
        return [
            "javac", "-J-Xmx512m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1",
            "-J-XX:-UsePerfData", "-nowarn", "-proc:none", "-encoding", "UTF-8", "-cp", JAVATUPLES,
            "-d", "classes", (mode.split() or ["", "Main.java"])[-1],
        ]  # fmt: skip

    def run_spec(self, memory_mb: int, mode: str = "") -> RunSpec:
        main_class = (mode.split() or ["Main"])[0]
        flags = [
            "-ea", f"-Xmx{memory_mb}m", "-Xss8m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData", "-XX:ActiveProcessorCount=1", "-Xshare:auto",
        ]  # fmt: skip
        return RunSpec(
            [
                "java",
                *flags,
                "-cp",
                f"{{build}}/classes:{JAVATUPLES}",
                main_class,
                "{start}",
                "{fd}",
            ],
            address_space_limit=False,
        )
