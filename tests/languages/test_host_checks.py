"""Host-side verdicts (``execution/compiled/checks.py``): the test's constants read here, the
program's serialised value judged here with the test's own semantics (pure Python)."""

from __future__ import annotations

import json
import math
import struct

import pytest

from data_builders.execution.compiled.checks import Check, judge
from data_builders.execution.compiled.js_semantics import js_json, js_number_to_string
from data_builders.execution.compiled.languages import get_language
from data_builders.execution.compiled.languages.cpp import cpp_check
from data_builders.execution.compiled.languages.js import js_check
from data_builders.execution.compiled.literals import NotLiteral, parse_literal


def f64(x: float) -> dict[str, str]:
    return {"$f64": struct.pack(">d", x).hex()}


def f32(x: float) -> dict[str, str]:
    return {"$f32": struct.pack(">f", x).hex()}


def status(check: Check, value: object) -> str:
    return judge(check, json.dumps(value).encode())[0]


@pytest.mark.parametrize(
    ("text", "language", "value"),
    [
        ('{"a", "b\\n"}', "cpp", ["a", "b\n"]),
        ("{{'a', 2}, {'b', 1}}", "cpp", [[97, 2], [98, 1]]),
        ("{3 + 5 + 7, 3 * 5 * 7}", "cpp", [15, 105]),
        ("-7 / 2", "cpp", -3),
        ("2.0/3.0", "cpp", 2.0 / 3.0),
        ('vector<string>{"x"}', "cpp", ["x"]),
        ('string("ab") ', "cpp", "ab"),
        ('"caf\\xc3\\xa9"', "cpp", "caf\xc3\xa9"),
        ('"café"', "cpp", "caf\xc3\xa9"),  # a C++ string is its UTF-8 bytes
        ("(std::vector<long>({1, 2}))", "cpp", [1, 2]),  # MultiPL-E's form
        ("std::vector<long>()", "cpp", []),
        ("[1, -2.5, 'a', `b`, null]", "js", [1.0, -2.5, "a", "b", None]),
        ("[(0, 0), (1, 4)]", "js", [0.0, 4.0]),
    ],
)
def test_literals(text: str, language: str, value: object) -> None:
    assert parse_literal(text, language) == value


@pytest.mark.parametrize("text", ["x", "f(1)", "{1, x}", "a + 1", "`${x}`", "str"])
def test_non_literals(text: str) -> None:
    with pytest.raises(NotLiteral):
        parse_literal(text, "js" if "`" in text else "cpp")


def test_cpp_shapes_and_semantics() -> None:
    test = "bool issame(vector<float> a,vector<float>b){\n if (a.size()!=b.size()) return false;\n for (int i=0;i<a.size();i++)\n {\n if (abs(a[i]-b[i])>1e-4) return false;\n }\n return true;\n}\n"
    actual, check = cpp_check("issame(g({1.5}), {1.1, 2.2})", test)
    assert actual == "g({1.5})" and check.op == "issame" and check.tol == 1e-4 and check.f32
    assert status(check, [f32(1.1), f32(2.20001)]) == "pass"
    assert status(check, [f32(1.1)]) == "wrong_answer"
    actual, check = cpp_check("abs(truncate_number(1.33) - 0.33) < 1e-4", "")
    assert actual == "truncate_number(1.33)"
    assert status(check, f64(0.33004)) == "pass" and status(check, f64(0.34)) == "wrong_answer"
    actual, check = cpp_check("abs(area(1, 2, 10) +1)<0.01", "")
    assert check.expected == -1.0 and status(check, f64(-1.0)) == "pass"
    # float == double literal: promoted, not rounded (0.1f != 0.1 in C++)
    _, check = cpp_check("f(1) == 0.1", "")
    assert status(check, f32(0.1)) == "wrong_answer" and status(check, f32(0.5)) == "wrong_answer"
    assert status(check, f64(0.1)) == "pass"
    _, check = cpp_check('not (correct_bracketing("<"))', "")
    assert check.op == "truthy" and check.negate
    assert status(check, False) == "pass" and status(check, True) == "wrong_answer"
    _, check = cpp_check("count(1) != 3", "")
    assert status(check, 4) == "pass" and status(check, 3) == "wrong_answer"
    _, check = cpp_check('h("a") == true', "")
    assert status(check, 1) == "pass" and status(check, 2) == "wrong_answer"
    map_test = "bool issame(map<char,int> a,map<char,int> b){\n if (a.size()!=b.size()) return false;\n map <char,int>::iterator it;\n for (it=a.begin();it!=a.end();it++)\n {\n char w1=it->first;\n int w2=it->second;\n if (b.find(w1)==b.end()) return false;\n if (b[w1]!=w2) return false;\n }\n return true;\n}\n"
    _, check = cpp_check("issame(histogram(\"b a\"), {{'b', 1}, {'a', 1}})", map_test)
    assert status(check, {"$map": [[97, 1], [98, 1]]}) == "pass"
    assert status(check, {"$map": [[97, 1]]}) == "wrong_answer"
    assert status(check, {"$opaque": 1}) == "wrong_answer"
    assert judge(check, b"[1,")[0] == "runtime_error"


