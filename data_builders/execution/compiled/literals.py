"""Reading a test's constants (C++, Java, JavaScript, Rust and Go's scalar literals; C++
brace lists, JavaScript arrays and object literals, Java's list/``Optional`` calls, Rust's
``vec!``/``Some``/``String::from``) into the values of ``values.py``; anything else (a
variable, a call, arithmetic beyond constants) is :class:`NotLiteral`, and the assertion stays
the program's own. Numbers and strings as each language spells them: ``tokens.py``."""

from __future__ import annotations

import math
import re
from typing import Any

from data_builders.execution.compiled.js_semantics import js_number_to_string
from data_builders.execution.compiled.tokens import NotLiteral, ScalarReader
from data_builders.execution.compiled.values import (
    UNDEFINED,
    JChar,
    JOptional,
    JsObject,
)

_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:::[A-Za-z_]\w*)*")
_JAVA_CALL = re.compile(
    r"(?:(?:java\.util\.)?(?P<kind>Arrays\.asList|List\.of|Optional\.of|Optional\.empty"
    r"|Collections\.emptyList)|new\s+(?:java\.util\.)?(?:ArrayList|LinkedList)\s*(?:<[\w\s,<>?]*>)?)"
    r"\s*\("
)


class _Reader(ScalarReader):
    """The grammar of a constant: containers, arithmetic, each language's words."""

    def items(self, close: str) -> list[Any]:
        out: list[Any] = []
        while self.peek() != close:
            if not self.peek():
                raise NotLiteral("unclosed list")
            out.append(self.value())
            if self.peek() == ",":
                self.i += 1
            elif self.peek() != close:
                raise NotLiteral("expected ','")
        self.i += 1
        return out

    def value(self) -> Any:
        """A constant, with the arithmetic of numbers (``2.0/3.0``, ``3 * 19``) folded as
        the language does (C++: integer division truncates)."""
        left = self._term()
        while self.peek() in ("+", "-"):
            op = self.text[self.i]
            self.i += 1
            left = self._arith(op, left, self._term())
        return left

    def _term(self) -> Any:
        left = self._unary()
        while self.peek() in ("*", "/", "%") and not self.text.startswith(("//", "/*"), self.i):
            op = self.text[self.i]
            self.i += 1
            left = self._arith(op, left, self._unary())
        return left

    def _arith(self, op: str, a: Any, b: Any) -> Any:
        for v in (a, b):
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise NotLiteral("arithmetic on a non-number")
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if isinstance(a, int) and isinstance(b, int):
            if b == 0:
                raise NotLiteral("division by zero")
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
            return q if op == "/" else a - q * b
        if op == "%":
            if self.language != "js":
                raise NotLiteral("% of a double")
            return math.fmod(a, b) if b else math.nan
        if b == 0:
            return math.copysign(math.inf, a) * math.copysign(1.0, b) if a else math.nan
        return a / b

    def _unary(self) -> Any:
        ch = self.peek()
        if not ch:
            raise NotLiteral("empty")
        if ch in "-+":
            self.i += 1
            inner = self._unary()
            if isinstance(inner, bool) or not isinstance(inner, int | float):
                raise NotLiteral("sign of a non-number")
            return -inner if ch == "-" else inner
        return self._primary()

    def _primary(self) -> Any:
        ch = self.peek()
        if ch == "(" and self.language == "rust":  # a tuple, or a parenthesised value
            self.i += 1
            items = self.items(")")
            if len(items) == 1 and not self.text[: self.i - 1].rstrip().endswith(","):
                return items[0]
            return items
        if ch == "(":
            self.i += 1
            inner = self.value()
            while self.peek() == ",":  # the comma operator: (0, 4) is 4
                self.i += 1
                inner = self.value()
            self.expect(")")
            return inner
        if ch == "{" and self.language != "java":
            self.i += 1
            return self._js_object() if self.language == "js" else self.items("}")
        if ch == "[" and self.language in ("js", "rust"):
            self.i += 1
            return self._postfix(self.items("]"))
        if ch == "&" and self.language == "rust":  # a reference compares as its value
            self.i += 1
            return self._primary()
        if ch == '"' or (ch in "'`" and self.language == "js"):
            return self._postfix(self._strings(ch))
        if ch == "'":
            text = self._quoted("'")
            if len(text) != 1:
                raise NotLiteral("multi-character char literal")
            return JChar(ord(text)) if self.language in ("java", "rust") else ord(text)
        if ch.isdigit() or ch == ".":
            return self._number()
        return self._word()

    def _js_object(self) -> JsObject:
        items: list[tuple[str, Any]] = []
        while self.peek() != "}":
            ch = self.peek()
            if ch in "\"'":
                key = self._quoted(ch)
            elif ch.isdigit():
                key = js_number_to_string(self._number())
            else:
                match = _IDENT.match(self.text, self.i)
                if not match or "::" in match.group():
                    raise NotLiteral("bad key")
                key = match.group()
                self.i = match.end()
            self.expect(":")
            value = self.value()
            items = [(k, v) for k, v in items if k != key] + [(key, value)]
            if self.peek() == ",":
                self.i += 1
            elif self.peek() != "}":
                raise NotLiteral("expected ','")
        self.i += 1
        return JsObject(tuple(items))

    def _java_call(self) -> Any:
        """``Arrays.asList(...)``, ``List.of(...)``, ``new ArrayList<>(...)``,
        ``Optional.of(x)`` / ``Optional.empty()``, ``Collections.emptyList()``."""
        match = _JAVA_CALL.match(self.text, self.i)
        if match is None:
            raise NotLiteral("not a Java literal")
        self.i = match.end()
        args = self.items(")")
        kind = match.group("kind") or "new"
        if kind == "new":
            if len(args) > 1 or (args and not isinstance(args[0], list)):
                raise NotLiteral("new ArrayList of a non-list")
            return list(args[0]) if args else []
        if kind == "Optional.of":
            if len(args) != 1 or args[0] is None:
                raise NotLiteral("Optional.of takes one value")
            return JOptional((args[0],))
        if kind in ("Optional.empty", "Collections.emptyList") and args:
            raise NotLiteral(f"{kind} takes no argument")
        if kind == "Optional.empty":
            return JOptional(())
        return args

    def _postfix(self, value: Any) -> Any:
        """Rust: ``.to_string()``, ``.to_owned()``, ``.into()`` on a constant (same value)."""
        if self.language != "rust":
            return value
        while True:
            match = re.compile(r"\s*\.\s*(?:to_string|to_owned|into|to_vec)\s*\(\s*\)").match(
                self.text, self.i
            )
            if match is None:
                return value
            self.i = match.end()

    def _rust_word(self) -> Any:
        match = re.compile(
            r"vec!\s*\[|Some\s*\(|None\b|String\s*::\s*(?:from|new)\s*\(|Vec\s*::\s*new\s*\("
            r"|HashMap\s*::\s*(?:from|new)\s*\(|true\b|false\b"
        ).match(self.text, self.i)
        if match is None:
            raise NotLiteral("not a Rust literal")
        self.i = match.end()
        word = match.group()
        if word.startswith("vec!"):
            return self._postfix(self.items("]"))
        if word in ("true", "false"):
            return word == "true"
        if word == "None":
            return JOptional(())
        args = self.items(")")
        if word.startswith("Some"):
            if len(args) != 1:
                raise NotLiteral("Some takes one value")
            return JOptional((args[0],))
        if word.startswith("Vec"):
            if args:
                raise NotLiteral("Vec::new takes nothing")
            return []
        if word.startswith("HashMap"):  # its (key, value) pairs; compared as a map
            if "new" in word:
                if args:
                    raise NotLiteral("HashMap::new takes nothing")
                return []
            pairs = args[0] if len(args) == 1 and isinstance(args[0], list) else None
            if pairs is None or not all(isinstance(p, list) and len(p) == 2 for p in pairs):
                raise NotLiteral("HashMap::from of a non-list of pairs")
            return pairs
        if "new" in word:
            if args:
                raise NotLiteral("String::new takes nothing")
            return ""
        if len(args) != 1 or not isinstance(args[0], str):
            raise NotLiteral("String::from of a non-string")
        return self._postfix(args[0])

    def _word(self) -> Any:
        if self.language == "rust":
            return self._rust_word()
        if self.language == "java" and _JAVA_CALL.match(self.text, self.i):
            return self._java_call()
        match = _IDENT.match(self.text, self.i)
        if match is None:
            raise NotLiteral("not a literal")
        word = match.group()
        self.i = match.end()
        if word in ("true", "false"):
            return word == "true"
        if self.language == "java":
            if word == "null":
                return None
            raise NotLiteral(word)
        if self.language == "js":
            known = {"null": None, "undefined": UNDEFINED, "NaN": math.nan, "Infinity": math.inf}
            if word in known:
                return known[word]
            raise NotLiteral(word)
        bare = word.removeprefix("std::")
        if bare == "string" and self.peek() == "(":
            self.i += 1
            if self.peek() == ")":
                self.i += 1
                return ""
            text = self.value()
            self.expect(")")
            if not isinstance(text, str):
                raise NotLiteral("string(...) of a non-string")
            return text
        if bare in ("vector", "map") and self.peek() == "<":
            self._skip_template()
            if self.peek() == "{":
                self.i += 1
                return self.items("}")
            self.expect("(")
            if self.peek() == ")":  # vector<T>()
                self.i += 1
                return []
            self.expect("{")  # MultiPL-E's std::vector<long>({1, 2})
            items = self.items("}")
            self.expect(")")
            return items
        raise NotLiteral(word)

    def _skip_template(self) -> None:
        depth = 0
        while self.i < len(self.text):
            ch = self.text[self.i]
            self.i += 1
            if ch == "<":
                depth += 1
            elif ch == ">":
                depth -= 1
                if depth == 0:
                    return
            elif not (ch.isalnum() or ch in " _:,*&"):
                break
        raise NotLiteral("bad template arguments")


def parse_literal(text: str, language: str) -> Any:
    """The constant ``text`` as a Python value (``language``: ``"cpp"`` or ``"js"``);
    NotLiteral when it is anything else (a variable, a call, an operator)."""
    reader = _Reader(text, language)
    value = reader.value()
    reader.space()
    if reader.i != len(text):
        raise NotLiteral("text after the literal")
    return value


def is_literal(text: str, language: str) -> bool:
    try:
        parse_literal(text, language)
    except (NotLiteral, ValueError, IndexError):
        return False
    return True
