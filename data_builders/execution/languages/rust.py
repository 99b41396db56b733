"""Rust (``rustc --test``, debug build as ``cargo test`` makes it: overflow checks on).

HumanEval-X's Rust tests are ``#[cfg(test)] mod tests { #[test] fn test_x() { assert!(...);
assert_eq!(a, b); ... } }``. Each ``assert!``/``assert_eq!``/``assert_ne!`` becomes
``__unice_case(k, || { assert_eq!(a, b); true })``: the case's panic is caught, and a panic
whose message starts with "assertion" is a failed assertion, any other (an index out of
bounds, an overflow in the candidate) a runtime error. MultiPL-E's Rust tests put the
assertions in ``fn main`` instead: that driver is built as a plain binary with rustc's default
edition, as MultiPL-E's evaluator builds it (``rustc F -o B``). Start case and
result descriptor come from the environment (the test binary owns its command line).
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from data_builders.execution.languages.base import Driver, Language, RunSpec, SplitError
from data_builders.execution.languages.source import find_calls, replace_spans

_MACROS = r"assert(?:_eq|_ne)?!"

SUPPORT = r"""
#[allow(dead_code)]
fn __unice_mark_text(what: &str, rest: &str) {
    use std::io::Write;
    let fd = std::env::var("UNICE_FD").unwrap_or_else(|_| "2".to_string());
    if let Ok(mut out) = std::fs::OpenOptions::new().write(true).open(format!("/proc/self/fd/{}", fd)) {
        let _ = out.write_all(format!("{} {}\n", what, rest).as_bytes());
    }
}

#[allow(dead_code)]
fn __unice_mark(what: &str, k: usize) {
    __unice_mark_text(what, &k.to_string());
}

#[allow(dead_code)]
fn __unice_case<F: FnOnce() -> bool>(k: usize, f: F) -> bool {
    let start: usize = std::env::var("UNICE_START").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    if k < start {
        return true;
    }
    __unice_mark("S", k);
    std::panic::set_hook(Box::new(|_| {}));
    let code = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(true) => "P".to_string(),
        Ok(false) => "F".to_string(),
        Err(payload) => {
            let message = payload
                .downcast_ref::<String>()
                .map(|s| s.as_str())
                .or_else(|| payload.downcast_ref::<&str>().copied())
                .unwrap_or("");
            if message.starts_with("assertion") {
                "F".to_string()
            } else {
                format!("E {}", message.split_whitespace().collect::<Vec<_>>().join(" "))
            }
        }
    };
    let (code, detail) = match code.split_once(' ') {
        Some((c, d)) => (c.to_string(), format!("{} {}", k, d)),
        None => (code.to_string(), k.to_string()),
    };
    __unice_mark_text(&code, &detail);
    true
}
"""


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


class Rust(Language):
    name = "rust"
    stop_tokens = ("\n}",)
    executables = ("rustc",)
    install_hint = "apt install rustc (or rustup)"
    compiler_address_space_limit = False  # rustc reserves address space it never touches

    def missing_toolchain(self) -> str | None:
        return super().missing_toolchain() or (None if _rustc() else "rust: rustc does not run")

    def _calls(self, test: str) -> list[tuple[int, int, int]]:
        calls = find_calls(test, _MACROS)
        if not calls:
            raise SplitError("no assert!/assert_eq!/assert_ne! in the Rust test")
        return calls

    def split(self, test: str) -> list[str]:
        return [test[start : close + 1] for start, _, close in self._calls(test)]

    def driver(self, source: str, test: str) -> Driver:
        edits = [
            (start, close + 1, f"__unice_case({k}, || {{ {test[start : close + 1]}; true }})")
            for k, (start, _, close) in enumerate(self._calls(test))
        ]
        # Last: Rust items need no order, and MultiPL-E's test starts by closing the function.
        text = f"{source}\n{replace_spans(test, edits)}\n{SUPPORT}"
        mode = "test" if "#[test]" in test else "main"
        return Driver({"main.rs": text}, len(edits), mode)

    def compile_argv(self, build: Path, mode: str = "") -> list[str]:
        rustc = _rustc() or "rustc"
        # HumanEval-X's #[test] modules build as Cargo's `cargo test` (edition 2021); MultiPL-E's
        # asserts in `fn main` as MultiPL-E's evaluator builds them, `rustc F -o B`: rustc's
        # default edition (2015), where e.g. `TryFrom` is not in the prelude.
        edition = ["--edition", "2021", "--test"] if mode != "main" else []
        return [rustc, *edition, "-A", "warnings", "-o", "prog", "main.rs"]

    def run_spec(self, memory_mb: int, mode: str = "") -> RunSpec:
        return RunSpec(
            ["{build}/prog"] if mode == "main" else ["{build}/prog", "--test-threads=1", "-q"],
            env={"UNICE_START": "{start}", "UNICE_FD": "{fd}"},
        )
