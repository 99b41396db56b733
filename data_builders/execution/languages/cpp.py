"""C++ (``g++ -std=c++17``): HumanEval-X / MultiPL-E tests are ``int main(){ ... assert(...); }``.

Each ``assert(X)`` inside ``main`` becomes ``__unice_case(k, [&]() -> bool { return (X); })``:
the lambda runs only for ``k >= start``, and a failed condition is reported instead of
calling ``abort`` (which would end the process and every later assertion with it).
Exceptions escaping the candidate are caught per case (``std::bad_alloc`` is ``memory``).
MultiPL-E's C++ tests (``int main() { auto candidate = f; assert(...); }``) split the same way.
"""

from __future__ import annotations

from pathlib import Path

from data_builders.execution.languages.base import Driver, Language, RunSpec, SplitError
from data_builders.execution.languages.source import (
    code_mask,
    find_calls,
    find_code,
    matching,
    replace_spans,
)

SUPPORT = r"""
#include <new>
#include <exception>
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


class Cpp(Language):
    name = "cpp"
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
        text = f"{SUPPORT}\n{source}\n{rewritten}\n{MAIN}"
        return Driver({"main.cpp": text}, len(calls))

    def compile_argv(self, build: Path, mode: str = "") -> list[str]:
        return ["g++", *self.flags, "-o", "prog", "main.cpp", *self.libraries]

    def run_spec(self, memory_mb: int, mode: str = "") -> RunSpec:
        return RunSpec(["{build}/prog", "{start}", "{fd}"])
