"""Go constants and composite literals of built-in types read from a test (``[]int{...}``,
``map[string]int{...}``, runes, strings, ``nil``), as the :class:`GoValue` ``reflect`` would
describe (host-side verdicts: ``languages/go.py``)."""

from __future__ import annotations

import re

from data_builders.execution.compiled.languages.source import code_mask
from data_builders.execution.compiled.literals import NotLiteral, parse_literal
from data_builders.execution.compiled.values import GoValue, to_f32

QUOTES = "\"'`"

_INTS = {"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64",
         "uintptr", "rune", "byte"}  # fmt: skip
_ALIASES = {"rune": "int32", "byte": "uint8", "interface{}": "interface {}", "any": "interface {}"}


class _GoLiteral:
    """A Go constant or composite literal of built-in types, as the :class:`GoValue` that
    ``reflect`` would describe (untyped constants take their default type)."""

    def __init__(self, text: str) -> None:
        self.text, self.i = text, 0

    def space(self) -> None:
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def type_(self) -> str:
        """A type at the cursor: ``[]T``, ``[N]T``, ``map[K]V``, a built-in name."""
        self.space()
        match = re.compile(r"\[(\d*)\]").match(self.text, self.i)
        if match:
            self.i = match.end()
            return f"[{match.group(1)}]{self.type_()}"
        if self.text.startswith("map[", self.i):
            self.i += 4
            key = self.type_()
            self.space()
            if self.text[self.i : self.i + 1] != "]":
                raise NotLiteral("bad map type")
            self.i += 1
            return f"map[{key}]{self.type_()}"
        match = re.compile(r"interface\s*\{\s*\}|any\b|[a-z]\w*").match(self.text, self.i)
        if match is None:
            raise NotLiteral("not a built-in type")
        name = re.sub(r"\s+", "", match.group())
        name = _ALIASES.get(name, name)
        if name not in _INTS | {
            "int32",
            "uint8",
            "float32",
            "float64",
            "string",
            "bool",
            "interface {}",
        }:
            raise NotLiteral(f"type {name}")
        self.i = match.end()
        return name

    def value(self, typ: str | None) -> GoValue:
        self.space()
        if self.text.startswith(("[", "map["), self.i):
            return self.composite(self.type_())
        if self.text.startswith("{", self.i):
            if typ is None or not typ.startswith(("[", "map[")):
                raise NotLiteral("untyped composite")
            return self.composite(typ)
        start, depth = self.i, 0
        mask = code_mask(self.text[start:], QUOTES)
        while self.i < len(self.text):
            ch = self.text[self.i]
            if mask[self.i - start]:
                if ch in "([{":
                    depth += 1
                elif ch in ")]}":
                    if depth == 0:
                        break
                    depth -= 1
                elif ch in ",:" and depth == 0:
                    break
            self.i += 1
        return _constant(self.text[start : self.i].strip(), typ)

    def composite(self, typ: str) -> GoValue:
        self.space()
        if self.text[self.i : self.i + 1] != "{":
            raise NotLiteral("expected {")
        self.i += 1
        if typ.startswith("map["):
            key_t, value_t = _map_types(typ)
        else:
            key_t, value_t = None, typ[typ.index("]") + 1 :]
        items: list = []
        while True:
            self.space()
            if self.text[self.i : self.i + 1] == "}":
                self.i += 1
                break
            first = self.value(key_t if key_t else value_t)
            self.space()
            if key_t is not None:
                if self.text[self.i : self.i + 1] != ":":
                    raise NotLiteral("map entry without :")
                self.i += 1
                items.append((first, self.value(value_t)))
            else:
                items.append(first)
            self.space()
            if self.text[self.i : self.i + 1] == ",":
                self.i += 1
            elif self.text[self.i : self.i + 1] != "}":
                raise NotLiteral("expected , or }")
        size = re.match(r"\[(\d+)\]", typ)
        if size and len(items) != int(size.group(1)):
            if len(items) > int(size.group(1)):
                raise NotLiteral("too many array elements")
            items += [_zero(value_t)] * (int(size.group(1)) - len(items))
        return GoValue(typ, tuple(items))


def _map_types(typ: str) -> tuple[str, str]:
    depth = 0
    for i in range(4, len(typ)):
        if typ[i] == "[":
            depth += 1
        elif typ[i] == "]":
            if depth == 0:
                return typ[4:i], typ[i + 1 :]
            depth -= 1
    raise NotLiteral("bad map type")


def _zero(typ: str) -> GoValue:
    if typ in _INTS or typ in ("int32", "uint8"):
        return GoValue(typ, 0)
    if typ.startswith("float"):
        return GoValue(typ, 0.0)
    if typ == "string":
        return GoValue(typ, "")
    if typ == "bool":
        return GoValue(typ, False)
    if typ == "interface {}":
        return GoValue("nil", None)
    if typ.startswith("[]") or typ.startswith("map["):
        return GoValue(typ, None)
    raise NotLiteral(f"zero value of {typ}")


def _constant(text: str, typ: str | None) -> GoValue:
    """An untyped constant (``typ`` None or ``interface {}``: its default type) or one
    converted to ``typ``."""
    if text == "nil":
        if typ is None or typ == "interface {}":
            return GoValue("nil", None)
        if typ.startswith(("[]", "map[")):
            return GoValue(typ, None)
        raise NotLiteral("nil of a non-nillable type")
    rune = text.startswith("'")
    if text.startswith("`"):
        if "`" in text[1:-1] or not text.endswith("`") or len(text) < 2:
            raise NotLiteral("bad raw string")
        value = text[1:-1].encode().decode("latin-1")
    else:
        value = parse_literal(text, "cpp")
    if typ is None or typ == "interface {}":
        if isinstance(value, bool):
            return GoValue("bool", value)
        if isinstance(value, str):
            return GoValue("string", value)
        if isinstance(value, float):
            return GoValue("float64", value)
        if isinstance(value, int):
            return GoValue("int32" if rune else "int", value)
        raise NotLiteral("not a constant")
    if typ in _INTS or typ in ("int32", "uint8"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise NotLiteral("not an integer constant")
        if isinstance(value, float) and not value.is_integer():
            raise NotLiteral("constant truncated")
        return GoValue(typ, int(value))
    if typ in ("float32", "float64"):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise NotLiteral("not a numeric constant")
        return GoValue(typ, to_f32(float(value)) if typ == "float32" else float(value))
    if typ == "string" and isinstance(value, str):
        return GoValue(typ, value)
    if typ == "bool" and isinstance(value, bool):
        return GoValue(typ, value)
    raise NotLiteral(f"constant of type {typ}")


def parse_go_literal(text: str) -> GoValue:
    reader = _GoLiteral(text.strip())
    value = reader.value(None)
    reader.space()
    if reader.i != len(reader.text):
        raise NotLiteral("text after the literal")
    return value


def is_go_literal(text: str) -> bool:
    try:
        parse_go_literal(text)
    except (NotLiteral, ValueError, IndexError):
        return False
    return True
