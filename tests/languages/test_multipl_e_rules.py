"""MultiPL-E's evaluator rules that the label path must follow (found by
``benchmarks/multipl_e_agreement.py``).

Rust: MultiPL-E builds with ``rustc F -o B``, rustc's default edition (2015), where
``TryFrom`` is not in the prelude; HumanEval-X's ``#[test]`` modules build as Cargo's 2021
edition. The same completion compiles in one and not the other, so the edition follows the
test's shape.
"""

from __future__ import annotations

from tests.languages.conftest import run, statuses

RUST_TRY_FROM = "fn f(x: i64) -> i32 {\n    i32::try_from(x).unwrap()\n"

MULTIPL_E_TEST = "}\n\nfn main() {\n    let candidate = f;\n    assert_eq!(candidate(2), 2);\n}\n"

HUMANEVAL_X_TEST = """}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_f() {
        assert_eq!(f(2), 2);
    }
}
"""


def test_rust_multipl_e_builds_with_rustcs_default_edition(foreign) -> None:
    result = run(foreign, "rust", RUST_TRY_FROM, MULTIPL_E_TEST)
    assert statuses(result) == ["compile_error"], [o.detail for o in result.outcomes]


def test_rust_humaneval_x_builds_with_edition_2021(foreign) -> None:
    result = run(foreign, "rust", RUST_TRY_FROM, HUMANEVAL_X_TEST)
    assert statuses(result) == ["pass"], [o.detail for o in result.outcomes]
