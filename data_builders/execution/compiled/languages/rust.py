"""Rust (``rustc --test``, debug build as ``cargo test`` makes it: overflow checks on).

HumanEval-X's Rust tests are ``#[cfg(test)] mod tests { #[test] fn test_x() { assert!(...);
assert_eq!(a, b); ... } }``. Each ``assert!``/``assert_eq!``/``assert_ne!`` becomes
``__unice_case(k, || { assert_eq!(a, b); true })``: the case's panic is caught, and a panic
whose message starts with "assertion" is a failed assertion, any other (an index out of
bounds, an overflow in the candidate) a runtime error. MultiPL-E's Rust tests put the
assertions in ``fn main`` instead: that driver is built as a plain binary with rustc's default
edition, as MultiPL-E's evaluator builds it (``rustc F -o B``). Start case and
result descriptor come from the environment (the test binary owns its command line).

Host-side verdicts (the token protocol, ``languages/base.py``): ``assert!(X == L)`` (``!=``),
``assert_eq!(X, L)`` / ``assert_ne!`` (either order), ``assert!((X - L).abs() < T)``,
``assert!(X < T)`` (``<=``: a one-sided bound) and a bare ``assert!(f(...))`` /
``assert!(!f(...))``, with ``L`` a constant (``vec![...]``, arrays,
tuples, strings with ``.to_string()`` / ``String::from``, chars, numbers with suffixes,
``Some``/``None``), become ``__unice_value(k, || ...)``: the program writes X's value
(``__UniceSer``, implemented for the standard types; any other type is written opaque) and
the host applies Rust's ``==`` (``compiled/checks.py``). With a reference solution
(``languages/computed.py``), ``assert_eq!(X, Y)`` / ``assert!(X == Y)`` (``!=``,
``assert_ne!``) comparing the candidate with a value the test computes (``== v_empty``,
``== odd_sum``) writes only the candidate's side (a borrow of it: the test's variable stays
usable for the next assertion), and the reference's run writes the other. The token is read from stdin at the
start of every test function. The support code is a crate of its own, compiled once
(``RUNTIME``, ``rust_support.py``), and programs link the toolchain's shared ``libstd``:
see docs/languages.md.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

from data_builders.execution.compiled.checks import Check
from data_builders.execution.compiled.languages.base import (
    Batch,
    Driver,
    Language,
    Prelude,
    RunSpec,
    SplitError,
)
from data_builders.execution.compiled.languages.checks import abs_check, literal_side
from data_builders.execution.compiled.languages.computed import Reference, computed_case, sides
from data_builders.execution.compiled.languages.rust_support import (
    LINK_RUNTIME,
    RUNTIME,
    RUNTIME_CRATE,
    RUNTIME_FILE,
    RUNTIME_LIB,
)
from data_builders.execution.compiled.languages.source import (
    find_calls,
    inside_loop,
    replace_spans,
    single_call,
    split_top_level,
    statement_of_function,
    strip_parens,
    top_level,
)
from data_builders.execution.compiled.literals import NotLiteral, is_literal, parse_literal

_MACROS = r"assert(?:_eq|_ne)?!"

_ASSERT = re.compile(r"(assert|assert_eq|assert_ne)!\s*\(")

_MEMBER = "__unice_p"
"""A batch member's module: ``__unice_p3``, run by the test filter ``__unice_p3::``."""

_UNSHAREABLE = re.compile(
    r"crate\s*::|super\s*::|#\s*!|no_mangle|export_name|link_section|#\s*\[\s*used"
    r"|#\s*\[\s*link|\bextern\b|\basm!|global_asm|naked|macro_export|include(?:_str|_bytes)?!"
    r"|type_name|module_path!|file!|line!|column!|Location|args(?:_os)?\s*\(|cmdline|__unice_p"
)
"""What keeps a program out of a batch (``Rust.batch``): anything that would compile or run
differently as a module of a shared crate than as its own crate (paths from the crate root
or a parent, crate-level ``#!`` attributes, names that read the module path or the source
position, the command line, which carries the member's test filter), and anything by which
code of one member could run in another member's process (symbols exported to the linker,
link sections run before ``main``, inline assembly, macros exported to the crate). Such a
program is compiled alone, as every program was before."""


