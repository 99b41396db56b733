"""Go's assertions judged from a reference run: forgeries never pass, controls do.

The Go part of ``test_forged_reference_cases.py``: ``assert.Equal(oddSum, Total(10))`` (a
variable the test computes), a loop's ``assert.Equal(strconv.Itoa(i), Show(i))`` and
HumanEval's ``find_zero`` property ``assert.Equal(true, math.Abs(Poly(xs, x)) < 1e-4)`` (inputs
from a generator seeded with a constant) are judged on the host, the expected sides from the
reference solution's own run. A test that draws inputs from the clock or from ``math/rand``'s
global functions (seeded at random since Go 1.20) keeps its assertions in the program: a
reference run would see other inputs. Each attack is a wrong program that also forges
reports (five of the Go forgery suite's attacks, ``test_forged_verdicts.py``, which also
runs the others: skipping cases, stealing stdin, exiting early).
"""

from __future__ import annotations

import pytest

from data_builders.execution.compiled.languages import get_language
from data_builders.execution.compiled.languages.computed import Reference, defined_names
from data_builders.execution.compiled.languages.go import same_inputs
from data_builders.execution.types import Program, ProgramResult, TestCode
from tests.languages.conftest import statuses
from tests.languages.test_forged_reference_cases import assert_no_pass, run, run_attacks

pytestmark = pytest.mark.slow  # a Go build per program

GO_TEST = """package main

import (
    "fmt"
    "math"
    "math/rand"
    "os"
    "strconv"
    "testing"
    "github.com/stretchr/testify/assert"
)

func TestAll(t *testing.T) {
    assert := assert.New(t)
    oddSum := 0
    for i := 1; i < 10; i += 2 {
        oddSum += i
    }
    assert.Equal(oddSum, Total(10))
    for i := 2; i < 5; i++ {
        assert.Equal(strconv.Itoa(i), Show(i))
    }
    rng := rand.New(rand.NewSource(42))
    for i := 0; i < 3; i++ {
        xs := []int{-1 - rng.Intn(9), 1}
        x := FindZero(xs)
        assert.Equal(true, math.Abs(Poly(xs, x)) < 1e-4)
    }
    _, _ = fmt.Sprint(), os.Args
}
"""
_POLY = (
    "func Poly(xs []int, x float64) float64 {\n    sum := 0.0\n"
    "    for i, coeff := range xs {\n        sum += float64(coeff) * math.Pow(x, float64(i))\n"
    "    }\n    return sum\n}\n"
)
GO_RIGHT = _POLY + (
    "func Total(n int) int { s := 0; for i := 1; i < n; i += 2 { s += i }; return s }\n"
    "func Show(i int) string { return strconv.Itoa(i) }\n"
    "func FindZero(xs []int) float64 { return -float64(xs[0]) / float64(xs[1]) }\n"
)
_WRONG_TOTAL = "func Total(n int) int { return 0 }"
GO_WRONG = _POLY + (
    _WRONG_TOTAL + '\nfunc Show(i int) string { return "x" }\n'
    "func FindZero(xs []int) float64 { return 100 }\n"
)
_FORGE = (
    "func forge(token string) {\n\tfor fd := 0; fd < 64; fd++ {\n\t\tfor k := 0; k < 3; k++ {\n"
    '\t\t\tos.NewFile(uintptr(fd), "x").WriteString(fmt.Sprintf("\\nS %d %s\\nP %d %s\\nV %d %s 25\\n", k, token, k, token, k, token))\n'
    "\t\t}\n\t}\n}\n"
)


def _wrong_total(body: str) -> str:
    return GO_WRONG.replace(_WRONG_TOTAL, "func Total(n int) int { " + body + " }")


GO_ATTACKS = {
    "every_descriptor": _FORGE + _wrong_total('forge(""); os.Exit(0); return 0'),
    "token_by_name": _FORGE + _wrong_total("forge(__unice_token); return 0"),
    "report_by_name": _wrong_total(
        'for k := 0; k < 3; k++ { __unice_mark("S", k); __unice_mark("P", k);'
        " __unice_case(k, func() bool { return true }) }; return 0"
    ),
    "values_by_name": _wrong_total(
        'for k := 0; k < 3; k++ { __unice_line("V", k, "25") }; return 0'
    ),
    "forge_in_defer_then_panic": _wrong_total(
        'defer func() { for k := 0; k < 3; k++ { __unice_mark("P", k) }; panic("boom") }(); return 0'
    ),
}


@pytest.fixture(scope="module")
def attacked(foreign) -> dict[str, ProgramResult]:
    return run_attacks(foreign, "go", GO_ATTACKS, GO_TEST, GO_RIGHT)


@pytest.mark.parametrize("attack", sorted(GO_ATTACKS))
def test_go_forgery_never_passes(attacked: dict[str, ProgramResult], attack: str) -> None:
    assert_no_pass(attacked[attack], attack)


def test_go_controls(foreign) -> None:
    right = run(foreign, "go", GO_RIGHT, GO_TEST, GO_RIGHT)
    assert statuses(right) == ["pass"] * 3, [o.detail for o in right.outcomes]
    assert right.judged_in_program == 0
    # another root passes the property: it is judged, not compared with the reference's
    other_root = GO_RIGHT.replace(
        "return -float64(xs[0]) / float64(xs[1])", "return -float64(xs[0])/float64(xs[1]) + 1e-9"
    )
    assert statuses(run(foreign, "go", other_root, GO_TEST, GO_RIGHT)) == ["pass"] * 3
    wrong = run(foreign, "go", GO_WRONG, GO_TEST, GO_RIGHT)
    assert statuses(wrong) == ["wrong_answer"] * 3, [o.detail for o in wrong.outcomes]
    # without a reference these assertions stay in the program, as before
    plain = foreign.run(Program(GO_RIGHT, TestCode(GO_TEST), language="go"))
    assert statuses(plain) == ["pass"] * 3 and plain.judged_in_program == 3


def test_go_inputs_from_the_clock_or_global_rand_stay_in_the_program() -> None:
    go = get_language("go")
    names = defined_names(GO_RIGHT, "go")
    assert {"Poly", "Total", "Show", "FindZero"} <= names
    enabled = Reference(names, "candidate", frozenset(range(3)))
    assert [c.origin for c in go.driver(GO_WRONG, GO_TEST, enabled).checks] == ["reference"] * 3
    assert same_inputs(GO_TEST)
    for drawn in ("rand.Intn(9)", "rand.New(rand.NewSource(time.Now().UnixNano())).Intn(9)"):
        test = GO_TEST.replace("rng.Intn(9)", drawn)
        assert not same_inputs(test), drawn
        assert go.driver(GO_WRONG, test, enabled).checks == (None, None, None)
