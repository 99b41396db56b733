"""C++ (``g++ -std=c++17``): HumanEval-X / MultiPL-E tests are ``int main(){ ... assert(...); }``.

Each ``assert(X)`` inside ``main`` becomes ``__unice_case(k, [&]() -> bool { return (X); })``:
the lambda runs only for ``k >= start``, and a failed condition is reported instead of
calling ``abort`` (which would end the process and every later assertion with it).
Exceptions escaping the candidate are caught per case (``std::bad_alloc`` is ``memory``).
MultiPL-E's C++ tests (``int main() { auto candidate = f; assert(...); }``) split the same way.

Host-side verdicts (the token protocol, ``languages/base.py``): an ``assert`` at the top level
of ``main`` of the form ``X == L``, ``X != L``, ``issame(X, L)`` (HumanEval-X's helper, exact
or with its ``abs(a[i]-b[i]) > tol``), ``abs(X - L) < T``, or a bare call ``f(...)`` /
``!f(...)`` / ``not (f(...))``, with ``L`` a constant, becomes
``__unice_value(k, [&]{ return (X); })``: the program writes X's value and the host judges it
(``compiled/checks.py``); ``L`` is not in the driver. With a reference solution
(``languages/computed.py``), an assert comparing with a value the test computes (in a loop
too) writes only the candidate's side, and the reference's run writes the other. Other
asserts keep the in-program case.
"""

from __future__ import annotations

import re
from pathlib import Path

from data_builders.execution.compiled.checks import Check
from data_builders.execution.compiled.languages.base import (
    Driver,
    Language,
    Prelude,
    RunSpec,
    SplitError,
    fast_linker,
)
from data_builders.execution.compiled.languages.checks import abs_check
from data_builders.execution.compiled.languages.computed import (
    Reference,
    computed_case,
    poly_case,
    sides,
)
from data_builders.execution.compiled.languages.cpp_support import MAIN, SUPPORT, SUPPORT_HEADERS
from data_builders.execution.compiled.languages.source import (
    closing,
    code_mask,
    find_calls,
    find_code,
    inside_loop,
    matching,
    replace_spans,
    single_call,
    split_top_level,
    strip_parens,
    top_level,
    top_level_statement,
)
from data_builders.execution.compiled.literals import NotLiteral, is_literal, parse_literal

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


_ISSAME = re.compile(r"\bbool\s+issame\s*\(([^)]*)\)\s*\{")
_EXACT_HELPER = re.compile(
    r"if\s*\(\s*(?:a\s*\[\s*i\s*\](?:\s*\[\s*j\s*\])?\s*!=\s*b\s*\[\s*i\s*\](?:\s*\[\s*j\s*\])?"
    r"|b\s*\[\s*w1\s*\]\s*!=\s*w2)\s*\)\s*return\s+false"
)
_CLOSE_HELPER = re.compile(
    r"if\s*\(\s*(?:std::)?f?abs\s*\(\s*a\s*\[\s*i\s*\]\s*-\s*b\s*\[\s*i\s*\]\s*\)\s*>\s*([0-9.eE+-]+)\s*\)\s*return\s+false"
)


def issame_helper(test: str) -> tuple[float, bool] | None:
    """HumanEval-X's ``issame(a, b)`` helper, when the test defines one of its known forms:
    ``(tol, float)``: element-wise exact (``tol`` 0) or failing on ``abs(a[i]-b[i]) > tol``,
    and whether its parameters hold ``float`` (the brace list is converted to them)."""
    match = find_code(test, _ISSAME.pattern)
    if match is None:
        return None
    body = test[match.end() : matching(test, match.end() - 1, code_mask(test))]
    if body.count("return false") != len(re.findall(r"return\s+false", body)):
        return None
    shapes = len(re.findall(r"return\s+false", body))
    exact, close = _EXACT_HELPER.findall(body), _CLOSE_HELPER.findall(body)
    size_check = len(re.findall(r"\ba\.size\(\)\s*!=\s*b\.size\(\)", body))
    size_check += len(re.findall(r"\ba\[i\]\.size\(\)\s*!=\s*b\[i\]\.size\(\)", body))
    nested = size_check == 2
    find_check = len(re.findall(r"b\.find\(w1\)\s*==\s*b\.end\(\)", body))
    if shapes != size_check + len(exact) + len(close) + find_check or not 1 <= size_check <= 2:
        return None
    if nested and (close or "[j]" not in body.replace(" ", "")):
        return None
    if close and not exact:
        return float(close[0]), "float" in match.group(1)
    if exact and not close:
        return 0.0, "float" in match.group(1)
    return None