def rust_check(call: str) -> tuple[str, Check] | None:
    """``(X, check)`` for ``assert!(X == L)`` (``!=``), ``assert_eq!(X, L)`` (either order,
    ``assert_ne!``), ``assert!((X - L).abs() < T)``, or a bare ``assert!(f(...))`` /
    ``assert!(!f(...))`` with ``L`` a constant; None leaves it to the program."""
    macro = _ASSERT.match(call)
    if macro is None:
        return None
    args = [a for a in split_top_level(call[macro.end() : -1]) if a]
    try:
        if macro.group(1) in ("assert_eq", "assert_ne"):
            if len(args) < 2:
                return None
            sides = literal_side(args[0], args[1], "rust")
            if sides is None:
                return None
            check = Check(
                "rust", "eq", parse_literal(sides[1], "rust"),
                negate=macro.group(1) == "assert_ne", text=call,
            )  # fmt: skip
            return sides[0], check
        if not args:
            return None
        text, negate = strip_parens(args[0]), False
        while text.startswith("!") and not text.startswith("!="):
            rest = text[1:].lstrip()
            grouped = rest.startswith("(") and strip_parens(rest) != rest
            if not grouped and not single_call(rest):
                return None
            text, negate = strip_parens(rest), not negate
        if not text or top_level(text, ("&&", "||")):
            return None
        equal = top_level(text, ("==", "!="))
        if len(equal) > 1:
            return None
        if equal:
            ((i, op),) = equal
            sides = literal_side(text[:i].strip(), text[i + 2 :].strip(), "rust")
            if sides is None:
                return None
            expected = parse_literal(sides[1], "rust")
            check = Check("rust", "eq", expected, negate=negate != (op == "!="), text=call)
            return sides[0], check
        close = re.fullmatch(r"\((.*)\)\s*\.\s*abs\s*\(\s*\)\s*(<=|<)\s*(.+)", text, re.S)
        if close and strip_parens("(" + close.group(1) + ")") == close.group(1).strip():
            inner = f"abs({close.group(1)}) {close.group(2)} {close.group(3)}"
            return abs_check(inner, "rust", r"abs\s*\(", negate, call)
        if re.match(r"f(?:32|64)\s*::\s*abs\s*\(", text):
            return abs_check(text, "rust", r"f(?:32|64)\s*::\s*abs\s*\(", negate, call)
        bound = _one_sided_bound(text)
        if bound is not None:
            actual, op, limit = bound
            check = Check("rust", "below", limit, inclusive=op == "<=", negate=negate, text=call)
            return actual, check
        if single_call(text) and not is_literal(text, "rust"):
            return text, Check("rust", "truthy", negate=negate, text=call)
    except (NotLiteral, ValueError, IndexError):
        return None
    return None


def _one_sided_bound(text: str) -> tuple[str, str, int | float] | None:
    """``(X, op, T)`` of ``X < T`` / ``X <= T`` (``truncate_number(&t1) < 0.000001``,
    ``mad(v) - 2.0 / 3.0 < 0.000001``) with a numeric constant ``T``; None for anything
    else, and for a text with another angle bracket (a generic, a shift, a closure's
    ``->`` would make the ``<`` ambiguous)."""
    found = top_level(text, ("<=", "<"))
    if len(found) != 1 or text.count("<") != 1 or ">" in text:
        return None
    ((i, op),) = found
    left, right = text[:i].strip(), text[i + len(op) :].strip()
    if not left or is_literal(left, "rust") or not is_literal(right, "rust"):
        return None
    limit = parse_literal(right, "rust")
    if isinstance(limit, bool) or not isinstance(limit, int | float):
        return None
    return left, op, limit


def rust_computed(call: str, names: frozenset[str]) -> tuple[str, str, Check] | None:
    """``(candidate side, expected side, check)`` when ``call`` (``assert_eq!(X, Y)``,
    ``assert_ne!``, ``assert!(X == Y)``, ``!=``) compares the candidate with a value the test
    computes: ``languages/computed.py``; None otherwise."""
    macro = _ASSERT.match(call)
    if macro is None:
        return None
    args = [a for a in split_top_level(call[macro.end() : -1]) if a]
    if macro.group(1) in ("assert_eq", "assert_ne"):
        if len(args) < 2:
            return None
        left, right, negate = args[0], args[1], macro.group(1) == "assert_ne"
    else:
        text = strip_parens(args[0]) if args else ""
        if not text or top_level(text, ("&&", "||")):
            return None
        equal = top_level(text, ("==", "!="))
        if len(equal) != 1:
            return None
        ((i, op),) = equal
        left, right, negate = text[:i].strip(), text[i + 2 :].strip(), op == "!="
    found = sides(left, right, names)
    if found is None:
        return None
    check = Check("rust", "eq", negate=negate, text=call, origin=found[2])
    return found[0], found[1], check


