"""Java (``javac`` / ``java -ea``, javatuples on the class path).

HumanEval-X tests build ``List<Boolean> correct = Arrays.asList(e1, ..., en)`` and throw if
it contains ``false``: each ``e_k`` becomes a case. Other statements of ``main`` that throw
``AssertionError`` (a loop of random checks), and MultiPL-E's ``assert(...)`` statements
(its ``main`` sits in ``class Problem``, which is then the class run), become one case each. One JVM runs every case of a program (start-up is
paid once per program, not per assertion).
"""

from __future__ import annotations

import re
from pathlib import Path

from data_builders.execution.compile_server import ServerSpec
from data_builders.execution.languages.base import Driver, Language, RunSpec, SplitError
from data_builders.execution.languages.source import (
    code_mask,
    find_code,
    matching,
    replace_spans,
    split_top_level,
    statements,
)

JAVATUPLES = "/usr/share/java/javatuples.jar"

SUPPORT = r"""
    static int __unice_start = 0;
    static java.io.PrintStream __unice_out = System.err;
    static void __unice_mark(String what, Object k) { __unice_out.print(what + " " + k + "\n"); __unice_out.flush(); }
    interface __UniceCheck { boolean check() throws Throwable; }
    interface __UniceBlock { void run() throws Throwable; }
    static void __unice_case(int k, __UniceCheck f) {
        if (k < __unice_start) return;
        __unice_mark("S", k);
        try { __unice_mark(f.check() ? "P" : "F", k); }
        catch (AssertionError e) { __unice_mark("F", k); }
        catch (OutOfMemoryError e) { __unice_mark("M", k); }
        catch (Throwable e) { __unice_mark("E", k + " " + String.valueOf(e).replaceAll("\\s+", " ")); }
    }
    static void __unice_block(int k, __UniceBlock r) {
        __unice_case(k, () -> { r.run(); return true; });
    }
    public static void main(String[] args) throws Exception {
        if (args.length > 1) {
            __unice_start = Integer.parseInt(args[0]);
            __unice_out = new java.io.PrintStream(new java.io.FileOutputStream("/proc/self/fd/" + args[1]), true);
        }
        __unice_main(args);
        System.exit(0);
    }
"""

_MAIN = (
    r"public\s+static\s+void\s+main\s*\(\s*String\s*(?:\[\]\s*\w+|\w+\s*\[\]|\.\.\.\s*\w+)\s*\)"
    r"(?:\s*throws\s+[\w.]+(?:\s*,\s*[\w.]+)*)?"  # replaced by "throws Exception"
)
_CLASS_NAME = re.compile(r"\bclass\s+(\w+)")
_PUBLIC_CLASS = re.compile(r"\bpublic\s+(?:final\s+)?class\s+(\w+)")
_CORRECT = re.compile(r"List\s*<\s*Boolean\s*>\s+correct\s*=\s*Arrays\.asList\s*\(")
_CORRECT_CHECK = re.compile(
    r"if\s*\(\s*correct\.contains\s*\(\s*false\s*\)\s*\)\s*\{?\s*throw\s+new\s+AssertionError\s*\([^)]*\)\s*;\s*\}?\s*$"
)
_ASSERTING = re.compile(r"throw\s+new\s+AssertionError|\bassert\b")


def _server_source() -> str:
    return (Path(__file__).parent / "java_server" / "UniceJavac.java").read_text()


class Java(Language):
    name = "java"
    stop_tokens = ("\n    }\n",)
    executables = ("javac", "java")
    install_hint = "apt install default-jdk-headless libjavatuples-java"

    def missing_toolchain(self) -> str | None:
        missing = super().missing_toolchain()
        if missing is None and not Path(JAVATUPLES).exists():
            return f"java: {JAVATUPLES} not found (apt install libjavatuples-java)"
        return missing

    def _cases(self, test: str) -> tuple[list[tuple[int, int, str]], list[str], tuple[int, int]]:
        """(edits to the test, case sources, main header span)."""
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
        for start, end in statements(body):
            text = body[start:end]
            correct = _CORRECT.match(text)
            if correct:
                inner_close = matching(text, correct.end() - 1, code_mask(text))
                parts = [p for p in split_top_level(text[correct.end() : inner_close]) if p]
                calls = []
                for part in parts:
                    calls.append(f"__unice_case({len(cases)}, () -> ({part}));")
                    cases.append(part)
                edits.append((body_start + start, body_start + end, "\n".join(calls)))
            elif _CORRECT_CHECK.match(text):
                edits.append((body_start + start, body_start + end, ""))
            elif _ASSERTING.search(text):
                k = len(cases)
                cases.append(text)
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
        return edits, cases, (header.start(), header.end())

    def split(self, test: str) -> list[str]:
        return self._cases(test)[1]

    def driver(self, source: str, test: str) -> Driver:
        edits, cases, (h_start, h_end) = self._cases(test)
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
        main_at = len(source) + 1 + h_start
        mask = code_mask(text)
        owners = [m for m in _CLASS_NAME.finditer(text[:main_at]) if mask[m.start()]]
        main_class = owners[-1].group(1) if owners else "Main"
        public = _PUBLIC_CLASS.search(text)
        file = f"{public.group(1) if public else main_class}.java"
        return Driver({file: text}, len(cases), f"{main_class} {file}")

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
