"""Declared parameter and return types of HumanEval-X functions, as a small type AST.

Extended tests are Python values; to write them in another language we need the *declared*
types, because the same Python value has different literals there (``[1.0]`` is
``vector<float>{1.0f}`` or ``vector<double>{1.0}``; ``5`` is ``5`` for a Java ``int`` and
``5L`` for a ``long``, and an ``int`` must fit 32 bits). This module reads the signature of the
function under test from a HumanEval-X row (``declaration`` + ``canonical_solution``, where
Rust sometimes puts the entry point after a helper) into :class:`Type` trees:

========  ==========================================================================
kind      spellings
========  ==========================================================================
int       C++ ``int``/``long``/``long long``, Java ``int``/``Integer``/``long``/``Long``,
          Go ``int``/``int64``, Rust ``i32``/``i64``/``u32``/``usize`` (``bits``, ``signed``)
float     C++ ``float``/``double``, Java ``double``/``Double``/``float``, Go ``float64``,
          Rust ``f32``/``f64`` (``bits``)
bool      ``bool``/``boolean``/``Boolean``
str       C++ ``string``, Java ``String``, Go ``string``, Rust ``String`` (``owned``) or ``&str``
char      C++ ``char``, Java ``char``/``Character``, Go ``rune``, Rust ``char``
list      ``vector<T>``, ``List<T>``/``ArrayList<T>``, ``[]T``, ``Vec<T>``
array     Go ``[N]T`` (``size``)
map       ``map<K,V>``, ``Map<K,V>``/``HashMap<K,V>``, ``map[K]V``, ``HashMap<K,V>``
tuple     Rust ``(A, B)``, C++ ``pair``/``tuple``, Java javatuples ``Pair``/``Triplet``/...
optional  Java ``Optional<T>``, Rust ``Option<T>``
object    Java ``Object``, Go ``interface{}`` (the value decides the literal)
any       JavaScript (untyped): the value decides the literal
opaque    types no literal can be written for (C++ ``boost::any``, Rust ``dyn Any``, enums)
========  ==========================================================================

``ref`` marks a Rust reference parameter (``&Vec<f64>``, ``&f32``): the literal gets ``&``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from data_builders.languages import HUMANEVAL_X
from data_builders.problems.humaneval_x import PREFIXES as TASK_PREFIXES

LANGUAGES = HUMANEVAL_X  # the languages HE-Eval's tests are translated into


class TypeParseError(ValueError):
    """A declared type or signature this module cannot read."""


@dataclass(frozen=True)
class Type:
    """One node of a declared type.

    Attributes:
        kind: one of the kinds in the module docstring.
        args: element types (list/array/optional: one; map: key, value; tuple: each).
        bits: width of an int (32/64) or float (32/64).
        signed: False for unsigned Rust ints.
        size: length of a Go fixed array.
        owned: Rust ``String`` (True) versus ``&str`` (False).
        ref: a Rust ``&T`` parameter.
        spelling: the declaration's own text for the type (messages, opaque types).
        tuple_name: the javatuples class for a Java tuple (``Pair``), "" elsewhere.
    """

    kind: str
    args: tuple[Type, ...] = ()
    bits: int = 0
    signed: bool = True
    size: int = 0
    owned: bool = True
    ref: bool = False
    spelling: str = field(default="", compare=False)
    tuple_name: str = ""


@dataclass(frozen=True)
class Signature:
    """The function under test: its name, parameters and return type in one language."""

    language: str
    name: str
    params: tuple[tuple[str, Type], ...]
    returns: Type


ANY = Type("any", spelling="any")


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split ``text`` at ``sep`` outside brackets (``<>``, ``()``, ``[]``, ``{}``)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth -= 1
        elif ch == sep and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


def _generic(text: str) -> tuple[str, list[str]] | None:
    """``Name<A, B>`` -> ("Name", ["A", "B"]); None when ``text`` is not generic."""
    match = re.fullmatch(r"([\w:]+)\s*<(.*)>", text.strip(), re.S)
    return (match.group(1), split_top(match.group(2))) if match else None


# ---------------------------------------------------------------- C++
_CPP_SCALARS = {
    "int": Type("int", bits=32),
    "long": Type("int", bits=64),
    "long long": Type("int", bits=64),
    "long long int": Type("int", bits=64),
    "size_t": Type("int", bits=64, signed=False),
    "float": Type("float", bits=32),
    "double": Type("float", bits=64),
    "bool": Type("bool"),
    "string": Type("str"),
    "char": Type("char"),
}


def parse_cpp_type(text: str) -> Type:
    """A C++ type as HumanEval-X spells it (``vector<vector<int>>``, ``map<char,int>``)."""
    text = " ".join(text.replace("std::", "").replace("const ", "").replace("&", "").split())
    if text in _CPP_SCALARS:
        return _with_spelling(_CPP_SCALARS[text], text)
    generic = _generic(text)
    if generic:
        name, args = generic
        inner = tuple(parse_cpp_type(a) for a in args)
        if name == "vector" and len(inner) == 1:
            return Type("list", inner, spelling=text)
        if name in ("map", "unordered_map") and len(inner) == 2:
            return Type("map", inner, spelling=text)
        if name in ("pair", "tuple"):
            return Type("tuple", inner, spelling=text, tuple_name=name)
    if text in ("boost::any", "list_any", "any"):
        return Type("opaque", spelling=text)
    raise TypeParseError(f"C++ type {text!r} is not supported")


# ---------------------------------------------------------------- Java
_JAVA_SCALARS = {
    "int": Type("int", bits=32),
    "Integer": Type("int", bits=32),
    "long": Type("int", bits=64),
    "Long": Type("int", bits=64),
    "double": Type("float", bits=64),
    "Double": Type("float", bits=64),
    "float": Type("float", bits=32),
    "Float": Type("float", bits=32),
    "boolean": Type("bool"),
    "Boolean": Type("bool"),
    "String": Type("str"),
    "char": Type("char"),
    "Character": Type("char"),
    "Object": Type("object"),
}
JAVA_TUPLES = ("Unit", "Pair", "Triplet", "Quartet", "Quintet", "Sextet", "Septet", "Octet")


def parse_java_type(text: str) -> Type:
    """A Java type (``List<List<Integer>>``, ``Optional<String>``, javatuples ``Pair<A, B>``)."""
    text = " ".join(text.split())
    if text in _JAVA_SCALARS:
        return _with_spelling(_JAVA_SCALARS[text], text)
    generic = _generic(text)
    if generic:
        name, args = generic
        inner = tuple(parse_java_type(a) for a in args)
        if name in ("List", "ArrayList") and len(inner) == 1:
            return Type("list", inner, spelling=text)
        if name in ("Map", "HashMap") and len(inner) == 2:
            return Type("map", inner, spelling=text)
        if name == "Optional" and len(inner) == 1:
            return Type("optional", inner, spelling=text)
        if name in JAVA_TUPLES and len(inner) == JAVA_TUPLES.index(name) + 1:
            return Type("tuple", inner, spelling=text, tuple_name=name)
    raise TypeParseError(f"Java type {text!r} is not supported")


# ---------------------------------------------------------------- Go
_GO_SCALARS = {
    "int": Type("int", bits=64),
    "int64": Type("int", bits=64),
    "int32": Type("int", bits=32),
    "float64": Type("float", bits=64),
    "float32": Type("float", bits=32),
    "bool": Type("bool"),
    "string": Type("str"),
    "rune": Type("char"),
    "interface{}": Type("object"),
    "any": Type("object"),
}


def parse_go_type(text: str) -> Type:
    """A Go type (``[]int``, ``[2]interface{}``, ``map[rune]int``, ``[][]int``)."""
    text = text.strip()
    if text in _GO_SCALARS:
        return _with_spelling(_GO_SCALARS[text], text)
    if text.startswith("[]"):
        return Type("list", (parse_go_type(text[2:]),), spelling=text)
    match = re.fullmatch(r"\[(\d+)\](.+)", text)
    if match:
        return Type(
            "array", (parse_go_type(match.group(2)),), size=int(match.group(1)), spelling=text
        )
    match = re.fullmatch(r"map\[(.+?)\](.+)", text)
    if match:
        key, value = parse_go_type(match.group(1)), parse_go_type(match.group(2))
        return Type("map", (key, value), spelling=text)
    raise TypeParseError(f"Go type {text!r} is not supported")


# ---------------------------------------------------------------- Rust
_RUST_SCALARS = {
    "i32": Type("int", bits=32),
    "i64": Type("int", bits=64),
    "isize": Type("int", bits=64),
    "u32": Type("int", bits=32, signed=False),
    "u64": Type("int", bits=64, signed=False),
    "usize": Type("int", bits=64, signed=False),
    "f32": Type("float", bits=32),
    "f64": Type("float", bits=64),
    "bool": Type("bool"),
    "String": Type("str", owned=True),
    "&str": Type("str", owned=False),
    "char": Type("char"),
}


def parse_rust_type(text: str) -> Type:
    """A Rust type (``Vec<String>``, ``&Vec<f64>``, ``Option<String>``, ``(i32, i32)``)."""
    text = re.sub(r"&'\w+\s*", "&", " ".join(text.split()))
    if text in _RUST_SCALARS:
        return _with_spelling(_RUST_SCALARS[text], text)
    if text.startswith("&") and not text.startswith("&str"):
        inner = parse_rust_type(text[1:].removeprefix("mut "))
        return Type(
            inner.kind, inner.args, inner.bits, inner.signed, inner.size, inner.owned, True, text
        )
    if text.startswith("(") and text.endswith(")"):
        return Type(
            "tuple", tuple(parse_rust_type(a) for a in split_top(text[1:-1])), spelling=text
        )
    generic = _generic(text)
    if generic:
        name, args = generic
        if name == "Box" or "dyn" in text:
            return Type("opaque", spelling=text)
        inner = tuple(parse_rust_type(a) for a in args)
        if name == "Vec" and len(inner) == 1:
            return Type("list", inner, spelling=text)
        if name == "HashMap" and len(inner) == 2:
            return Type("map", inner, spelling=text)
        if name == "Option" and len(inner) == 1:
            return Type("optional", inner, spelling=text)
        return Type("opaque", spelling=text)  # a user enum such as RtnType<..>
    if "dyn " in text:
        return Type("opaque", spelling=text)
    raise TypeParseError(f"Rust type {text!r} is not supported")


def _with_spelling(t: Type, spelling: str) -> Type:
    return Type(t.kind, t.args, t.bits, t.signed, t.size, t.owned, t.ref, spelling, t.tuple_name)


PARSERS = {
    "cpp": parse_cpp_type,
    "java": parse_java_type,
    "go": parse_go_type,
    "rust": parse_rust_type,
}

# ---------------------------------------------------------------- signatures
_SIGNATURE_PATTERNS = {
    # return type, name, parameters; the body's "{" follows
    "cpp": re.compile(
        r"^[ \t]*((?:[\w:]+(?:<[^(){};]*>)?[ \t]+)+?)(\w+)\s*\(([^(){};]*)\)\s*\{", re.M
    ),
    "java": re.compile(
        r"^[ \t]*(?:public|private|protected)?[ \t]*(?:static[ \t]+)?([\w<>,?\s\[\]]+?)[ \t]+(\w+)"
        r"\s*\(([^(){};]*)\)\s*(?:throws[\w\s,]+)?\{",
        re.M,
    ),
    "js": re.compile(r"const\s+(\w+)\s*=\s*\(([^()]*)\)\s*=>|function\s+(\w+)\s*\(([^()]*)\)"),
    "go": re.compile(r"^func\s+(\w+)\s*\(([^()]*)\)\s*(.*?)\s*\{\s*$", re.M),
    "rust": re.compile(
        r"\bfn\s+(\w+)\s*(?:<[^>]*>)?\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*(?:->\s*([^{]+?))?\s*\{"
    ),
}
_NOT_FUNCTIONS = {"if", "for", "while", "switch", "return", "else", "main", "catch"}


def _cpp_params(text: str) -> list[tuple[str, Type]]:
    params = []
    for part in split_top(text):
        match = re.fullmatch(r"(.*?[\s>&*])(\w+)", part.strip(), re.S)
        if not match:
            raise TypeParseError(f"cannot read C++ parameter {part!r}")
        params.append((match.group(2), parse_cpp_type(match.group(1))))
    return params


def _java_params(text: str) -> list[tuple[str, Type]]:
    params = []
    for part in split_top(text):
        match = re.fullmatch(r"(?:final\s+)?(.*\S)\s+(\w+)", part.strip(), re.S)
        if not match:
            raise TypeParseError(f"cannot read Java parameter {part!r}")
        params.append((match.group(2), parse_java_type(match.group(1))))
    return params


def _go_params(text: str) -> list[tuple[str, Type]]:
    """Go groups names before one type (``x, y int``): a bare name takes the next type."""
    names: list[str] = []
    params: list[tuple[str, Type]] = []
    for part in split_top(text):
        bits = part.split(None, 1)
        if len(bits) == 1:
            names.append(bits[0])
            continue
        names.append(bits[0])
        t = parse_go_type(bits[1])
        params.extend((n, t) for n in names)
        names = []
    if names:
        raise TypeParseError(f"Go parameters {text!r} end without a type")
    return params


def _rust_params(text: str) -> list[tuple[str, Type]]:
    params = []
    for part in split_top(text):
        name, sep, spelled = part.partition(":")
        if not sep:
            raise TypeParseError(f"cannot read Rust parameter {part!r}")
        params.append((name.replace("mut ", "").strip(), parse_rust_type(spelled)))
    return params


def _candidates(language: str, source: str) -> list[Signature]:
    """Every function signature in ``source`` (declaration order)."""
    found: list[Signature] = []
    for m in _SIGNATURE_PATTERNS[language].finditer(source):
        try:
            if language == "js":
                name, params = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
                typed = tuple((p.split("=")[0].strip(), ANY) for p in split_top(params))
                found.append(Signature("js", name, typed, ANY))
            elif language == "cpp":
                ret, name, params = m.group(1).strip(), m.group(2), m.group(3)
                if name in _NOT_FUNCTIONS or ret in ("return", "else"):
                    continue
                found.append(
                    Signature("cpp", name, tuple(_cpp_params(params)), parse_cpp_type(ret))
                )
            elif language == "java":
                ret, name, params = " ".join(m.group(1).split()), m.group(2), m.group(3)
                ret = re.sub(r"^(?:(?:public|private|protected|static|final)\s+)+", "", ret)
                if name in _NOT_FUNCTIONS or ret in ("new", "return", "class"):
                    continue
                found.append(
                    Signature("java", name, tuple(_java_params(params)), parse_java_type(ret))
                )
            elif language == "go":
                name, params, ret = m.group(1), m.group(2), m.group(3).strip()
                returns = parse_go_type(ret) if ret else Type("void")
                found.append(Signature("go", name, tuple(_go_params(params)), returns))
            else:
                name, params, ret = m.group(1), m.group(2), (m.group(3) or "()").strip()
                returns = parse_rust_type(ret) if ret != "()" else Type("void")
                found.append(Signature("rust", name, tuple(_rust_params(params)), returns))
        except TypeParseError as exc:
            unparsed = Type("unparsed", spelling=str(exc))
            found.append(Signature(language, _name_of(m, language), (), unparsed))
    return found


def _name_of(match: re.Match[str], language: str) -> str:
    if language == "js":
        return match.group(1) or match.group(3)
    return match.group(2) if language in ("cpp", "java") else match.group(1)


def _norm(name: str) -> str:
    return name.replace("_", "").lower()


def language_of(task_id: str) -> str:
    """``"CPP/3"`` -> ``"cpp"``; raises for a prefix that is not a HumanEval-X language."""
    prefix = task_id.split("/", 1)[0]
    if prefix not in TASK_PREFIXES:
        raise TypeParseError(
            f"{task_id!r} is not a HumanEval-X task id ({'/'.join(TASK_PREFIXES)})"
        )
    return TASK_PREFIXES[prefix]


def parse_signature(row: dict, entry_point: str | None = None) -> Signature:
    """The signature of the function a HumanEval-X row tests.

    The function is chosen among those declared in ``declaration`` (then ``canonical_solution``,
    where Rust's entry point sometimes follows a helper): the one whose name matches
    ``entry_point`` (the Python name, compared without case and underscores), else the one the
    ``test`` calls most (the later one on a tie, or when none is called).

    Raises:
        TypeParseError: no function found, or its types cannot be read (the reason says which).
    """
    language = language_of(str(row.get("task_id", "")))
    declaration = str(row.get("declaration") or row.get("prompt") or "")
    solution = str(row.get("canonical_solution") or "")
    found = _candidates(language, declaration + "\n" + solution)
    if not found:
        raise TypeParseError(f"{row.get('task_id')}: no function signature in the declaration")
    chosen = None
    if entry_point:
        same = [s for s in found if _norm(s.name) == _norm(entry_point)]
        chosen = same[-1] if same else None
    if chosen is None:
        test = str(row.get("test") or "")
        calls = [len(re.findall(rf"\b{re.escape(s.name)}\s*\(", test)) for s in found]
        best = max(calls)
        # ties go to the later function: a declaration ends with the tested one's signature
        chosen = found[len(calls) - 1 - calls[::-1].index(best)]
    if chosen.returns.kind == "unparsed":
        raise TypeParseError(f"{row.get('task_id')}: {chosen.name}: {chosen.returns.spelling}")
    return chosen