def rust_pair(first: str, second: str) -> str:
    """Both sides of a self-compared assertion as one Rust value (a tuple)."""
    return f"(({first}), ({second}))"


_TEST_FN = r"(?:#\[test\]\s*fn\s+\w+|\bfn\s+main)\s*\(\s*\)\s*\{"


@functools.lru_cache(maxsize=1)
def _rustc() -> str | None:
    """The real compiler (not rustup's proxy, which needs $HOME inside the sandbox)."""
    proxy = shutil.which("rustc")
    if proxy is None:
        return None
    try:
        sysroot = subprocess.run(
            [proxy, "--print", "sysroot"], capture_output=True, text=True, timeout=60, check=True
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    real = Path(sysroot, "bin", "rustc")
    return str(real) if real.exists() else os.path.realpath(proxy)


def _ask_rustc(*args: str) -> str:
    """What the compiler prints for ``args`` ("" when it cannot say)."""
    try:
        done = subprocess.run(
            [_rustc() or "rustc", *args], capture_output=True, text=True, timeout=60, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout


@functools.lru_cache(maxsize=1)
def _rustc_version() -> str:
    """``rustc -V`` of the compiler in use (its runtime crate is made for it alone)."""
    return " ".join(_ask_rustc("-V").split()) or "rustc (unknown version)"


@functools.lru_cache(maxsize=1)
def _dynamic_std() -> list[str]:
    """Link the toolchain's shared ``libstd`` (an rpath into the sysroot, which the read-only
    run sandbox sees), not a copy of it in every binary: the link, a build's largest step,
    takes about a third of the time. The same standard library code runs; a toolchain
    without ``libstd-*.so`` keeps the static link."""
    target = _ask_rustc("--print", "target-libdir").strip()
    if not target or "," in target or not list(Path(target).glob("libstd-*.so")):
        return []
    return ["-C", "prefer-dynamic", "-C", f"link-arg=-Wl,-rpath,{target}"]


class Rust(Language):
    name = "rust"
    compiler_address_space_limit = False  # rustc reserves address space it never touches
    token_protocol = True
    reference_cases = True
    # rustc's start-up (loading std's metadata) and its link are most of a HumanEval-X
    # program's 0.13 s compile: sixteen canonical solutions as one crate compile in 0.25-0.31 s
    # (8 programs/batch: label 22.5 programs/s on canonical + 3 mutants of 40 tasks, 16: 25.5)
    compile_batch = 16

    def missing_toolchain(self) -> str | None:
        return super().missing_toolchain() or (None if _rustc() else "rust: rustc does not run")

    def _calls(self, test: str) -> list[tuple[int, int, int]]:
        calls = find_calls(test, _MACROS)
        if not calls:
            raise SplitError("no assert!/assert_eq!/assert_ne! in the Rust test")
        return calls

    def split(self, test: str) -> list[str]:
        return [test[start : close + 1] for start, _, close in self._calls(test)]

    def driver(self, source: str, test: str, reference: Reference | None = None) -> Driver:
        edits, checks = [], []
        for k, (start, _, close) in enumerate(self._calls(test)):
            call = test[start : close + 1]
            in_loop = inside_loop(test, start)
            found = None if in_loop else rust_check(call)
            value = found[0] if found else ""
            wanted = found is None and reference is not None
            if wanted and (in_loop or statement_of_function(test, start, _TEST_FN)):
                computed = rust_computed(call, reference.names)
                found = computed_case(k, computed, in_loop, reference, rust_pair)
                value = f"&({found[0]})" if found else ""  # the test may use it again
            checks.append(found[1] if found else None)
            if found:
                new = (
                    f"__unice_value({k}, || {{ let __unice_v = {value};"
                    " (&&__UniceWrap(&__unice_v)).__unice_text() })"
                )
            else:
                new = f"__unice_case({k}, || {{ {test[start : close + 1]}; true }})"
            edits.append((start, close + 1, new))
        # The token is taken first thing in every test function (and fn main), before the
        # test's own code calls the program.
        for entry in re.finditer(r"(?:#\[test\]\s*fn\s+\w+|\bfn\s+main)\s*\(\s*\)\s*\{", test):
            edits.append((entry.end(), entry.end(), " __unice_token();"))
        # Last: Rust items need no order, and MultiPL-E's test starts by closing the function.
        text = f"{source}\n{replace_spans(test, edits)}\n{LINK_RUNTIME}"
        mode = "test" if "#[test]" in test else "main"
        # (the compiler's version in the text: a new rustc gets its own runtime crate)
        runtime = Prelude(RUNTIME_FILE, f"// {_rustc_version()}\n{RUNTIME}")
        shareable = mode == "test" and _UNSHAREABLE.search(source) is None
        return Driver(
            {"main.rs": text}, len(checks), mode, runtime, tuple(checks), shareable=shareable
        )

    def batch(self, drivers: list[Driver]) -> Batch:
        """Each driver's ``main.rs`` becomes the module file ``pI.rs`` of one test crate, its
        tests run by the filter ``__unice_pI::``. A module file's lines are its own build's
        lines, so the compiler's messages name the member and the line it would name alone."""
        if len(drivers) < 2 or not all(d.shareable for d in drivers):
            raise ValueError("a Rust batch holds two or more shareable drivers")
        files = {f"p{i}.rs": d.files["main.rs"] for i, d in enumerate(drivers)}
        files["main.rs"] = "".join(
            f'#[path = "p{i}.rs"]\nmod {_MEMBER}{i};\n' for i in range(len(drivers))
        )
        n_cases = sum(d.n_cases for d in drivers)
        driver = Driver(files, n_cases, "test", drivers[0].prelude)
        return Batch(driver, tuple((f"{_MEMBER}{i}::",) for i in range(len(drivers))))

    def batch_culprits(self, log: str, n_members: int) -> set[int]:
        named = {int(i) for i in re.findall(r"-->\s*p(\d+)\.rs:\d+", log)}
        return {i for i in named if i < n_members}

    def compile_argv(
        self, build: Path, mode: str = "", prelude_dir: Path | None = None
    ) -> list[str]:
        rustc = _rustc() or "rustc"
        # HumanEval-X's #[test] modules build as Cargo's `cargo test` (edition 2021); MultiPL-E's
        # asserts in `fn main` as MultiPL-E's evaluator builds them, `rustc F -o B`: rustc's
        # default edition (2015), where e.g. `TryFrom` is not in the prelude.
        edition = ["--edition", "2021", "--test"] if mode != "main" else []
        argv = [rustc, *edition, "-A", "warnings", *_dynamic_std()]
        if prelude_dir is None:  # (what the build cache's key is made of)
            return [*argv, "-o", "prog", "main.rs"]
        if (prelude_dir / RUNTIME_LIB).exists():
            lib = prelude_dir / RUNTIME_LIB
            return [*argv, "--extern", f"{RUNTIME_CRATE}={lib}", "-o", "prog", "main.rs"]
        # The shared runtime crate could not be made: make it in the build folder first.
        runtime = self.prelude_argv(Prelude(str(prelude_dir / RUNTIME_FILE), ""))
        program = [*argv, "--extern", f"{RUNTIME_CRATE}={RUNTIME_LIB}", "-o", "prog", "main.rs"]
        return ["sh", "-c", f"{shlex.join(runtime)} && {shlex.join(program)}"]

    def prelude_argv(self, prelude: Prelude) -> list[str]:
        rustc = _rustc() or "rustc"
        return [
            rustc, "--edition", "2021", "--crate-type", "rlib", "--crate-name", RUNTIME_CRATE,
            "-A", "warnings", "-o", RUNTIME_LIB, prelude.name,
        ]  # fmt: skip

    def run_spec(self, memory_mb: int, mode: str = "") -> RunSpec:
        return RunSpec(
            ["{build}/prog"] if mode == "main" else ["{build}/prog", "--test-threads=1", "-q"],
            env={"UNICE_START": "{start}", "UNICE_FD": "{fd}"},
        )