@pytest.mark.parametrize(
    "text",
    [
        "decode(encoded) == str",  # a variable
        "issame(sort_third({1}), sort_third({1}))",  # two calls
        "abs(poly(xs, x)) < 1e-3",  # a property
        "f(1) == 2 && g(1) == 3",
        "x < 3",
    ],
)
def test_cpp_shapes_left_in_the_program(text: str) -> None:
    assert cpp_check(text, "") is None


def test_js_shapes_and_semantics() -> None:
    actual, check = js_check("JSON.stringify(f([1])) === JSON.stringify([1.0, [2], {a: 1}])")
    assert actual == "JSON.stringify(f([1]))"
    assert status(check, '[1,[2],{"a":1}]') == "pass"
    assert status(check, "[1,[2],{}]") == "wrong_answer"
    assert status(check, {"$undefined": 1}) == "wrong_answer"
    _, check = js_check("f(1) === 2")
    assert status(check, 2) == "pass" and status(check, "2") == "wrong_answer"
    _, check = js_check("f(1) == 2")
    assert status(check, "2") == "pass" and status(check, [2]) == "pass"
    _, check = js_check("f(1) === [1]")  # a new array is never identical
    assert status(check, [1]) == "wrong_answer"
    _, check = js_check("!f(1)")
    assert (
        status(check, 0) == "pass"
        and status(check, "") == "pass"
        and status(check, []) == "wrong_answer"
    )
    _, check = js_check("Math.abs(g(1.33) - 0.33) < 1e-6")
    assert status(check, 0.33) == "pass" and status(check, "0.33") == "pass"
    assert status(check, {"$float": "nan"}) == "wrong_answer"
    assert js_check("x + y === add(x, y)") is None


@pytest.mark.parametrize(
    ("x", "text"),
    [(1.0, "1"), (0.1, "0.1"), (1e21, "1e+21"), (1.5e-7, "1.5e-7"), (123456.789, "123456.789"),
     (1e-6, "0.000001"), (-2.5, "-2.5"), (math.inf, "Infinity")],
)  # fmt: skip
def test_js_number_to_string(x: float, text: str) -> None:
    assert js_number_to_string(x) == text


def test_js_json_matches_json_stringify() -> None:
    value = parse_literal("[1, 'a\"', null, undefined, NaN, {b: undefined, c: [true]}]", "js")
    assert js_json(value) == '[1,"a\\"",null,null,null,{"c":[true]}]'


def test_expected_values_never_enter_the_driver() -> None:
    helper = "bool issame(vector<int> a,vector<int>b){\n if (a.size()!=b.size()) return false;\n for (int i=0;i<a.size();i++)\n {\n if (a[i]!=b[i]) return false;\n }\n return true;\n}\n"
    test = (
        helper
        + "int main(){\n    assert (f(1) == 424242);\n    assert (issame(g(1), {737373}));\n}\n"
    )
    text = get_language("cpp").driver("int f(int x) { return x; }\n", test).files["main.cpp"]
    assert "424242" not in text and "737373" not in text
    js = "console.assert(f(1) === 424242)\nconsole.assert(JSON.stringify(g(1)) === JSON.stringify([737373]))\n"
    text = get_language("js").driver("const f = (x) => x\n", js).files["main.js"]
    assert "424242" not in text and "737373" not in text


