"""C++ (``g++ -std=c++17``): HumanEval-X / MultiPL-E tests are ``int main(){ ... assert(...); }``.

Each ``assert(X)`` inside ``main`` becomes ``__unice_case(k, [&]() -> bool { return (X); })``:
the lambda runs only for ``k >= start``, and a failed condition is reported instead of
calling ``abort`` (which would end the process and every later assertion with it).
Exceptions escaping the candidate are caught per case (``std::bad_alloc`` is ``memory``).
MultiPL-E's C++ tests (``int main() { auto candidate = f; assert(...); }``) split the same way.
"""

from __future__ import annotations

import re
from pathlib import Path

from data_builders.execution.languages.base import Driver, Language, Prelude, RunSpec, SplitError
from data_builders.execution.languages.source import (
    code_mask,
    find_calls,
    find_code,
    matching,
    replace_spans,
)

SUPPORT_HEADERS = ("<new>", "<exception>")
SUPPORT = r"""
extern "C" long write(int, const void*, unsigned long);
static int __unice_start = 0, __unice_fd = 2;
static void __unice_mark(char c, int k, const char* detail = 0) {
    char buf[256], digits[16];
    int n = 0, d = 0;
    buf[n++] = c;
    buf[n++] = ' ';
    do { digits[d++] = (char)('0' + k % 10); k /= 10; } while (k);
    while (d) buf[n++] = digits[--d];
    if (detail) {
        buf[n++] = ' ';
        for (int i = 0; detail[i] && n < 250; i++) buf[n++] = detail[i] == '\n' ? ' ' : detail[i];
    }
    buf[n++] = '\n';
    write(__unice_fd, buf, (unsigned long)n);
}
static int __unice_int(const char* s) {
    int v = 0;
    while (*s >= '0' && *s <= '9') v = v * 10 + (*s++ - '0');
    return v;
}
template <class F> static bool __unice_case(int k, F f) {
    if (k < __unice_start) return true;
    __unice_mark('S', k);
    try {
        __unice_mark(f() ? 'P' : 'F', k);
    } catch (const std::bad_alloc&) {
        __unice_mark('M', k);
    } catch (const std::exception& e) {
        __unice_mark('E', k, e.what());
    } catch (...) {
        __unice_mark('E', k);
    }
    return true;
}
"""

MAIN = r"""
int main(int argc, char** argv) {
    if (argc > 2) { __unice_start = __unice_int(argv[1]); __unice_fd = __unice_int(argv[2]); }
    __unice_main();
    return 0;
}
"""

_MAIN = r"\bint\s+main\s*\([^)]*\)\s*\{"
PRELUDE = "unice_prelude.h"
# What may precede a program's first token: blank space, comments, ``#include <header>``.
_SPACE_OR_COMMENT = re.compile(r"\s+|//[^\n]*|/\*.*?\*/", re.S)
_SYSTEM_INCLUDE = re.compile(r"#[ \t]*include[ \t]*(<[\w./+-]+>)[ \t]*(?=\n|$)")


def leading_system_includes(source: str) -> list[str]:
    """The ``<header>`` includes a program starts with (before any other line but comments):
    what every program of a problem set shares (HumanEval-X's ``<stdio.h>``, ``<vector>``...,
    MultiPL-E's ``<bits/stdc++.h>``), so they can be precompiled once."""
    headers, at = [], 0
    while at < len(source):
        skipped = _SPACE_OR_COMMENT.match(source, at)
        if skipped:
            at = skipped.end()
            continue
        include = _SYSTEM_INCLUDE.match(source, at)
        if include is None:
            break
        headers.append(include.group(1))
        at = include.end()
    return headers


class Cpp(Language):
    name = "cpp"
    stop_tokens = ("\n}",)
    executables = ("g++",)
    install_hint = "apt install g++"
    compiler_address_space_limit = True
    # No -O, as MultiPL-E's evaluator compiles (``g++ F -o B -std=c++17``): undefined behaviour
    # in a candidate then acts as it does there (with -O1 a non-void function that falls off
    # its end without `return` broke a program that passes unoptimised).
    flags = ("-std=c++17", "-w")
    libraries = ("-lcrypto",)  # HumanEval-X's string_to_md5 uses OpenSSL's MD5

    def _main_body(self, test: str) -> tuple[int, int]:
        match = find_code(test, _MAIN)
        if match is None:
            raise SplitError("no 'int main(...) {' in the C++ test")
        close = matching(test, match.end() - 1, code_mask(test))
        return match.end(), close

    def _asserts(self, test: str) -> list[tuple[int, int, int]]:
        body_start, body_end = self._main_body(test)
        calls = [c for c in find_calls(test, "assert") if body_start <= c[0] < body_end]
        if not calls:
            raise SplitError("no assert(...) in the C++ test's main")
        return calls

    def split(self, test: str) -> list[str]:
        return [test[open_ + 1 : close].strip() for _, open_, close in self._asserts(test)]

    def driver(self, source: str, test: str) -> Driver:
        calls = self._asserts(test)
        match = find_code(test, _MAIN)
        assert match is not None
        _, body_end = self._main_body(test)
        edits = [
            (
                start,
                close + 1,
                f"__unice_case({k}, [&]() -> bool {{ return ({test[o + 1 : close]}); }})",
            )
            for k, (start, o, close) in enumerate(calls)
        ]
        edits.append((match.start(), match.end(), "static int __unice_main() {"))
        edits.append((body_end, body_end, "\nreturn 0;\n"))
        rewritten = replace_spans(test, edits)
        # The support code goes first, with no header but <new>, so it neither supplies
        # includes the program forgot nor lands inside a function the test closes
        # (MultiPL-E's tests start with the "}" the completion was cut before).
        # The support headers and the program's leading ones, in that order (as before the
        # prelude existed), come from one precompiled header shared by every program that
        # starts with the same includes; the program's own #include lines then do nothing.
        headers = [*SUPPORT_HEADERS, *leading_system_includes(source)]
        prelude = Prelude(PRELUDE, "".join(f"#include {h}\n" for h in headers))
        text = f'#include "{PRELUDE}"\n{SUPPORT}\n{source}\n{rewritten}\n{MAIN}'
        return Driver({"main.cpp": text}, len(calls), prelude=prelude)

    def compile_argv(
        self, build: Path, mode: str = "", prelude_dir: Path | None = None
    ) -> list[str]:
        include = [f"-I{prelude_dir}"] if prelude_dir is not None else []
        return ["g++", *self.flags, *include, "-o", "prog", "main.cpp", *self.libraries]

    def prelude_argv(self, prelude: Prelude) -> list[str]:
        # The same flags as the programs': GCC uses a precompiled header only for a compile
        # whose options match the ones it was made with.
        return ["g++", *self.flags, "-x", "c++-header", prelude.name, "-o", f"{prelude.name}.gch"]

    def run_spec(self, memory_mb: int, mode: str = "") -> RunSpec:
        return RunSpec(["{build}/prog", "{start}", "{fd}"])
