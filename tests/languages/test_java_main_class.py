"""The class a Java program's JVM is told to run: the one whose body declares ``main``.

MultiPL-E's ``HumanEval_75_java`` canonical solution declares a helper class inside its method
(``class IsPrime { ... }``), before ``main``; taking the last ``class`` before ``main`` ran
``IsPrime`` and made every assertion a runtime error ("Could not find or load main class"),
where MultiPL-E's evaluator passes the program.
"""

from __future__ import annotations

from data_builders.execution.compiled.languages import get_language
from data_builders.execution.compiled.languages.java import enclosing_class
from data_builders.execution.types import Program, TestCode
from tests.languages.conftest import need, statuses

SOURCE = """import java.util.*;

class Problem {
    public static boolean isPrimeSquare(int a) {
        class IsPrime {
            boolean test(int n) { for (int j = 2; j < n; j++) { if (n % j == 0) return false; } return n > 1; }
        }
        int r = (int) Math.round(Math.sqrt(a));
        return r * r == a && new IsPrime().test(r);
    }
"""
TESTS = """    public static void main(String[] args) {
    assert(isPrimeSquare(9));
    assert(!isPrimeSquare(16));
    }

}
"""


def test_the_class_that_holds_main_is_run_not_a_local_class_before_it() -> None:
    text = SOURCE + TESTS
    assert enclosing_class(text, text.index("public static void main")) == "Problem"
    assert enclosing_class(text, text.index("int r =")) == "Problem"
    assert enclosing_class(text, text.index("boolean test")) == "IsPrime"
    assert enclosing_class("static int x;", 5) is None
    driver = get_language("java").driver(SOURCE, TESTS)
    assert driver.mode == "Problem Problem.java"


def test_a_program_with_a_local_class_passes(foreign) -> None:
    need("java")
    result = foreign.run(Program(SOURCE, TestCode(TESTS), language="java"))
    assert statuses(result) == ["pass", "pass"], [o.detail for o in result.outcomes]
