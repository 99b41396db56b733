"""The literal translation table per language, and the values that must not translate."""

from __future__ import annotations

import pytest

from data_builders.test_translation.literals import Untranslatable, literal
from data_builders.test_translation.types import (
    parse_cpp_type,
    parse_go_type,
    parse_java_type,
    parse_rust_type,
)

CPP = [
    ("int", 5, "5"),
    ("int", -2147483648, "-2147483648"),
    ("long long", 2**40, "1099511627776"),
    ("long long", -(2**63), "(-9223372036854775807LL - 1)"),
    ("float", 0.5, "0.5f"),
    ("float", 3, "3.0f"),
    ("double", 1e-05, "1e-05"),
    ("double", 1e20, "1e+20"),
    ("bool", True, "true"),
    ("string", 'a"b\\c\nd', '"a\\"b\\\\c\\nd"'),
    ("string", "\x01" + "7", '"\\0017"'),
    ("string", "é☃😀", '"\\u00e9\\u2603\\U0001f600"'),
    ("char", "'", "'\\''"),
    ("vector<int>", [1, -2], "std::vector<int>{1, -2}"),
    ("vector<int>", (3, 4), "std::vector<int>{3, 4}"),
    ("vector<float>", [], "std::vector<float>{}"),
    (
        "vector<vector<int>>",
        [[1], []],
        "std::vector<std::vector<int>>{std::vector<int>{1}, std::vector<int>{}}",
    ),
    ("vector<string>", ["x"], 'std::vector<std::string>{"x"}'),
    ("map<char,int>", {"a": 2}, "std::map<char, int>{{'a', 2}}"),
    ("pair<int,string>", (1, "a"), 'std::pair<int, std::string>{1, "a"}'),
    ("tuple<int,bool,double>", [1, True, 0.5], "std::tuple<int, bool, double>{1, true, 0.5}"),
    ("map<string,string>", {"k": "v"}, 'std::map<std::string, std::string>{{"k", "v"}}'),
]

JAVA = [
    ("int", 7, "7"),
    ("long", 7, "7L"),
    ("Long", -(2**63), "-9223372036854775808L"),
    ("double", 2, "2.0"),
    ("Double", 0.1, "0.1"),
    ("float", 1.5, "1.5f"),
    ("boolean", False, "false"),
    ("String", 'q"\\\n\t', '"q\\"\\\\\\n\\t"'),
    ("String", "\x00\x0b", '"\\000\\013"'),
    ("String", "é😀", '"\\u00e9\\ud83d\\ude00"'),
    ("char", "a", "'a'"),
    ("List<Integer>", [1, 2], "new ArrayList<>(Arrays.asList(1, 2))"),
    ("List<Integer>", [], "new ArrayList<>()"),
    ("List<Double>", [1, 2.5], "new ArrayList<>(Arrays.asList(1.0, 2.5))"),
    (
        "List<List<Integer>>",
        [[1], []],
        "new ArrayList<>(Arrays.asList(new ArrayList<>(Arrays.asList(1)), new ArrayList<>()))",
    ),
    ("Map<String, Integer>", {"a": 1}, 'new HashMap<>(Map.ofEntries(Map.entry("a", 1)))'),
    ("Map<String, Integer>", {}, "new HashMap<>()"),
    ("Optional<Integer>", None, "Optional.empty()"),
    ("Optional<String>", "z", 'Optional.of("z")'),
    ("Object", 3, "3"),
    ("Object", 2**40, "1099511627776L"),
    ("Object", "s", '"s"'),
    ("Object", None, "null"),
    (
        "List<Object>",
        [1, "a", 2.5, [True]],
        'new ArrayList<>(Arrays.asList(1, "a", 2.5, new ArrayList<>(Arrays.asList(true))))',
    ),
    ("Pair<Integer, String>", (1, "b"), 'Pair.with(1, "b")'),
    ("Triplet<Long, Long, Boolean>", [1, 2, False], "Triplet.with(1L, 2L, false)"),
]

JS = [
    (5, "5"),
    (-0.25, "-0.25"),
    (2.0, "2.0"),
    (float("inf"), "Infinity"),
    (None, "null"),
    (True, "true"),
    ('a"\\\n\x1f', '"a\\"\\\\\\n\\x1f"'),
    ("é😀", '"\\u00e9\\u{1f600}"'),
    ([1, [2, "x"]], '[1, [2, "x"]]'),
    ((1, 2), "[1, 2]"),
    ({"a": 1, 2: [3]}, '{"a": 1, 2: [3]}'),
]

GO = [
    ("int", 2**40, "1099511627776"),
    ("float64", 3, "3.0"),
    ("bool", True, "true"),
    ("string", 'x"\\\n\x7f', '"x\\"\\\\\\n\\x7f"'),
    ("string", "é😀", '"\\u00e9\\U0001f600"'),
    ("rune", "ü", "'\\u00fc'"),
    ("[]int", [1, 2], "[]int{1, 2}"),
    ("[]int", [], "[]int{}"),
    ("[][]int", [[1], []], "[][]int{[]int{1}, []int{}}"),
    ("[]float64", [0.5], "[]float64{0.5}"),
    ("[2]int", (1, 2), "[2]int{1, 2}"),
    ("[2]interface{}", [None, 3], "[2]interface{}{nil, 3}"),
    ("map[rune]int", {"a": 1}, "map[rune]int{'a': 1}"),
    ("map[interface{}]interface{}", {"a": "B"}, 'map[interface{}]interface{}{"a": "B"}'),
    ("interface{}", [1, "a"], '[]interface{}{1, "a"}'),
    ("interface{}", 2.5, "2.5"),
]

