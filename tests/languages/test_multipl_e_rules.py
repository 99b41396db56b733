"""MultiPL-E's evaluator rules that the label path must follow (found by
``benchmarks/multipl_e_agreement.py``).

Rust: MultiPL-E builds with ``rustc F -o B``, rustc's default edition (2015), where
``TryFrom`` is not in the prelude; HumanEval-X's ``#[test]`` modules build as Cargo's 2021
edition. The same completion compiles in one and not the other, so the edition follows the
test's shape.

C++: MultiPL-E compiles without ``-O``. A candidate that falls off the end of a non-void
function (undefined behaviour, common in small models' code) passed MultiPL-E unoptimised and
failed under the ``-O1`` the label path used; the label path must judge it as MultiPL-E's
command does.
"""

from __future__ import annotations

import shutil

import pytest

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


CPP_MISSING_RETURN = (
    "#include <assert.h>\n#include <vector>\nusing namespace std;\n"
    "bool any_big(vector<int> v) {\n    for (int x : v) if (x > 5) return true;\n"
)
CPP_TEST = "}\nint main() {\n    assert(any_big({1, 9}) == true);\n    assert(any_big({1, 2}) == false);\n}\n"


def test_cpp_judges_undefined_behaviour_as_multipl_e_compiles_it(foreign) -> None:
    if shutil.which("g++") is None:
        pytest.skip("g++ absent")
    from data_builders.execution.compiled.plain_harness import run_plain

    plain = run_plain("cpp", CPP_MISSING_RETURN + CPP_TEST)
    result = run(foreign, "cpp", CPP_MISSING_RETURN, CPP_TEST)
    assert result.passed == plain.passed, ([o.status for o in result.outcomes], plain)