def cpp_check(assertion: str, test: str) -> tuple[str, Check] | None:
    """``(X, check)`` when ``assert(assertion)`` compares an expression X with a constant
    the host can read; None leaves it to the program."""
    text = strip_parens(assertion)
    negate = False
    while True:
        prefix = re.match(r"(?:not\b|!(?!=))\s*", text)
        if prefix is None:
            break
        rest = text[prefix.end() :]
        if not (rest.startswith("(") and strip_parens(rest) != rest) and not single_call(rest):
            return None
        text, negate = strip_parens(rest), not negate
    if not text or top_level(text, ("&&", "||", "?", "and ", "or ")):
        return None
    try:
        return _cpp_check(text, test, negate, assertion)
    except (NotLiteral, ValueError, IndexError):
        return None


def _cpp_check(text: str, test: str, negate: bool, assertion: str) -> tuple[str, Check] | None:
    equal = top_level(text, ("==", "!="))
    if len(equal) > 1:
        return None
    if equal:
        ((i, op),) = equal
        left, right = text[:i].strip(), text[i + 2 :].strip()
        if is_literal(right, "cpp") and not is_literal(left, "cpp"):
            actual, literal = left, right
        elif is_literal(left, "cpp") and not is_literal(right, "cpp"):
            actual, literal = right, left
        else:
            return None
        expected = parse_literal(literal, "cpp")
        return actual, Check("cpp", "eq", expected, negate=(op == "!=") != negate, text=assertion)
    absolute = abs_check(text, "cpp", r"(?:std::)?f?abs\s*\(", negate, assertion)
    if absolute is not None:
        return absolute
    same = re.match(r"issame\s*\(", text)
    if same:
        if matching(text, same.end() - 1, code_mask(text)) != len(text) - 1:
            return None
        helper = issame_helper(test)
        args = split_top_level(text[same.end() : -1])
        if helper is None or len(args) != 2:
            return None
        literal = [is_literal(a, "cpp") for a in args]
        if literal.count(True) != 1:
            return None
        actual, expected = (args[1], args[0]) if literal[0] else (args[0], args[1])
        tol, f32 = helper
        check = Check(
            "cpp", "issame", parse_literal(expected, "cpp"), tol=tol, f32=f32, negate=negate,
            text=assertion,
        )  # fmt: skip
        return actual, check
    if single_call(text) and not is_literal(text, "cpp"):
        return text, Check("cpp", "truthy", negate=negate, text=assertion)
    return None


def cpp_computed(assertion: str, test: str, names: frozenset[str]) -> tuple[str, str, Check] | None:
    """``(candidate side, expected side, check)`` when ``assert(assertion)`` compares the
    candidate with a value the test computes (``X == Y``, ``X != Y``, ``issame(X, Y)``,
    HumanEval's ``abs(poly(xs, x)) < T``): ``languages/computed.py``; None otherwise."""
    text = strip_parens(assertion)
    if not text or top_level(text, ("&&", "||", "?", "and ", "or ")):
        return None
    equal = top_level(text, ("==", "!="))
    if len(equal) == 1:
        ((i, op),) = equal
        found = sides(text[:i].strip(), text[i + 2 :].strip(), names)
        if found is None:
            return None
        check = Check("cpp", "eq", negate=op == "!=", text=assertion, origin=found[2])
        return found[0], found[1], check
    if equal:
        return None
    same = re.match(r"issame\s*\(", text)
    if same:
        helper = issame_helper(test)
        whole = closing(text, same.end() - 1) == len(text) - 1
        args = split_top_level(text[same.end() : -1])
        if helper is None or not whole or len(args) != 2:
            return None
        found = sides(args[0], args[1], names)
        if found is None:
            return None
        tol, f32 = helper
        check = Check("cpp", "issame", tol=tol, f32=f32, text=assertion, origin=found[2])
        return found[0], found[1], check
    return poly_case(text, r"(?:std::)?f?abs\s*\(", names, "cpp", assertion)


