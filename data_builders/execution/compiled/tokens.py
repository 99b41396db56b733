"""Reading a test's scalar constants as each language spells them: numbers (bases, digit
separators, suffixes, Java's boxed types, Rust's typed literals) and strings and chars
(escapes, C++'s adjacent literals and bytes), with the whitespace and comments between
tokens. The grammar of whole constants built from them: ``literals.py``."""

from __future__ import annotations

import re
from typing import Any

from data_builders.execution.compiled.values import F32, JLong, to_f32


class NotLiteral(ValueError):
    """The text is not a constant the host can read."""


_NUMBER = re.compile(
    r"(0[xX][0-9a-fA-F'_]+|0[bB][01'_]+|(?:\d[\d'_]*\.?[\d'_]*|\.\d[\d'_]*)(?:[eE][+-]?\d+)?)"
    r"([uUlLfFnNdD]*)"
)
_CPP_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "a": "\a", "b": "\b", "f": "\f",
                "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}  # fmt: skip


def _java_number(body: str, suffix: str) -> Any:
    """A Java numeric literal as the boxed type its suffix and form give it."""
    body = body.replace("_", "")
    if "l" in suffix:
        return JLong(int(body, 0) if body[:2].lower() in ("0x", "0b") else int(body))
    floating = any(c in body for c in ".eE") and body[:2].lower() != "0x"
    if "f" in suffix:
        return F32(to_f32(float(body)))
    if "d" in suffix or floating:
        return float(body)
    if body[:2].lower() in ("0x", "0b"):
        return int(body, 0)
    if len(body) > 1 and body.startswith("0"):
        return int(body, 8)
    return int(body)


class ScalarReader:
    """A cursor over a constant's text in ``language``, and its numbers and strings."""

    def __init__(self, text: str, language: str) -> None:
        self.text, self.i, self.language = text, 0, language

    def space(self) -> None:
        while self.i < len(self.text):
            if self.text[self.i].isspace():
                self.i += 1
            elif self.text.startswith("//", self.i):
                end = self.text.find("\n", self.i)
                self.i = len(self.text) if end < 0 else end
            elif self.text.startswith("/*", self.i):
                end = self.text.find("*/", self.i)
                if end < 0:
                    raise NotLiteral("open comment")
                self.i = end + 2
            else:
                break

    def peek(self) -> str:
        self.space()
        return self.text[self.i : self.i + 1]

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            raise NotLiteral(f"expected {ch!r}")
        self.i += 1

    def _number(self) -> Any:
        match = _NUMBER.match(self.text, self.i)
        if match is None:
            raise NotLiteral("bad number")
        self.i = match.end()
        body, suffix = match.group(1).replace("'", ""), match.group(2).lower()
        if self.language == "js" and suffix:
            raise NotLiteral("BigInt literal")
        if self.language == "java":
            return _java_number(body, suffix)
        if self.language == "rust":
            rust = re.compile(r"_*(?:[iu](?:8|16|32|64|128|size)|f32|f64)?").match(
                self.text, match.end(1)
            )
            assert rust is not None
            self.i = rust.end()
            body = body.replace("_", "")
            hexadecimal = body[:2].lower() in ("0x", "0b", "0o")
            if rust.group().strip("_").startswith("f") or (
                not hexadecimal and any(c in body for c in ".eE")
            ):
                value = float(body)
                return to_f32(value) if "f32" in rust.group() else value
            return int(body, 0) if hexadecimal else int(body)
        if body[:2].lower() in ("0x", "0b"):
            value: Any = int(body, 0)
        elif any(c in body for c in ".eE"):
            value = float(body)
            if "f" in suffix:
                value = to_f32(value)
        elif self.language == "cpp" and len(body) > 1 and body.startswith("0"):
            value = int(body, 8)
        else:
            value = int(body)
        return float(value) if self.language == "js" else value

    def _strings(self, quote: str) -> str:
        text = self._quoted(quote)
        while self.language == "cpp" and self.peek() == '"':  # "ab" "cd" is one literal
            text += self._quoted('"')
        return text

    def _quoted(self, quote: str) -> str:
        self.space()
        i, out = self.i + 1, []
        while True:
            if i >= len(self.text) or (self.text[i] == "\n" and quote != "`"):
                raise NotLiteral("unclosed string")
            ch = self.text[i]
            if ch == quote:
                break
            if quote == "`" and self.text.startswith("${", i):
                raise NotLiteral("template substitution")
            if ch == "\\":
                i, piece = self._escape(i + 1)
                out.append(piece)
                continue
            if self.language == "cpp" and ord(ch) >= 0x80:  # a C++ string is bytes: one
                ch = ch.encode("utf-8", "surrogatepass").decode("latin-1")  # code point each
            out.append(ch)
            i += 1
        self.i = i + 1
        return "".join(out)

    def _escape(self, i: int) -> tuple[int, str]:
        ch = self.text[i : i + 1]
        if ch == "x":
            match = re.match(
                r"[0-9a-fA-F]+" if self.language == "cpp" else r"[0-9a-fA-F]{2}", self.text[i + 1 :]
            )
            if not match:
                raise NotLiteral("bad \\x escape")
            return i + 1 + match.end(), chr(int(match.group(), 16) & 0xFF)
        if ch == "u" and self.language in ("js", "java", "rust"):
            braced = re.match(r"\{([0-9a-fA-F]+)\}|([0-9a-fA-F]{4})", self.text[i + 1 :])
            if not braced:
                raise NotLiteral("bad \\u escape")
            return i + 1 + braced.end(), chr(int(braced.group(1) or braced.group(2), 16))
        if self.language in ("cpp", "java") and ch in "01234567":
            match = re.match(r"[0-7]{1,3}", self.text[i:])
            assert match is not None
            return i + match.end(), chr(int(match.group(), 8) & 0xFF)
        if ch == "\n":
            return i + 1, ""
        if ch in _CPP_ESCAPES:
            return i + 1, _CPP_ESCAPES[ch]
        if self.language == "js":
            return i + 1, ch
        raise NotLiteral(f"unknown escape \\{ch}")
