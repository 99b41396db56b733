"""The edit features: what a candidate changed in the reference, in any language."""

from __future__ import annotations

import pytest

from unice.data.edits import EDIT_FEATURES, EDIT_KINDS, edit_features, edit_tokens, token_kind

CPP_REFERENCE = """int count(int n) {
    int total = 0;
    for (int i = 0; i < n; i++) { total += i; }  // sum below n
    return total;
}"""


def _named(values: list[float]) -> dict[str, float]:
    assert len(values) == len(EDIT_FEATURES)
    return dict(zip(EDIT_FEATURES, values, strict=True))


def _kinds(values: list[float]) -> set[str]:
    named = _named(values)
    return {kind for kind in EDIT_KINDS if named[f"edit_{kind}"] == 1.0}


def test_a_comment_only_change_is_the_same_code():
    edited = CPP_REFERENCE.replace("// sum below n", "/* another comment */")
    named = _named(edit_features(edited, CPP_REFERENCE, "cpp"))
    assert named["same_code"] == 1.0
    assert named["edited_tokens"] == named["edited_share"] == named["edit_regions"] == 0.0


def test_one_operator_edit_is_one_comparison_token():
    edited = CPP_REFERENCE.replace("i < n", "i <= n")
    values = edit_features(edited, CPP_REFERENCE, "cpp")
    named = _named(values)
    assert named["same_code"] == 0.0
    assert _kinds(values) == {"comparison"}  # `<=` is one token, not `<` plus `=`
    assert 0.0 < named["edited_tokens"] < 0.25  # two tokens (one each side), log-scaled
    assert named["edit_regions"] > 0.0


@pytest.mark.parametrize(
    ("old", "new", "kind"),
    [("= 0;", "= 1;", "number"), ("+=", "-=", "arithmetic"), ("total;", "n;", "name")],
)
def test_each_edit_is_named_by_the_token_it_touches(old, new, kind):
    edited = CPP_REFERENCE.replace(old, new, 1)
    assert _kinds(edit_features(edited, CPP_REFERENCE, "cpp")) == {kind}


def test_an_operator_inside_a_string_is_a_string_edit():
    reference = 'std::string f() { return "a<b"; }'
    edited = 'std::string f() { return "a<=b"; }'
    assert _kinds(edit_features(edited, reference, "cpp")) == {"string"}


def test_languages_tokenize_their_own_literals_and_comments():
    assert edit_tokens("const s = 'a b' + `c`; // note", "js") == [
        "const", "s", "=", "'a b'", "+", "`c`", ";",
    ]  # fmt: skip
    assert edit_tokens("x //= 2  # halve", "python") == ["x", "//=", "2"]
    assert edit_tokens("return !a && b;", "java") == ["return", "!", "a", "&&", "b", ";"]
    assert token_kind("true") == "boolean" and token_kind("&&") == "logical"
    assert {token_kind(t) for t in ("'a b'", "`c`", 'f"{x}"', '"s"')} == {"string"}


def test_a_rewrite_edits_more_than_one_token():
    one = _named(edit_features(CPP_REFERENCE.replace("i < n", "i <= n"), CPP_REFERENCE, "cpp"))
    rewrite = "int count(int n) { return n * (n - 1) / 2; }"
    many = _named(edit_features(rewrite, CPP_REFERENCE, "cpp"))
    assert many["edited_tokens"] > one["edited_tokens"]
    assert many["edited_share"] > one["edited_share"]


def test_without_a_reference_every_feature_is_zero():
    assert edit_features("return 1", None) == [0.0] * len(EDIT_FEATURES)
    assert edit_features("return 1", "  ") == [0.0] * len(EDIT_FEATURES)
