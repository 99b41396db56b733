"""HumanEval-X languages (C++, Java, JavaScript, Go, Rust): declared types, literals of Python
values through those types, and extended-test assertions in each language's own test shape."""

from data_builders.languages.assertions import PRELUDES, assertion, call_expression
from data_builders.languages.literals import Untranslatable, literal
from data_builders.languages.types import (
    LANGUAGES,
    Signature,
    Type,
    TypeParseError,
    parse_signature,
)

__all__ = [
    "LANGUAGES",
    "PRELUDES",
    "Signature",
    "Type",
    "TypeParseError",
    "Untranslatable",
    "assertion",
    "call_expression",
    "literal",
    "parse_signature",
]