def test_java_shapes_and_semantics() -> None:
    from data_builders.execution.compiled.languages.java_checks import java_check

    actual, check = java_check("s.f(Arrays.asList(1, 2)).equals(Arrays.asList(1, 2))")
    assert actual == "s.f(Arrays.asList(1, 2))" and check.op == "equals"
    assert status(check, [1, 2]) == "pass"
    assert status(check, [{"$long": "1"}, {"$long": "2"}]) == "wrong_answer"  # Long is not Integer
    _, check = java_check("Objects.equals(s.g(), Arrays.asList(1.0, -0.0))")
    assert status(check, [f64(1.0), f64(-0.0)]) == "pass"
    assert status(check, [f64(1.0), f64(0.0)]) == "wrong_answer"  # Double.equals: bits
    _, check = java_check("s.h(3) == 7")
    assert status(check, {"$long": "7"}) == "pass" and status(check, f64(7.0)) == "pass"
    assert judge(check, b"null")[0] == "runtime_error"  # unboxing null
    _, check = java_check("!s.isPrime(5 * 17)")
    assert check.op == "truthy" and status(check, False) == "pass"
    _, check = java_check("s.nextSmallest(List.of()).isEmpty()")
    assert check.op == "truthy" and status(check, True) == "pass"
    _, check = java_check("s.largest(x).equals(Arrays.asList(Optional.empty(), Optional.of(1)))")
    assert status(check, [{"$optional": []}, {"$optional": [1]}]) == "pass"
    # a string literal's == is identity: the program writes the value and whether it is pooled
    actual, check = java_check('(String) s.compareOne("1", "2").get() == "2"')
    assert actual == '__unice_interned((String) s.compareOne("1", "2").get())'
    assert status(check, {"$interned": ["2", True]}) == "pass"
    assert status(check, {"$interned": ["2", False]}) == "wrong_answer"
    assert java_check('s.histogram("a").equals(map8)') is None  # a variable


def go(kind: str, type_: str, payload: object) -> dict[str, list[object]]:
    return {"$go": [kind, type_, payload]}


def test_go_shapes_and_semantics() -> None:
    from data_builders.execution.compiled.languages.go import blank_unused_imports, go_check

    actual, check = go_check("assert.Equal([]int{1, 2}, F(1))")
    assert actual == "F(1)"
    one, two = go("int", "int", "1"), go("int", "int", "2")
    assert status(check, go("list", "[]int", [one, two])) == "pass"
    assert status(check, go("list", "[]int64", [one, two])) == "wrong_answer"
    _, check = go_check("assert.Equal([]int{}, F(1))")
    assert status(check, go("list", "[]int", [])) == "pass"
    assert status(check, go("list", "[]int", None)) == "wrong_answer"  # nil is not []int{}
    _, check = go_check('assert.Equal([2]interface{}{"abba", true}, F("x"))')
    pair = [go("string", "string", "abba"), go("bool", "bool", True)]
    assert status(check, go("list", "[2]interface {}", pair)) == "pass"
    _, check = go_check("assert.Equal(nil, Longest([]string{}))")
    assert status(check, go("nil", "nil", None)) == "pass"
    assert status(check, go("string", "string", "")) == "wrong_answer"
    _, check = go_check("assert.Equal(true, math.Abs(T(1.33)-0.33) < 1e-6)")
    assert (
        check.op == "close" and status(check, go("float", "float64", f64(0.33)["$f64"])) == "pass"
    )
    assert go_check("assert.Equal(true, same([]int{1}, S([]int{1})))", {"same"}) is None
    assert go_check("assert.Equal(odd_sum, D(lst))") is None
    text = 'package main\nimport (\n    "math"\n    "testing"\n)\nfunc TestX(t *testing.T) {}\n'
    assert '_ "math"' in blank_unused_imports(text) and '\n    "testing"' in blank_unused_imports(
        text
    )
    # only an import the program and test as written used: one they never used stays, and
    # fails to compile as in Go (MultiPL-E's HumanEval_27_go prompt imports "strings")
    used = text.replace("{}", "{ _ = math.Pi }")
    assert '_ "math"' in blank_unused_imports(text, original=used)
    assert '_ "math"' not in blank_unused_imports(text, original=text)


