"""Signatures read from HumanEval-X-shaped rows, assertion statements, and coverage counting."""

from __future__ import annotations

import pytest

from data_builders.test_translation.assertions import assertion
from data_builders.test_translation.coverage import coverage, reason_key, translate_task
from data_builders.test_translation.literals import Untranslatable
from data_builders.test_translation.types import TypeParseError, parse_signature

# Small rows in HumanEval-X's layout (declarations as the dataset spells them).
CPP_ROW = {
    "task_id": "CPP/0",
    "declaration": "#include<vector>\nusing namespace std;\nbool has_close_elements(vector<float> numbers, float threshold){\n",
    "test": "int main(){ assert (has_close_elements({1.0}, 0.3)==true); }",
}
CPP_FLOAT = {
    "task_id": "CPP/2",
    "declaration": "float truncate_number(float number){\n",
    "test": "",
}
CPP_ANY = {
    "task_id": "CPP/137",
    "declaration": "boost::any compare_one(boost::any a,boost::any b){\n",
    "test": "",
}
JAVA_ROW = {
    "task_id": "Java/8",
    "declaration": "import java.util.*;\n\nclass Solution {\n    public List<Integer> sumProduct(List<Integer> numbers) {\n",
    "test": "s.sumProduct(new ArrayList<>(List.of()))",
}
JAVA_TWO_METHODS = {
    "task_id": "Java/50",
    "declaration": "class Solution {\n    public String encodeShift(String s) {\n        return s;\n    }\n    public String decodeShift(String s) {\n",
    "test": "s.decodeShift(s.encodeShift(x))",
}
JAVA_OBJECT = {
    "task_id": "Java/103",
    "declaration": "class Solution {\n    public Object roundedAvg(int n, int m) {\n",
    "test": "",
}
JS_ROW = {
    "task_id": "JavaScript/8",
    "declaration": "\nconst sumProduct = (numbers, int) => {\n",
    "test": "",
}
GO_ROW = {
    "task_id": "Go/92",
    "declaration": "\nfunc AnyInt(x, y, z interface{}) bool {\n",
    "test": "assert.Equal(true, AnyInt(2, 3, 1))",
}
GO_FLOAT = {
    "task_id": "Go/4",
    "declaration": "\nfunc MeanAbsoluteDeviation(numbers []float64) float64 {\n",
    "test": "",
}
RUST_ROW = {
    "task_id": "Rust/10",
    "declaration": "use std::any::{Any, TypeId};\n\nfn is_palindrome_10(str: &str) -> bool {\n",
    "canonical_solution": "\n  true\n}\n\n    fn make_palindrome(str: &str) -> String {\n  todo!()\n}\n",
    "test": 'assert_eq!(make_palindrome(""), "");\nassert_eq!(make_palindrome("x"), "x");',
}
RUST_TUPLE = {
    "task_id": "Rust/8",
    "declaration": "fn sum_product(numbers:Vec<i32>) -> (i32,i32){\n",
    "test": "",
}
RUST_ANY = {
    "task_id": "Rust/137",
    "declaration": "fn compare_one<'a>(a:&'a dyn Any, b:&'a dyn Any) -> RtnType<String,f64,i32>{\n",
    "test": "",
}


def test_signatures_are_read_from_each_layout():
    cpp = parse_signature(CPP_ROW)
    assert cpp.name == "has_close_elements"
    assert [(n, t.kind, t.args[0].bits if t.args else t.bits) for n, t in cpp.params] == [
        ("numbers", "list", 32),
        ("threshold", "float", 32),
    ]
    assert cpp.returns.kind == "bool"
    go = parse_signature(GO_ROW)
    assert [n for n, _ in go.params] == ["x", "y", "z"]
    assert {t.kind for _, t in go.params} == {"object"}
    assert parse_signature(JS_ROW).params[1][0] == "int"


def test_the_tested_function_is_chosen_not_a_helper():
    assert parse_signature(JAVA_TWO_METHODS).name == "decodeShift"
    assert parse_signature(RUST_ROW).name == "make_palindrome"  # declared in canonical_solution
    assert parse_signature(RUST_ROW, entry_point="make_palindrome").name == "make_palindrome"


def test_a_row_without_a_function_is_a_clear_error():
    with pytest.raises(TypeParseError, match="no function signature"):
        parse_signature({"task_id": "Go/1", "declaration": "package main\n", "test": ""})
    with pytest.raises(TypeParseError, match="not a HumanEval-X task id"):
        parse_signature({"task_id": "Python/1", "declaration": "def f(): pass"})


