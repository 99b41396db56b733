"""Test translation: HE-Eval's extended Python test cases written as C++, Java, JavaScript, Go
and Rust tests, so HE-Eval-X's tasks get the same extended suites as HE-Eval's.

Named for what it does (it was ``data_builders/languages/``, a second package of that name
beside the executor's language modules): it reads a HumanEval-X task's declared types
(``types``), spells Python values as literals of those types (``literals``, checked by
``literal_checks``), writes each case as an assertion in the language's own test shape
(``assertions``), joins them into the task's test (``suites``), and counts what translates
(``translate``, ``coverage``). Which languages there are, and their names, come from the one
language table, :mod:`data_builders.languages`."""

from data_builders.test_translation.assertions import PRELUDES, assertion, call_expression
from data_builders.test_translation.literals import Untranslatable, literal
from data_builders.test_translation.types import (
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