def test_rust_shapes_and_semantics() -> None:
    from data_builders.execution.compiled.languages.rust import rust_check

    actual, check = rust_check('assert!(f(vec!["a".to_string()]) == vec!["A+", "B"])')
    assert actual == 'f(vec!["a".to_string()])'
    assert status(check, ["A+", "B"]) == "pass" and status(check, ["A+"]) == "wrong_answer"
    _, check = rust_check("assert_eq!(g(1), Some(3))")
    assert status(check, {"$optional": [3]}) == "pass"
    assert status(check, {"$optional": []}) == "wrong_answer"
    _, check = rust_check("assert_ne!(g(1), 3)")
    assert status(check, 4) == "pass" and status(check, 3) == "wrong_answer"
    _, check = rust_check("assert!(h(1) == 0.1)")  # an f32 result: the constant is an f32
    assert status(check, f32(0.1)) == "pass" and status(check, f64(0.1)) == "pass"
    _, check = rust_check("assert!(f64::abs(area(1.0, 2.0, 10.0) + 1.0) < 0.01)")
    assert check.op == "close" and status(check, f64(-1.0)) == "pass"
    _, check = rust_check("assert!((h(1) - 0.5).abs() < 1e-6)")
    assert check.op == "close" and status(check, f64(0.5)) == "pass"
    _, check = rust_check("assert!(histogram(\"a b\") == HashMap::from([('a', 1), ('b', 1)]))")
    pairs = [[{"$char": "98"}, 1], [{"$char": "97"}, 1]]
    assert status(check, {"$map": pairs}) == "pass"
    assert status(check, {"$assertion_panic": 1}) == "wrong_answer"
    assert status(check, {"$opaque": 1}) == "wrong_answer"
    assert rust_check("assert!(add(x, y) == x + y)") is None
    # a one-sided bound, typed as Rust types it: an f32 value meets the bound as an f32, so
    # the f32 nearest 1e-6 (just below it) is not below it, as in Rust
    actual, check = rust_check("assert!(truncate_number(&t1) < 0.000001)")
    assert actual == "truncate_number(&t1)" and check.op == "below"
    assert status(check, f32(0.0)) == "pass" and status(check, f32(0.5)) == "wrong_answer"
    assert status(check, f32(1e-6)) == "wrong_answer"
    assert status(check, f64(struct.unpack(">f", struct.pack(">f", 1e-6))[0])) == "pass"
    actual, check = rust_check("assert!(mad(vec![1.0, 2.0]) - 2.0 / 3.0 <= 0.000001)")
    assert actual == "mad(vec![1.0, 2.0]) - 2.0 / 3.0" and check.inclusive
    assert status(check, f64(1e-6)) == "pass" and status(check, {"$opaque": 1}) == "wrong_answer"
    for ambiguous in ("f(x) < g(y)", "f::<i32>(x) < 3", "f(x) << 2 < 3", "f(x) > 3"):
        assert rust_check(f"assert!({ambiguous})") is None, ambiguous


def test_node_assert_shapes_and_semantics() -> None:
    from data_builders.execution.compiled.languages.js import node_assert_check

    actual, check = node_assert_check("assert.deepEqual(candidate([1, 2]), [2, 3])")
    assert actual == "candidate([1, 2])" and check.op == "deep" and not check.strict
    assert status(check, [2, 3]) == "pass" and status(check, ["2", 3]) == "pass"  # loose ==
    assert status(check, [2]) == "wrong_answer"
    _, check = node_assert_check("assert.deepStrictEqual(candidate(1), [2, {a: 1}])")
    assert status(check, [2, {"$object": [["a", 1]]}]) == "pass"
    assert status(check, ["2", {"$object": [["a", 1]]}]) == "wrong_answer"
    _, check = node_assert_check("assert.strictEqual(candidate(1), 'x')")
    assert status(check, "x") == "pass"
    _, check = node_assert_check("assert.ok(candidate(1) === true)")
    assert check.op == "eq" and status(check, True) == "pass"
    _, check = node_assert_check("assert(!candidate(1))")
    assert check.op == "truthy" and check.negate
    assert node_assert_check("assert.deepEqual(candidate(x), y)") is None
    assert node_assert_check("assert.throws(() => candidate(1))") is None


def test_java_maps_built_from_constants_are_judged_on_the_host() -> None:
    test = """public class Main {
    public static void main(String[] args) {
        Solution s = new Solution();
        Map<String, Integer> map1 = new HashMap<>();
        map1.put("a", 424242);
        map1.put("b", 2);
        Map<String, Integer> used = new HashMap<>();
        used.put("c", 737373);
        List<Boolean> correct = Arrays.asList(
                s.histogram("a b").equals(map1),
                s.histogram(used.toString()).equals(used)
        );
        if (correct.contains(false)) {
            throw new AssertionError();
        }
    }
}
"""
    driver = get_language("java").driver("class Solution {}\n", test)
    text = next(iter(driver.files.values()))
    assert "424242" not in text and "737373" in text  # `used` has another use: in the program
    check = driver.checks[0]
    assert check is not None and driver.checks[1] is None
    pairs = [["b", 2], ["a", 424242]]
    assert status(check, {"$map": pairs}) == "pass"
    assert status(check, {"$map": [["a", 424242]]}) == "wrong_answer"
    assert status(check, {"$map": [["a", {"$long": "424242"}], ["b", 2]]}) == "wrong_answer"


