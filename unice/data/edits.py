"""What a candidate changed in the reference: the edit itself, as features of the head.

Why: a string metric sees *how much* of the reference a candidate keeps, never *what* it
changed. A program one token away from a passing reference fails or not depending on which
token: ``<`` for ``<=`` at a loop bound, ``0`` for ``1`` in an accumulator, ``true`` for
``false`` in a return, each costs ROUGE-L the same hundredth. An encoder that reads g and r
apart never lines them up. So the token-level diff of g against r is read here (comments
dropped, so a comment-only change is the identical program it is) and summarised as its size
and the kinds of tokens it touches, in any language: the head can learn which edits break a
program, from the labelled mutants and real programs it trains on.

Rows without a reference get zeros (``has_reference`` among the exact features says so).
"""

from __future__ import annotations

import difflib
import math
import re

from unice.data.languages import DEFAULT_LANGUAGE, check_language

EDIT_KINDS: tuple[str, ...] = (
    "comparison",
    "arithmetic",
    "logical",
    "number",
    "boolean",
    "string",
    "name",
    "punctuation",
)
"""Token kinds of an edit, each a flag: does the diff touch a token of this kind (either side)."""
EDIT_FEATURES: tuple[str, ...] = (
    "same_code",
    "edited_tokens",
    "edited_share",
    "edit_regions",
) + tuple(f"edit_{kind}" for kind in EDIT_KINDS)
"""The order of :func:`edit_features`'s vector (after the exact features, with ``edit_features``)."""

SCALE_TOKENS = 200
"""``log1p(count) / log1p(SCALE_TOKENS)`` (clipped at 1) puts token and region counts in [0, 1]."""

_DOUBLE = r"\"(?:\\.|[^\"\\\n])*\""
_STRINGS = {  # a language's string and character literals (JavaScript quotes strings either way)
    "js": rf"{_DOUBLE}|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`",
    "go": rf"{_DOUBLE}|'(?:\\.|[^'\\\n])+'|`[^`]*`",
    "other": rf"{_DOUBLE}|'(?:\\.|[^'\\\n])'",
}
_PY_STRING = r"(?:[rbuf]{0,2})(?:'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*')"
_OPERATORS = (
    r"===|!==|\*\*=|//=|>>=|<<=|==|!=|<=|>=|&&|\|\||\+\+|--|\+=|-=|\*=|/=|%=|\*\*|//|->|=>|::|<<|>>"
)
_TOKEN = rf"[A-Za-z_][A-Za-z0-9_]*|\d[\w.]*|{_OPERATORS}|[^\sA-Za-z0-9_]"
_COMMENT = {
    DEFAULT_LANGUAGE: r"#[^\n]*",
    "other": r"//[^\n]*|/\*[\s\S]*?\*/",
}

COMPARISON = frozenset({"==", "!=", "===", "!==", "<", ">", "<=", ">="})
ARITHMETIC = frozenset(
    {"+", "-", "*", "/", "%", "**", "//", "++", "--", "+=", "-=", "*=", "/=", "%=", "**=", "//="}
)
LOGICAL = frozenset({"&&", "||", "!", "and", "or", "not"})
BOOLEAN = frozenset({"true", "false", "True", "False"})


def _pattern(language: str) -> re.Pattern[str]:
    if language == DEFAULT_LANGUAGE:
        comment, string = _COMMENT[DEFAULT_LANGUAGE], _PY_STRING
    else:
        comment, string = _COMMENT["other"], _STRINGS.get(language, _STRINGS["other"])
    return re.compile(rf"(?P<comment>{comment})|(?P<string>{string})|(?P<token>{_TOKEN})")


_PATTERNS: dict[str, re.Pattern[str]] = {}


def edit_tokens(code: str, language: str = DEFAULT_LANGUAGE) -> list[str]:
    """The tokens an edit is measured in: names, numbers, whole string and character literals,
    multi-character operators (``<=`` is one token, so ``<`` -> ``<=`` is one edit), single
    punctuation; comments dropped."""
    language = check_language(language)
    if language not in _PATTERNS:
        _PATTERNS[language] = _pattern(language)
    pattern = _PATTERNS[language]
    return [m.group() for m in pattern.finditer(code) if m.lastgroup != "comment"]


def token_kind(token: str) -> str:
    """Which of :data:`EDIT_KINDS` a token is."""
    if token in COMPARISON:
        return "comparison"
    if token in ARITHMETIC:
        return "arithmetic"
    if token in LOGICAL:
        return "logical"
    if token in BOOLEAN:
        return "boolean"
    if token[0].isdigit():
        return "number"
    if token[0] in "\"'`" or (len(token) > 1 and token[-1] in "\"'"):
        return "string"
    if token[0].isalpha() or token[0] == "_":
        return "name"
    return "punctuation"


def _scaled(count: int) -> float:
    return min(1.0, math.log1p(count) / math.log1p(SCALE_TOKENS))


def edit_features(
    generated: str, reference: str | None, language: str = DEFAULT_LANGUAGE
) -> list[float]:
    """:data:`EDIT_FEATURES` of ``generated`` against ``reference``: whether the code (without
    comments) is the reference's, how many tokens the diff changes (scaled), what share of
    both sides' tokens that is, in how many places, and which kinds of token it touches.
    All zeros without a reference."""
    if not reference or not reference.strip():
        return [0.0] * len(EDIT_FEATURES)
    g, r = edit_tokens(generated, language), edit_tokens(reference, language)
    matcher = difflib.SequenceMatcher(None, r, g, autojunk=False)
    changed: list[str] = []
    regions = 0
    for tag, r_start, r_end, g_start, g_end in matcher.get_opcodes():
        if tag == "equal":
            continue
        regions += 1
        changed += r[r_start:r_end] + g[g_start:g_end]
    kinds = {token_kind(token) for token in changed}
    share = len(changed) / max(1, len(g) + len(r))
    return [
        1.0 if not changed else 0.0,
        _scaled(len(changed)),
        share,
        _scaled(regions),
    ] + [1.0 if kind in kinds else 0.0 for kind in EDIT_KINDS]