ASSERTIONS = [
    (
        CPP_ROW,
        ([1.0, 2.5], 0.5),
        True,
        "assert ((has_close_elements(std::vector<float>{1.0f, 2.5f}, 0.5f) == true));",
    ),
    (CPP_FLOAT, (3.5,), 0.5, "assert (std::abs(truncate_number(3.5f) - 0.5f) < 0.0001);"),
    (
        JAVA_ROW,
        ([3, 4],),
        (7, 12),
        "if (!(Objects.equals(s.sumProduct(new ArrayList<>(Arrays.asList(3, 4))), new ArrayList<>(Arrays.asList(7, 12))))) throw new AssertionError();",
    ),
    (
        JAVA_OBJECT,
        (1, 5),
        "0b11",
        'if (!(Objects.equals(s.roundedAvg(1, 5), "0b11"))) throw new AssertionError();',
    ),
    (
        JAVA_OBJECT,
        (1, 5),
        2.5,
        "if (!(Math.abs(((Number) s.roundedAvg(1, 5)).doubleValue() - 2.5) < 1e-06)) throw new AssertionError();",
    ),
    (JS_ROW, ([3, 4],), (7, 12), "assert.deepStrictEqual(sumProduct([3, 4]), [7, 12]);"),
    (JS_ROW, ([0.5],), 0.25, "assert.ok(Math.abs(sumProduct([0.5]) - 0.25) < 1e-06);"),
    (GO_ROW, (2, 3.5, "x"), False, 'assert.Equal(false, AnyInt(2, 3.5, "x"))'),
    (
        GO_FLOAT,
        ([1, 2],),
        0.5,
        "assert.InDelta(0.5, MeanAbsoluteDeviation([]float64{1.0, 2.0}), 1e-06)",
    ),
    (RUST_ROW, ("ab",), "aba", 'assert_eq!(make_palindrome("ab"), "aba".to_string());'),
    (RUST_TUPLE, ([],), (0, 1), "assert_eq!(sum_product(Vec::<i32>::new()), (0, 1));"),
]


@pytest.mark.parametrize(("row", "args", "expected", "statement"), ASSERTIONS)
def test_assertion_statements(row, args, expected, statement):
    assert assertion(parse_signature(row), args, expected) == statement


@pytest.mark.parametrize(
    ("row", "args", "expected", "reason"),
    [
        (CPP_ROW, ([1.0],), True, "1 arguments where has_close_elements declares 2"),
        (CPP_ANY, (1, 2), 2, "a is declared boost::any"),
        (RUST_ANY, (1, 2), 2, "a is declared &dyn Any"),
        (RUST_TUPLE, ([2**31],), (0, 1), "does not fit Rust i32"),
        (JAVA_ROW, ([1],), None, "None where Java List<Integer> is declared"),
        (CPP_FLOAT, (1.0,), float("inf"), "non-finite"),
    ],
)
def test_untranslatable_tests_say_why(row, args, expected, reason):
    with pytest.raises(Untranslatable) as info:
        assertion(parse_signature(row), args, expected)
    assert reason in info.value.reason


def test_reasons_group_by_masking_values():
    assert (
        reason_key("int 3000000000 does not fit Java int (32-bit)")
        == "int N does not fit Java int (N-bit)"
    )
    assert reason_key("'ab' is not one character") == "<value> is not one character"


def test_coverage_counts_tasks_tests_and_reasons():
    suites = {8: [(([1, 2],), (3, 2)), (([2**31],), (2**31, 2**31))], 137: [((1, 2), 2)], 5: []}
    rows = {
        "rust": [RUST_TUPLE, RUST_ANY],
        "js": [
            JS_ROW,
            {
                "task_id": "JavaScript/137",
                "declaration": "const compareOne = (a, b) => {",
                "test": "",
            },
        ],
    }
    result = coverage(suites, rows)
    rust, js = result["rust"], result["js"]
    assert (rust.tasks, rust.tasks_translated, rust.tests, rust.tests_translated) == (2, 1, 3, 1)
    assert rust.reasons == {
        "int N does not fit Rust i32 (N-bit)": 1,
        "compare_one: a is declared &dyn Any": 1,
    }
    assert (js.tasks, js.tasks_translated, js.tests, js.tests_translated) == (2, 2, 3, 3)
    assert "tests 3/3 (100.0%)" in js.line()


def test_translate_task_reports_an_unreadable_signature():
    row = {"task_id": "Go/1", "declaration": "func F(x chan int) int {\n", "test": ""}
    done, reasons = translate_task(row, [((1,), 1), ((2,), 2)])
    assert done == []
    assert reasons == {"signature: F: Go type <value> is not supported": 2}
