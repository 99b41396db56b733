"""Assertion splitting per language (pure text: no toolchain needed)."""

from __future__ import annotations

import pytest

from data_builders.execution.compiled.languages import SplitError, get_language
from data_builders.execution.compiled.languages.source import split_top_level, statements

CPP_TEST = """#undef NDEBUG
#include<assert.h>
bool issame(vector<int> a, vector<int> b) { return a == b; }
int main(){
    vector<float> a={1.0, 2.0};
    assert (f(a, 0.3)==true);
    // assert(commented_out());
    assert(issame(g({1, 2}), {2, 1}));
    const char* s = "assert(not_code)";
    for (int i = 0; i < 3; i++) assert(h(i) == i);
}
"""

JAVA_TEST = """public class Main {
    public static void main(String[] args) {
        Solution s = new Solution();
        List<Boolean> correct = Arrays.asList(
                s.f(Arrays.asList(1, 2), 3) == 4,
                !s.g("a,b"),
                s.h(new ArrayList<>(List.of(1, 2))).equals(List.of(2, 1))
        );
        if (correct.contains(false)) {
            throw new AssertionError();
        }
        for (int i = 0; i < 3; i++) {
            if (s.f(List.of(i), i) != i) {
                throw new AssertionError();
            }
        }
    }
}
"""

JS_TEST = """const testF = () => {
  console.assert(f([1, 2], 'a)b') === 3)
  console.assert(
    JSON.stringify(g(1)) === JSON.stringify([1, 2]),
    'message, with comma'
  )
  // console.assert(h())
  const s = `console.assert(${1})`
  assert.deepEqual(h(1), [1])
}
testF()
"""

GO_TEST = """func TestF(t *testing.T) {
    assert := assert.New(t)
    assert.Equal(3, F([]int{1, 2}))
    assert.Equal("a)b", G("a"))
}
"""


def test_cpp_splits_each_assert_in_main_only() -> None:
    assert get_language("cpp").split(CPP_TEST) == [
        "f(a, 0.3)==true",
        "issame(g({1, 2}), {2, 1})",
        "h(i) == i",
    ]


def test_java_splits_the_correct_list_and_throwing_statements() -> None:
    cases = get_language("java").split(JAVA_TEST)
    assert cases[:3] == [
        "s.f(Arrays.asList(1, 2), 3) == 4",
        '!s.g("a,b")',
        "s.h(new ArrayList<>(List.of(1, 2))).equals(List.of(2, 1))",
    ]
    assert len(cases) == 4 and cases[3].startswith("for (int i = 0")


def test_js_splits_console_assert_and_node_assert_skipping_strings_and_comments() -> None:
    cases = get_language("js").split(JS_TEST)
    assert len(cases) == 3
    assert cases[0] == "console.assert(f([1, 2], 'a)b') === 3)"
    assert cases[2] == "assert.deepEqual(h(1), [1])"


def test_js_driver_checks_only_the_first_console_assert_argument() -> None:
    driver = get_language("js").driver("const f = () => 0\n", JS_TEST)
    text = driver.files["main.js"]
    # the value of the first argument's expression, judged on the host: the expected value
    # is not in the driver, nor is the message
    assert "__unice_value(1, () => (JSON.stringify(g(1))))" in text
    assert "JSON.stringify([1, 2])" not in text and "message, with comma" not in text
    assert driver.checks[1].op == "json" and driver.checks[1].expected == [1.0, 2.0]


def test_go_splits_testify_checks_but_not_assert_new() -> None:
    assert get_language("go").split(GO_TEST) == [
        "assert.Equal(3, F([]int{1, 2}))",
        'assert.Equal("a)b", G("a"))',
    ]


def test_rust_splits_assert_macros() -> None:
    test = 'mod tests {\n fn t() {\n  assert_eq!(f(vec![1, 2]), 3);\n  let x = 1;\n  assert!(g("a)") < x);\n }\n}\n'
    assert get_language("rust").split(test) == [
        "assert_eq!(f(vec![1, 2]), 3)",
        'assert!(g("a)") < x)',
    ]


@pytest.mark.parametrize("language", ["cpp", "java", "js", "go", "rust"])
def test_a_test_without_assertions_is_refused(language: str) -> None:
    with pytest.raises(SplitError):
        get_language(language).split("int main() { return 0; }\n")


def test_top_level_helpers() -> None:
    assert split_top_level("f(a, b), {1, 2}, 'x,y', c") == ["f(a, b)", "{1, 2}", "'x,y'", "c"]
    body = "int a = 1; for (;;) { x(); } if (a) b(); else { c(); } d();"
    assert [body[s:e] for s, e in statements(body)] == [
        "int a = 1;",
        "for (;;) { x(); }",
        "if (a) b(); else { c(); }",
        "d();",
    ]


def test_unknown_language_is_one_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown language 'cobol'"):
        get_language("cobol")


def test_java_main_with_a_throws_clause() -> None:
    test = JAVA_TEST.replace(
        "main(String[] args) {", "main(String[] args) throws NoSuchAlgorithmException {"
    )
    driver = get_language("java").driver("class Solution {}\n", test).files["Main.java"]
    assert "__unice_main(String[] __unice_args) throws Exception {" in driver
    assert "NoSuchAlgorithmException" not in driver
