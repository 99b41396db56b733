"""Static exact features of C++, Java, JavaScript, Go and Rust candidates (tree-sitter):
values checked by hand on small programs, totality, and HumanEval-X's canonical solutions."""

from __future__ import annotations

import gzip
import json
import math
from pathlib import Path

import pytest

from unice.data import code_parsing
from unice.data.features import (
    FEATURE_NAMES,
    STATIC_FEATURES,
    STRUCTURE_FEATURES,
    clean_generated,
    exact_features,
    static_features,
    structure_features,
)
from unice.data.languages import LANGUAGES
from unice.errors import DatasetFormatError

HUMANEVAL_X = Path(__file__).resolve().parents[3] / "shared" / "data" / "humaneval_x"
OK = [1.0, 1.0, 0.0, 0.0, 1.0]
NO_PARSE = [0.0] * 5
UNDEFINED = [1.0, 1.0, 1.0, math.log1p(1), 1.0]
NO_RETURN = [1.0, 1.0, 0.0, 0.0, 0.0]
NO_ENTRY = [1.0, 0.0, 0.0, 0.0, 0.0]

# Per language, HumanEval-X's convention: nl ends at the entry's opening brace, the candidate
# is the body that closes it (and, in Java, the class). Bodies: correct, a syntax error, a call
# to a helper nothing defines, no value returned; then the entry's name, and a whole program
# defining only another function.
CASES = {
    "cpp": (
        "#include<vector>\nusing namespace std;\n/* Sum of v. */\nint total(vector<int> v){\n",
        "    int s = 0;\n    for (int x : v) s += x;\n    return s;\n}\n",
        "    int s = 0\n    for (int x : v) s += ;\n    return s;\n}\n",
        "    return helper_sum(v);\n}\n",
        "    int s = 0;\n    for (int x : v) s += x;\n}\n",
        "total",
        "int other(vector<int> v){ return 0; }\n",
    ),
    "java": (
        "import java.util.*;\n\nclass Solution {\n    /** Sum of v. */\n"
        "    public int total(List<Integer> v) {\n",
        "        int s = 0;\n        for (int x : v) s += x;\n        return s;\n    }\n}\n",
        "        int s = 0;\n        for (int x : v) s += x\n        return s;\n    }\n}\n",
        "        return helperSum(v);\n    }\n}\n",
        "        int s = 0;\n        for (int x : v) s += x;\n    }\n}\n",
        "total",
        "class Solution {\n    int other(List<Integer> v) { return 0; }\n}\n",
    ),
    "js": (
        "/* Sum of v. */\nconst total = (v) => {\n",
        "  let s = 0;\n  for (const x of v) s += x;\n  return s;\n}\n",
        "  let s = 0;\n  for (const x of v s += x;\n  return s;\n}\n",
        "  return helperSum(v);\n}\n",
        "  let s = 0;\n  for (const x of v) s += x;\n}\n",
        "total",
        "const other = (v) => 0;\n",
    ),
    "go": (
        'import (\n    "math"\n)\n\n// Sum of v.\nfunc Total(v []int) int {\n',
        "    s := 0\n    for _, x := range v {\n        s += x\n    }\n    return s\n}\n",
        "    s := 0\n    for _, x := range v {\n        s += \n    }\n    return s\n}\n",
        "    return helperSum(v)\n}\n",
        "    s := 0\n    for _, x := range v {\n        s += x\n    }\n}\n",
        "Total",
        "func Other(v []int) int { return 0 }\n",
    ),
    "rust": (
        "use std::cmp::max;\n\n/* Sum of v. */\nfn total(v: Vec<i32>) -> i32 {\n",
        "    let mut s = 0;\n    for x in v.iter() {\n        s += x;\n    }\n    s\n}\n",
        "    let mut s = 0;\n    for x in v.iter() {\n        s += ;\n    }\n    s\n}\n",
        "    helper_sum(v)\n}\n",
        "    let mut s = 0;\n    for x in v.iter() {\n        s += x;\n    }\n}\n",
        "total",
        "fn other(v: Vec<i32>) -> i32 { 0 }\n",
    ),
}
OTHER = [lang for lang in LANGUAGES if lang != "python"]


def test_every_other_language_has_cases():
    assert sorted(CASES) == sorted(OTHER)
    assert len(STATIC_FEATURES) == code_parsing.N_STATIC


@pytest.mark.parametrize("language", OTHER)
def test_static_features_by_hand(language):
    nl, correct, broken, undefined, no_return, name, other = CASES[language]
    assert static_features(correct, nl, None, language=language) == OK
    assert static_features(broken, nl, None, language=language) == NO_PARSE
    assert static_features(undefined, nl, None, language=language) == UNDEFINED
    assert static_features(no_return, nl, None, language=language) == NO_RETURN
    assert code_parsing.entry_point(nl, None, language) == name
    whole = nl + correct
    assert static_features(other, None, whole, language=language) == NO_ENTRY
    assert static_features(whole, None, whole, language=language) == OK  # a whole program


@pytest.mark.parametrize("language", OTHER)
def test_closing_braces_a_stop_cut_off_are_added_but_extra_ones_do_not_parse(language):
    nl, correct = CASES[language][:2]
    cut = correct.rstrip().removesuffix("}").rstrip().removesuffix("}")  # Java: both braces
    assert static_features(cut, nl, None, language=language)[0] == 1.0
    assert static_features(correct + "}\n", nl, None, language=language) == NO_PARSE


