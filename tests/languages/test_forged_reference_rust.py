"""Rust's assertions judged from a reference run: forgeries never pass, controls do.

The Rust part of ``test_forged_reference_cases.py``: ``assert_eq!(X, v_empty)``, ``assert!(X
== v_empty)``, ``assert_eq!(X, odd_sum)`` (variables the test computes), a loop's
``assert_eq!(add(i, 1), i + 1)`` and ``assert_eq!(twice(v), twice(v))`` (the program against
itself) are judged on the host, the expected sides from the reference solution's own run.
Each attack is a wrong program that also forges reports (the attacks of the Rust forgery
suite, ``test_forged_verdicts.py``); the controls pass with no assertion judged in the
program, and the variables the test uses again stay usable (the value case borrows them).
"""

from __future__ import annotations

import pytest

from data_builders.execution.compiled.languages import get_language
from data_builders.execution.compiled.languages.computed import Reference, defined_names
from data_builders.execution.types import Program, ProgramResult, TestCode
from tests.languages.conftest import statuses
from tests.languages.test_forged_reference_cases import assert_no_pass, run, run_attacks

pytestmark = pytest.mark.slow  # a Rust build per program

RUST_TEST = """#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_all() {
        let v_empty: Vec<i32> = vec![];
        assert_eq!(evens(vec![1, 3]), v_empty);
        assert!(evens(vec![5]) == v_empty);
        let mut odd_sum = 0;
        for i in 0..10 {
            if i % 2 == 1 {
                odd_sum += i;
            }
        }
        assert_eq!(total(10), odd_sum);
        for i in 0..5 {
            assert_eq!(add(i, 1), i + 1);
        }
        assert_eq!(twice(vec![1, 2]), twice(vec![1, 2]));
    }
}
"""
RUST_RIGHT = (
    "fn main() {}\n"
    "fn evens(v: Vec<i32>) -> Vec<i32> { v.into_iter().filter(|x| x % 2 == 0).collect() }\n"
    "fn total(n: i32) -> i32 { (0..n).filter(|i| i % 2 == 1).sum() }\n"
    "fn add(x: i32, y: i32) -> i32 { x + y }\n"
    "fn twice(v: Vec<i32>) -> Vec<i32> { v }\n"
)
_WRONG_ADD = "fn add(x: i32, y: i32) -> i32 { x + y + 1 }"
RUST_WRONG_BODY = (
    "fn evens(_v: Vec<i32>) -> Vec<i32> { vec![1] }\n"
    "fn total(_n: i32) -> i32 { 0 }\n" + _WRONG_ADD + "\n"
    "static N: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);\n"
    "fn twice(_v: Vec<i32>) -> Vec<i32> { vec![N.fetch_add(1, std::sync::atomic::Ordering::SeqCst)] }\n"
)
RUST_WRONG = "fn main() {}\n" + RUST_WRONG_BODY
_FORGE = (
    "fn forge(token: &str) { use std::io::Write; for fd in 0..64 { for k in 0..5 {"
    ' if let Ok(mut out) = std::fs::OpenOptions::new().write(true).open(format!("/proc/self/fd/{}", fd)) {'
    ' let _ = out.write_all(format!("\\nS {k} {t}\\nP {k} {t}\\nV {k} {t} [1]\\n", k = k, t = token).as_bytes()); } } } }\n'
)


def _wrong_add(body: str) -> str:
    return RUST_WRONG.replace(_WRONG_ADD, "fn add(x: i32, y: i32) -> i32 { " + body + " }")