def cpp_pair(first: str, second: str) -> str:
    """Both sides of a self-compared assertion as one C++ value (a ``std::pair``)."""
    return f"std::make_pair(({first}), ({second}))"


_NOT_MACROS = frozenset(
    ("auto", "bool", "char", "const", "double", "false", "float", "int", "long", "nullptr",
     "return", "short", "signed", "sizeof", "std", "true", "unsigned", "void")
)  # fmt: skip


def _macro_names(expression: str) -> set[str]:
    """The identifiers of ``expression`` outside strings (keywords aside): names a macro of
    the program could give another meaning."""
    mask = code_mask(expression)
    code = "".join(ch if keep else " " for ch, keep in zip(expression, mask, strict=True))
    return set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", code)) - _NOT_MACROS


class Cpp(Language):
    name = "cpp"
    token_protocol = True
    reference_cases = True
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

    def driver(self, source: str, test: str, reference: Reference | None = None) -> Driver:
        calls = self._asserts(test)
        match = find_code(test, _MAIN)
        assert match is not None
        body_start, body_end = self._main_body(test)
        body = test[body_start:body_end]
        edits, checks = [], []
        undefine: set[str] = set()
        for k, (start, o, close) in enumerate(calls):
            found = None
            in_loop = inside_loop(test, start)
            top = top_level_statement(body, start - body_start) and not in_loop
            if top:
                found = cpp_check(test[o + 1 : close], test)
            if found is None and reference is not None and (top or in_loop):
                computed = cpp_computed(test[o + 1 : close], test, reference.names)
                found = computed_case(k, computed, in_loop, reference, cpp_pair)
                if found is not None and reference.role == "candidate":
                    undefine.update(_macro_names(found[0]))
            checks.append(found[1] if found else None)
            if found:
                new = f"__unice_value({k}, [&]() {{ return ({found[0]}); }})"
            else:
                new = f"__unice_case({k}, [&]() -> bool {{ return ({test[o + 1 : close]}); }})"
            edits.append((start, close + 1, new))
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
        # A macro of the program must not turn the candidate's side of an assertion judged
        # from the reference run into the test's own expected variable (``#define
        # decode_cyclic(e) str``): every name in those sides is no macro in the test.
        undefs = "".join(f"#undef {name}\n" for name in sorted(undefine))
        text = f'#include "{PRELUDE}"\n{SUPPORT}\n{source}\n{undefs}{rewritten}\n{MAIN}'
        return Driver({"main.cpp": text}, len(calls), prelude=prelude, checks=tuple(checks))

    def compile_argv(
        self, build: Path, mode: str = "", prelude_dir: Path | None = None
    ) -> list[str]:
        include = [f"-I{prelude_dir}"] if prelude_dir is not None else []
        return ["g++", *self.flags, *include, *fast_linker(), "-o", "prog", "main.cpp",
                *self.libraries]  # fmt: skip

    def prelude_argv(self, prelude: Prelude) -> list[str]:
        # The same flags as the programs': GCC uses a precompiled header only for a compile
        # whose options match the ones it was made with.
        return ["g++", *self.flags, "-x", "c++-header", prelude.name, "-o", f"{prelude.name}.gch"]

    def run_spec(self, memory_mb: int, mode: str = "") -> RunSpec:
        return RunSpec(["{build}/prog", "{start}", "{fd}"])