@pytest.mark.parametrize("language", OTHER)
def test_a_bare_body_without_its_signature_is_read_in_a_wrapper(language):
    """HumanEval-X's Rust prompt is only a comment: the body alone must still be judged."""
    correct = CASES[language][1]
    assert static_features(correct, "/* Sum of v. */\n", None, language=language) == OK


@pytest.mark.parametrize(
    ("language", "body"),
    [
        ("cpp", "    sort(v.begin(), v.end());\n    std::reverse(v.begin(), v.end());\n"
         "    auto sq = [](int x) { return x * x; };\n    return sq(v.size()) + abs(v[0]);\n}\n"),
        ("java", "        Collections.sort(v);\n        return v.get(0) + Math.abs(twice(1));\n"
         "    }\n    int twice(int x) { return 2 * x; }\n}\n"),
        ("js", "  const sq = (x) => x * x;\n  return v.map(sq).reduce((a, b) => a + b, 0)"
         " + parseInt('1') + Math.max(...v) + helper(1);\n}\nfunction helper(x) { return x; }\n"),
        ("go", "    sq := func(x int) int { return x * x }\n"
         "    return sq(len(v)) + int(math.Abs(float64(v[0])))\n}\n"),
        ("rust", "    let sq = |x: i32| x * x;\n    let w: Vec<i32> = Vec::new();\n"
         "    max(sq(v.len() as i32), w.len() as i32)\n}\n"),
    ],
)  # fmt: skip
def test_local_library_method_and_qualified_calls_are_not_undefined(language, body):
    nl = CASES[language][0]
    assert static_features(body, nl, None, language=language) == OK


@pytest.mark.parametrize("language", OTHER)
def test_any_input_gives_a_vector(language):
    junk = bytes(range(256)).decode("latin-1")
    huge = "x = 1;\n" * (code_parsing.MAX_PARSE_CHARS // 7 + 1)
    for text in ("", " ", junk, "\udcff", "}" * 500, "{" * 500, huge):
        for nl in (None, "", text[:200], CASES[language][0]):
            out = static_features(text, nl, text[:200] or None, language=language)
            assert len(out) == len(STATIC_FEATURES)
            assert all(isinstance(v, float) and math.isfinite(v) for v in out)
    out = exact_features(junk, junk, junk, True, language=language)
    assert len(out) == len(FEATURE_NAMES) + len(STRUCTURE_FEATURES)


def test_unknown_language_is_one_line_naming_the_choices():
    for call in (
        lambda: static_features("x", None, None, language="cobol"),
        lambda: exact_features("x", None, None, language="cobol"),
        lambda: clean_generated("x", None, language="cobol"),
    ):
        with pytest.raises(DatasetFormatError) as info:
            call()
        message = str(info.value)
        assert "\n" not in message and "'cobol'" in message and "rust" in message


def test_other_languages_keep_reference_features_and_skip_cleaning_and_structure():
    nl, correct = CASES["cpp"][:2]
    py_like = 'print("x")\nassert 1\n' + correct
    assert clean_generated(py_like, nl, language="cpp") == py_like
    assert structure_features(correct, correct, language="cpp") == [0.0] * len(STRUCTURE_FEATURES)
    cpp = exact_features(correct, correct, nl, language="cpp")
    python = exact_features(correct, correct, nl)
    n_ref = len(FEATURE_NAMES) - len(STATIC_FEATURES)
    assert cpp[:n_ref] == python[:n_ref] and cpp[n_ref:] == OK


PYTHON_NL = 'def double(x: int) -> int:\n    """Twice x."""\n'
PYTHON_SAMPLES = [  # (generated, static features) as before languages existed
    ("    return 2 * x\n", [1.0, 1.0, 0.0, 0.0, 1.0]),
    ("    return helper(x)\n", [1.0, 1.0, 1.0, math.log1p(1), 1.0]),
    ("    y = 2 * x\n", [1.0, 1.0, 0.0, 0.0, 0.0]),
    ("    return (\n", [0.0] * 5),
]


@pytest.mark.parametrize(("generated", "expected"), PYTHON_SAMPLES)
def test_python_is_unchanged(generated, expected):
    assert static_features(generated, PYTHON_NL, None) == expected
    assert static_features(generated, PYTHON_NL, None, language="python") == expected
    ref = "    return x + x\n"
    assert exact_features(generated, ref, PYTHON_NL, True, language="python") == exact_features(
        generated, ref, PYTHON_NL, True
    )
    code = generated + 'print("done")\n'
    assert clean_generated(code, PYTHON_NL, language="python") == clean_generated(code, PYTHON_NL)


def _tasks(language: str) -> list[dict]:
    path = HUMANEVAL_X / f"humaneval_{language}.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


@pytest.mark.parametrize("language", OTHER)
def test_humaneval_x_canonical_solutions(language):
    """prompt + canonical_solution (HumanEval-X's convention, the rows' nl and body) parses,
    defines the entry point and calls nothing undefined for nearly every task."""
    if not HUMANEVAL_X.exists():
        pytest.skip(f"no HumanEval-X data at {HUMANEVAL_X}")
    tasks = _tasks(language)
    rows = [static_features(t["canonical_solution"], t["prompt"], None, language) for t in tasks]
    n = len(rows)
    assert n == 164
    assert sum(r[0] and r[1] for r in rows) >= 0.95 * n
    assert sum(r[0] and not r[2] for r in rows) >= 0.95 * n
    assert sum(r[4] for r in rows) >= 0.95 * n