RUST = [
    ("i32", -5, "-5"),
    ("i64", 2**40, "1099511627776"),
    ("u32", 7, "7"),
    ("f32", 3, "3.0"),
    ("f64", 1e-05, "1e-05"),
    ("bool", False, "false"),
    ("&str", 'a"\\\n\x00', '"a\\"\\\\\\n\\0"'),
    ("String", "hi", '"hi".to_string()'),
    ("&str", "é😀", '"\\u{e9}\\u{1f600}"'),
    ("char", "'", "'\\''"),
    ("Vec<i32>", [1, 2], "vec![1, 2]"),
    ("Vec<i32>", [], "Vec::<i32>::new()"),
    ("Vec<String>", ["a"], 'vec!["a".to_string()]'),
    ("Vec<&str>", ["a"], 'vec!["a"]'),
    ("Vec<Vec<i32>>", [[1], []], "vec![vec![1], Vec::<i32>::new()]"),
    ("&Vec<f64>", [1, 2.5], "&vec![1.0, 2.5]"),
    ("&f32", 0.5, "&0.5"),
    ("(i32, i32)", (1, 2), "(1, 2)"),
    ("(f32,f32)", [1.0, 2.0], "(1.0, 2.0)"),
    ("Option<String>", None, "None"),
    ("Option<String>", "x", 'Some("x".to_string())'),
    ("HashMap<char, i32>", {"a": 1}, "HashMap::from([('a', 1)])"),
    ("HashMap<&str, &str>", {}, "HashMap::<&str, &str>::new()"),
]


@pytest.mark.parametrize(("spelled", "value", "expected"), CPP)
def test_cpp_literals(spelled, value, expected):
    assert literal("cpp", value, parse_cpp_type(spelled)) == expected


@pytest.mark.parametrize(("spelled", "value", "expected"), JAVA)
def test_java_literals(spelled, value, expected):
    assert literal("java", value, parse_java_type(spelled)) == expected


@pytest.mark.parametrize(("value", "expected"), JS)
def test_js_literals(value, expected):
    from data_builders.test_translation.types import ANY

    assert literal("js", value, ANY) == expected


@pytest.mark.parametrize(("spelled", "value", "expected"), GO)
def test_go_literals(spelled, value, expected):
    assert literal("go", value, parse_go_type(spelled)) == expected


@pytest.mark.parametrize(("spelled", "value", "expected"), RUST)
def test_rust_literals(spelled, value, expected):
    assert literal("rust", value, parse_rust_type(spelled)) == expected


UNTRANSLATABLE = [
    ("java", parse_java_type("int"), 2**31, "does not fit Java int (32-bit)"),
    ("java", parse_java_type("long"), 2**63, "does not fit Java long (64-bit)"),
    ("cpp", parse_cpp_type("int"), None, "None where C++ int is declared"),
    ("cpp", parse_cpp_type("int"), True, "bool where C++ int is declared"),
    ("cpp", parse_cpp_type("bool"), 1, "int where C++ bool is declared"),
    ("cpp", parse_cpp_type("char"), "é", "does not fit a C++ char"),
    ("cpp", parse_cpp_type("char"), "ab", "is not one character"),
    ("cpp", parse_cpp_type("double"), float("nan"), "non-finite float"),
    ("cpp", parse_cpp_type("double"), 2**60 + 1, "is not exact"),
    ("cpp", parse_cpp_type("boost::any"), 1, "has no literal form"),
    ("cpp", parse_cpp_type("vector<int>"), {"a": 1}, "dict where C++ vector<int> is declared"),
    ("cpp", parse_cpp_type("string"), "\ud800", "lone surrogate"),
    ("java", parse_java_type("Map<String, Integer>"), {"a": None}, "null"),
    ("java", parse_java_type("Pair<Integer, Integer>"), (1, 2, 3), "3 items"),
    ("go", parse_go_type("[2]int"), [1], "1 items where Go [2]int has 2"),
    ("go", parse_go_type("int"), 1.5, "float where Go int is declared"),
    ("rust", parse_rust_type("u32"), -1, "does not fit Rust u32"),
    ("rust", parse_rust_type("Box<dyn Any>"), 1, "has no literal form"),
    ("rust", parse_rust_type("RtnType<String,f64,i32>"), 1, "has no literal form"),
    ("rust", parse_rust_type("Vec<i32>"), [1, None], "None where Rust i32"),
    ("js", None, 2**60, "not exact as a JavaScript number"),
    ("js", None, {(1, 2): 3}, "dict key"),
    ("js", None, {1, 2}, "set has no JavaScript literal"),
]


@pytest.mark.parametrize(("language", "t", "value", "reason"), UNTRANSLATABLE)
def test_untranslatable_values_say_why(language, t, value, reason):
    from data_builders.test_translation.types import ANY

    with pytest.raises(Untranslatable) as info:
        literal(language, value, t or ANY)
    assert reason in info.value.reason


def test_unknown_language_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown language 'cobol'"):
        literal("cobol", 1, parse_cpp_type("int"))


def test_huge_ints_are_untranslatable_with_a_short_reason():
    huge = 10**5000  # str() of it raises in Python >= 3.11: the reason gives its size instead
    with pytest.raises(Untranslatable, match="int of 16610 bits does not fit Java int"):
        literal("java", huge, parse_java_type("int"))
    with pytest.raises(
        Untranslatable, match="int of 16610 bits is not exact as a JavaScript number"
    ):
        literal("js", -huge, parse_java_type("Object"))