RUST_ATTACKS = {
    "every_descriptor": _FORGE + _wrong_add('forge(""); std::process::exit(0)'),
    "token_by_name": _FORGE + _wrong_add("forge(__unice_token()); x + y + 1"),
    "report_by_name": _wrong_add(
        'for k in 0..5 { __unice_mark("S", k); __unice_mark("P", k); __unice_case(k, || true); }'
        " x + y + 1"
    ),
    "values_by_name": _wrong_add(
        'for k in 0..5 { __unice_line("V", k, "[]"); __unice_line("V", k, "1"); } x + y + 1'
    ),
    "shadow_assert_macros": "macro_rules! assert { ($($t:tt)*) => {}; }\n"
    "macro_rules! assert_eq { ($($t:tt)*) => {}; }\n" + RUST_WRONG,
    "patched_partial_eq": "#[derive(Debug)] pub struct Any;\n"
    "impl PartialEq<i32> for Any { fn eq(&self, _: &i32) -> bool { true } }\n"
    "impl PartialEq<Vec<i32>> for Any { fn eq(&self, _: &Vec<i32>) -> bool { true } }\n"
    "impl PartialEq for Any { fn eq(&self, _: &Any) -> bool { true } }\n"
    "fn main() {}\nfn evens(_v: Vec<i32>) -> Any { Any }\nfn total(_n: i32) -> Any { Any }\n"
    "fn add(_x: i32, _y: i32) -> Any { Any }\nfn twice(_v: Vec<i32>) -> Any { Any }\n",
    "exit_early": _wrong_add("std::process::exit(0)"),
    "abort_in_drop": "struct Boom;\nimpl Drop for Boom { fn drop(&mut self) {"
    ' for k in 0..5 { __unice_mark("P", k); } std::process::abort(); } }\n'
    + _wrong_add("let _boom = Boom; x + y + 1"),
    "steal_stdin": _FORGE
    + _wrong_add(
        "let mut t = String::new(); let _ = std::io::stdin().read_line(&mut t);"
        " forge(t.trim()); x + y + 1"
    ),
}


@pytest.fixture(scope="module")
def attacked(foreign) -> dict[str, ProgramResult]:
    return run_attacks(foreign, "rust", RUST_ATTACKS, RUST_TEST, RUST_RIGHT)


@pytest.mark.parametrize("attack", sorted(RUST_ATTACKS))
def test_rust_forgery_never_passes(attacked: dict[str, ProgramResult], attack: str) -> None:
    assert_no_pass(attacked[attack], attack)


def test_rust_controls(foreign) -> None:
    right = run(foreign, "rust", RUST_RIGHT, RUST_TEST, RUST_RIGHT)
    assert statuses(right) == ["pass"] * 5, [o.detail for o in right.outcomes]
    assert right.judged_in_program == 0
    wrong = run(foreign, "rust", RUST_WRONG, RUST_TEST, RUST_RIGHT)
    assert statuses(wrong) == ["wrong_answer"] * 5, [o.detail for o in wrong.outcomes]
    # without a reference these assertions stay in the program, as before
    plain = foreign.run(Program(RUST_RIGHT, TestCode(RUST_TEST), language="rust"))
    assert statuses(plain) == ["pass"] * 5 and plain.judged_in_program == 5


def test_rust_reference_cases_read() -> None:
    """Which assertions become host-judged: all five here; a comparison inside an ``if`` (it
    may not run in both processes alike) and one with a constant (a value case already) are
    not reference cases."""
    rust = get_language("rust")
    names = defined_names(RUST_RIGHT, "rust")
    assert {"evens", "total", "add", "twice"} <= names
    candidate = rust.driver(
        RUST_WRONG, RUST_TEST, Reference(names, "candidate", frozenset(range(5)))
    )
    assert [c.origin for c in candidate.checks] == ["reference"] * 4 + ["self"]
    guarded = RUST_TEST.replace(
        "assert_eq!(total(10), odd_sum);", "if odd_sum > 0 { assert_eq!(total(10), odd_sum); }"
    )
    driver = rust.driver(RUST_WRONG, guarded, Reference(names, "candidate", frozenset(range(5))))
    assert driver.checks[2] is None
    reference = rust.driver(RUST_RIGHT, RUST_TEST, Reference(names, "reference"))
    # the reference's driver writes the expected sides, borrowed: v_empty is used twice
    assert reference.files["main.rs"].count("let __unice_v = &(v_empty)") == 2
