"""Lexical helpers for C-like test code (C++, Java, JavaScript, Go, Rust).

Why a scanner and not regular expressions: a test splits into single assertions by finding
calls such as ``assert(...)`` and their matching parenthesis, and a regular expression
cannot skip string literals, comments and nested brackets. Nothing here parses a language
fully; it only finds code positions outside strings and comments, matching brackets and
top-level separators, which is all the splitters need.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}


def code_positions(text: str, quotes: str = "\"'") -> Iterator[int]:
    """Indices of ``text`` that are code: not inside a string literal or a comment.

    ``quotes`` are the string delimiters (JavaScript adds the backtick, Go and Rust use
    ``'`` for characters, which the same escape rules cover). Rust raw strings and Java
    text blocks are not recognised (none occur in the tests this handles).
    """
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if ch == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        if ch in quotes:
            j = i + 1
            while j < n and text[j] != ch:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n" and ch != "`":
                    break  # a lone quote (a Rust lifetime, an apostrophe): not a string
                j += 1
            if j < n and text[j] == ch:
                i = j + 1
                continue
        yield i
        i += 1


def code_mask(text: str, quotes: str = "\"'") -> list[bool]:
    """``mask[i]`` is True when ``text[i]`` is code (see :func:`code_positions`)."""
    mask = [False] * len(text)
    for i in code_positions(text, quotes):
        mask[i] = True
    return mask


def matching(text: str, open_index: int, mask: list[bool]) -> int:
    """Index of the bracket closing the one at ``open_index``; ValueError when unbalanced."""
    stack = []
    for i in range(open_index, len(text)):
        if not mask[i]:
            continue
        ch = text[i]
        if ch in _OPEN:
            stack.append(_OPEN[ch])
        elif ch in _CLOSE:
            if not stack or stack.pop() != ch:
                raise ValueError(f"unbalanced {ch!r} at offset {i}")
            if not stack:
                return i
    raise ValueError(f"no bracket closes the one at offset {open_index}")


def closing(
    text: str, open_index: int, quotes: str = "\"'", mask: list[bool] | None = None
) -> int | None:
    """Index of the bracket closing the one at ``open_index`` (outside strings and
    comments; ``mask``: ``code_mask(text, quotes)`` where the caller has it already), or None
    where it is unbalanced: a shape reader then declines the text."""
    try:
        return matching(text, open_index, mask if mask is not None else code_mask(text, quotes))
    except ValueError:
        return None


def split_top_level(text: str, sep: str = ",", quotes: str = "\"'") -> list[str]:
    """``text`` split at ``sep`` outside brackets, strings and comments (stripped parts).

    ``<``/``>`` are not brackets: ``Arrays.asList(a < b, c > d)`` must split in two, and
    a generic type with a comma inside (``Map<String, Integer>``) at top level does not
    occur in an argument list of expressions.
    """
    mask = code_mask(text, quotes)
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if not mask[i]:
            continue
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip()
    if tail or parts:
        parts.append(tail)
    return parts


def find_calls(text: str, pattern: str, quotes: str = "\"'") -> list[tuple[int, int, int]]:
    """Calls of ``pattern`` (a regex ending just before ``(``) in code, outermost only.

    Returns ``(start, open_paren, close_paren)`` for each call, in order; a call nested in
    the arguments of an earlier match is skipped (it is part of that assertion).
    """
    mask = code_mask(text, quotes)
    calls: list[tuple[int, int, int]] = []
    regex = re.compile(r"(?<![\w.$])(?:" + pattern + r")\s*\(")
    end = -1
    for match in regex.finditer(text):
        start = match.start()
        if start <= end or not mask[start]:
            continue
        open_paren = match.end() - 1
        close = matching(text, open_paren, mask)
        calls.append((start, open_paren, close))
        end = close
    return calls


def find_code(text: str, pattern: str, quotes: str = "\"'", start: int = 0) -> re.Match | None:
    """First match of ``pattern`` that starts in code (not in a string or comment)."""
    mask = code_mask(text, quotes)
    for match in re.compile(pattern).finditer(text, start):
        if mask[match.start()]:
            return match
    return None


def statements(body: str, quotes: str = "\"'") -> list[tuple[int, int]]:
    """Spans of the top-level statements of a block body (C-like syntax).

    A statement ends at a ``;`` outside brackets, or at the ``}`` closing a block when it
    starts with ``{`` or a control keyword (``for``, ``while``, ``if`` with its ``else``
    branches, ``switch``, ``do ... while (...);``, ``try``). Good enough for test bodies,
    which are sequences of declarations, calls and loops.
    """
    mask = code_mask(body, quotes)
    spans: list[tuple[int, int]] = []
    i, n = 0, len(body)
    while i < n:
        while i < n and (not mask[i] or body[i].isspace()):
            i += 1
        if i >= n:
            break
        end = _statement_end(body, i, mask)
        spans.append((i, end))
        i = end
    return spans


_CONTROL = re.compile(r"(for|while|if|switch|catch)\b\s*\(")


def _statement_end(body: str, i: int, mask: list[bool]) -> int:
    """End (exclusive) of the statement starting at ``i``."""
    if body[i] == "{":
        return matching(body, i, mask) + 1
    if body[i] == ";":
        return i + 1
    control = _CONTROL.match(body, i)
    if control:
        header_end = matching(body, control.end() - 1, mask) + 1
        end = _statement_end(body, _skip_space(body, header_end, mask), mask)
        if control.group(1) == "if":
            after = _skip_space(body, end, mask)
            if body.startswith("else", after) and not _word_char(body, after + 4):
                return _statement_end(body, _skip_space(body, after + 4, mask), mask)
        return end
    for word in ("do", "try", "else", "finally"):
        if body.startswith(word, i) and not _word_char(body, i + len(word)):
            end = _statement_end(body, _skip_space(body, i + len(word), mask), mask)
            after = _skip_space(body, end, mask)
            if word == "do" and body.startswith("while", after):
                return _to_semicolon(body, after, mask)
            if word == "try":
                while body.startswith(("catch", "finally"), after):
                    end = _statement_end(body, after, mask)
                    after = _skip_space(body, end, mask)
            return end
    return _to_semicolon(body, i, mask)


def _to_semicolon(body: str, i: int, mask: list[bool]) -> int:
    depth = 0
    for j in range(i, len(body)):
        if not mask[j]:
            continue
        ch = body[j]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
            if depth < 0:
                return j
        elif ch == ";" and depth == 0:
            return j + 1
    return len(body)


def _skip_space(body: str, i: int, mask: list[bool]) -> int:
    while i < len(body) and (not mask[i] or body[i].isspace()):
        i += 1
    return i


def _word_char(text: str, i: int) -> bool:
    return i < len(text) and (text[i].isalnum() or text[i] == "_")


def replace_spans(text: str, replacements: list[tuple[int, int, str]]) -> str:
    """``text`` with each ``(start, end, new)`` span replaced (spans must not overlap)."""
    out, last = [], 0
    for start, end, new in sorted(replacements):
        out.append(text[last:start])
        out.append(new)
        last = end
    out.append(text[last:])
    return "".join(out)


def strip_parens(text: str, quotes: str = "\"'") -> str:
    """``text`` without blank space and the parentheses that enclose all of it."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        close = closing(text, 0, quotes)
        if close is None:
            return text
        if close != len(text) - 1:
            break
        text = text[1:-1].strip()
    return text


def top_level(text: str, operators: tuple[str, ...], quotes: str = "\"'") -> list[tuple[int, str]]:
    """``(index, operator)`` of each of ``operators`` in ``text`` outside brackets, strings
    and comments (longest operator first at each position, so ``===`` is not ``==``)."""
    mask = code_mask(text, quotes)
    found: list[tuple[int, str]] = []
    ordered = sorted(operators, key=len, reverse=True)
    depth, i = 0, 0
    while i < len(text):
        if not mask[i]:
            i += 1
            continue
        ch = text[i]
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        elif depth == 0:
            op = next((o for o in ordered if text.startswith(o, i)), None)
            if op is not None:
                found.append((i, op))
                i += len(op)
                continue
        i += 1
    return found


def single_call(text: str, quotes: str = "\"'", chained: bool = False) -> bool:
    """Whether ``text`` is one call ``name(...)`` (``name`` may be qualified: ``a.b``,
    ``ns::f``) and nothing else; ``chained``: or calls on its result, ``f(...).g()``."""
    at, mask = 0, None
    while True:
        pattern = (
            r"[A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*\s*\("
            if at == 0
            else r"\s*\.\s*[A-Za-z_$][\w$]*\s*\("
        )
        match = re.compile(pattern).match(text, at)
        if match is None:
            return False
        mask = mask or code_mask(text, quotes)
        try:
            at = matching(text, match.end() - 1, mask) + 1
        except ValueError:
            return False
        if at == len(text):
            return True
        if not chained:
            return False


_LOOP_LINE = re.compile(r"^\s*(?:\}\s*)?(?:for|while|loop|do)\b")
_LOOP_CALL = re.compile(r"\.\s*(?:forEach|map|filter|some|every|reduce|flatMap|for_each|iter)\s*$")


def inside_loop(text: str, pos: int, quotes: str = "\"'") -> bool:
    """Whether position ``pos`` of ``text`` is inside a loop's body (``for``/``while``/
    ``do``/``loop`` blocks, a callback passed to ``forEach``/``map``...): an assertion there
    runs once per turn, so it stays an in-program case."""
    mask = code_mask(text, quotes)
    stack: list[int] = []
    for i in range(pos):
        if mask[i]:
            if text[i] in "{(":
                stack.append(i)
            elif text[i] in "})" and stack:
                stack.pop()
    for open_ in [*stack, pos]:  # each enclosing block, and a brace-less body (for (...) f();)
        before = text[:open_]
        if open_ < pos and text[open_] == "(":
            if _LOOP_CALL.search(before):
                return True
            continue
        line = before[before.rfind("\n") + 1 :]
        if open_ < pos and _LOOP_LINE.match(line):
            return True
        if re.search(r"(?:^|[\s;}])(?:do|loop)\s*$", before):
            return True
        head = before.rstrip()
        if head.endswith(")"):
            depth = 0
            for j in range(len(head) - 1, -1, -1):
                if not mask[j]:
                    continue
                if head[j] == ")":
                    depth += 1
                elif head[j] == "(":
                    depth -= 1
                    if depth == 0:
                        if re.search(r"\b(?:for|while)\s*$", head[:j]):
                            return True
                        break
    return False


def top_level_statement(body: str, start: int, quotes: str = "\"'", braceless: bool = True) -> bool:
    """Whether position ``start`` of a function's ``body`` begins a statement of the body
    itself, not one inside a nested block (an ``if``, a loop) or, where the language has them
    (``braceless``: C, Java, JavaScript; not Go), a brace-less ``for (...)`` / ``if (...)`` /
    ``else`` / ``do`` body: such a statement runs once per call of the function, whatever the
    program's values are."""
    mask = code_mask(body, quotes)
    depth = 0
    for i in range(start):
        if mask[i]:
            if body[i] == "{":
                depth += 1
            elif body[i] == "}":
                depth -= 1
    if depth != 0:
        return False
    if not braceless:
        return True
    before = body[:start].rstrip()
    return not before.endswith(")") and not re.search(r"\b(else|do)$", before)


def statement_of_function(
    text: str, start: int, header: str, quotes: str = "\"'", braceless: bool = True
) -> bool:
    """Whether position ``start`` of ``text`` begins a statement of the body of the last
    function whose ``header`` (a pattern ending at its ``{``) comes before it: a test
    function's own statement (:func:`top_level_statement`), which runs once per test run."""
    body_start = None
    for match in re.finditer(header, text):
        if match.end() <= start:
            body_start = match.end()
    if body_start is None:
        return False
    close = closing(text, body_start - 1, quotes)
    if close is None:
        return False
    body = text[body_start:close]
    return start < close and top_level_statement(body, start - body_start, quotes, braceless)
