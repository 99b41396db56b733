"""Code layout as words, for tokenizers that drop newlines and indentation.

Why: MiniLM's uncased WordPiece tokenizer turns ``def f(x):\\n    if x:\\n        return 1``
into ``def f ( x ) : if x : return 1`` -- block structure, which decides what a Python program
does, is gone. We rewrite the text before tokenizing: every newline becomes ``<nl>`` and every
change of indentation becomes ``<indent>`` / ``<dedent>`` (as Python's own tokenizer does). The
three markers are added to the tokenizer as whole tokens, so each costs one position.
"""

from __future__ import annotations

NEWLINE = "<nl>"
INDENT = "<indent>"
DEDENT = "<dedent>"
LAYOUT_TOKENS: tuple[str, ...] = (NEWLINE, INDENT, DEDENT)
_PROBE = "def f(x):\n    if x:\n        return 1"


def encode_layout(code: str, tab_size: int = 4) -> str:
    """Rewrite ``code`` so lines and indentation survive a whitespace-dropping tokenizer.

    Args:
        code: source text.
        tab_size: tabs are expanded to this many spaces first.

    Returns:
        One line of text, e.g. ``"def f(x): <nl> <indent> return x"``.
    """
    stack = [0]
    lines: list[str] = []
    for raw in code.expandtabs(tab_size).split("\n"):
        stripped = raw.strip()
        if not stripped:
            lines.append("")
            continue
        width = len(raw) - len(raw.lstrip(" "))
        markers: list[str] = []
        while width < stack[-1]:
            stack.pop()
            markers.append(DEDENT)
        if width > stack[-1]:
            stack.append(width)
            markers.append(INDENT)
        lines.append(" ".join([*markers, stripped]))
    return f" {NEWLINE} ".join(lines)


def decode_layout(text: str, indent: str = "    ") -> str:
    """Inverse of :func:`encode_layout` up to the indentation width (``indent`` per level).

    Works on a tokenizer's decoded text too, where words are re-spaced but markers survive.
    """
    depth = 0
    out: list[str] = []
    for segment in text.split(NEWLINE):
        words = segment.split()
        while words and words[0] in (INDENT, DEDENT):
            depth += 1 if words[0] == INDENT else -1
            words.pop(0)
        depth = max(depth, 0)
        out.append(f"{indent * depth}{' '.join(words)}" if words else "")
    return "\n".join(out)


def drops_layout(tokenizer) -> bool:
    """Whether ``tokenizer`` loses newlines or indentation (decode(encode(x)) lacks them)."""
    ids = tokenizer(_PROBE, add_special_tokens=False)["input_ids"]
    decoded = tokenizer.decode(ids)
    return "\n" not in decoded or "\n    if" not in decoded


def add_layout_tokens(tokenizer) -> int:
    """Add the layout markers to ``tokenizer`` as whole tokens; returns how many were new."""
    from tokenizers import AddedToken

    new = [AddedToken(tok, normalized=False, single_word=False) for tok in LAYOUT_TOKENS]
    return tokenizer.add_tokens(new)