# -- assertions judged from a reference run (languages/computed.py) -----------------------
def test_loop_turns_are_judged_turn_by_turn() -> None:
    from data_builders.execution.compiled.checks import judge_series

    check = Check("cpp", "eq", [1, 2, 3], origin="reference", each="turns")
    turns = [b"1", b"2", b"3"]
    assert judge_series(check, turns, None) == ("pass", "")
    assert judge_series(check, [b"1", b"5", b"3"], None)[0] == "wrong_answer"
    assert judge_series(check, turns[:2], None)[0] == "wrong_answer"  # fewer turns
    assert judge_series(check, [*turns, b"4"], None)[0] == "wrong_answer"  # more turns
    # an error in a turn is the worst, as an in-program case in a loop reported it
    assert judge_series(check, [b"1", b"5"], ("runtime_error", "boom"))[0] == "runtime_error"


def test_java_loop_stops_at_the_first_failed_turn() -> None:
    check = Check("java", "eq", [1, 2, 3], origin="reference", each="list", stop_first=True)

    def turns(values: list, error: list | None) -> str:
        return status(check, {"$turns": [values, error]})

    assert turns([1, 2, 3], None) == "pass"
    assert turns([1, 5, 3], None) == "wrong_answer"
    # the test threw at turn 1 before the error of turn 2
    assert turns([1, 5], ["runtime_error", "java.lang.Error"]) == "wrong_answer"
    assert turns([1, 2], ["runtime_error", "java.lang.Error"]) == "runtime_error"
    assert status(check, [1, 2, 3]) == "runtime_error"  # not a loop's turns


def test_self_pairs_and_the_find_zero_property() -> None:
    same = Check("cpp", "issame", origin="self")
    assert status(same, [[1, 2], [1, 2]]) == "pass"
    assert status(same, [[1, 2], [2, 1]]) == "wrong_answer"
    assert status(same, [1, 2, 3]) == "wrong_answer"  # not a pair
    both = Check("js", "json_both", origin="self")
    assert status(both, [[1, 2], [1, 2]]) == "pass"
    assert status(both, [[1, 2], [1, 3]]) == "wrong_answer"
    # poly(xs, x) = -2 + x: any root within the tolerance passes, not only the reference's
    root = Check("cpp", "poly", [-2.0, 1.0], tol=1e-3, origin="reference")
    assert status(root, f64(2.0)) == status(root, f64(2.0 + 1e-6)) == "pass"
    assert status(root, f64(3.0)) == "wrong_answer"
    assert status(root, {"$float": "nan"}) == "wrong_answer"
    # Java's `if (Math.abs(poly(xs, x)) > T) throw`: holds unless above the tolerance
    above = Check("java", "poly_above", [-2.0, 1.0], tol=1e-4, negate=True, origin="reference")
    assert status(above, f64(2.0)) == "pass"
    assert status(above, f64(3.0)) == "wrong_answer"
    assert status(above, {"$float": "nan"}) == "pass"  # NaN > T is false in Java


def test_computed_shapes() -> None:
    from data_builders.execution.compiled.languages.computed import defined_names
    from data_builders.execution.compiled.languages.cpp import cpp_computed
    from data_builders.execution.compiled.languages.java_checks import java_computed
    from data_builders.execution.compiled.languages.js import js_computed

    names = frozenset({"f", "poly"})
    found = cpp_computed("f(x) == x + 1", "", names)
    assert found is not None and found[:2] == ("f(x)", "x + 1") and found[2].origin == "reference"
    assert cpp_computed("x + 1 != f(x)", "", names)[2].negate
    assert cpp_computed("abs(poly(xs, root)) < 1e-3", "", names)[:2] == ("root", "xs")
    assert cpp_computed("x == y", "", names) is None  # neither side calls the program
    assert js_computed("x + y === f(x, y)", names)[:2] == ("f(x, y)", "x + y")
    assert js_computed("JSON.stringify(f(1)) == JSON.stringify(f(1))", names)[2].op == "json_both"
    found = java_computed("!s.f(e).equals(str)", names, fails=True)
    assert found[:2] == ("s.f(e)", "str") and (found[2].op, found[2].negate) == ("equals", False)
    assert java_computed("s.f(x) != x + y", names, fails=True)[2].negate is False
    # names come from code, not from comments or strings
    source = '/* f(x) { */\nint g(int x) { return 1; }\nconst char* s = "h() {";\n'
    assert defined_names(source, "cpp") == {"g"}
