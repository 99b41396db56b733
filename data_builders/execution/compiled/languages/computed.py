"""Assertions whose expected side the test computes, judged on the host from a reference run.

Why: a host-side verdict (``compiled/checks.py``) needs the expected value, and only a constant
of the test's text can be read from it. ``decode_cyclic(encoded_str) == str``,
``change_base(x, x + 1) == to_string(x)``, ``add(x, y) == x + y`` or ``f(lst) == odd_sum``
compare the candidate's value with one the test computes; left to the program, their verdict
is the program's own report, which a hostile program can forge. When the task has a trusted
reference solution (HumanEval-X's canonical one), such an assertion is split like a value
case: the candidate's process writes only the *candidate side* (the side that calls a
function the program defines), and the *expected side* is written by the same test driver
run with the reference solution in place of the candidate, in its own sandboxed process
(``compiled/reference.py``); the host compares the two with the test's semantics. The
expected value never enters the candidate's process, and no verdict is decided there.

Three more shapes, each judged on the host:

* both sides call the program (``issame(sort_third(x), sort_third(x))``): the test compares
  the candidate with itself, so the candidate's process writes the pair and the host
  compares its halves (``Check.origin == "self"``; no reference value is needed, and the
  reference's would change what the test asks);
* HumanEval's ``find_zero`` property ``abs(poly(xs, x)) < T``: another root is as right as
  the reference's, so the candidate writes ``x``, the reference run writes ``xs`` and the
  host evaluates ``poly`` (``foreign_checks.poly``);
* an assertion in a loop is one case (as the test counts it) whose value is every turn's
  (``Check.each``), compared turn by turn with the reference's turns.

The test's inputs must be the same in both runs: HumanEval-X's C++ draws them with
``rand()`` (never seeded: the same sequence in every process), Java with ``new Random(42)``,
and the JavaScript support code replaces ``Math.random`` with a seeded generator before any
other code runs (HumanEval-X's Rust tests that draw inputs use the ``rand`` crate, which is
not available here: they do not build, for the reference either, and stay in the program). A candidate that changes the inputs (calls ``rand()`` itself, reseeds the
generator, changes the loop) is compared with the reference's values for the unchanged
inputs and fails, as it should: the test's inputs are not the candidate's to choose.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass

from data_builders.execution.compiled.checks import Check
from data_builders.execution.compiled.languages.source import closing, code_mask, split_top_level

_KEYWORDS = frozenset(
    [
        "if",
        "for",
        "while",
        "switch",
        "catch",
        "return",
        "sizeof",
        "do",
        "else",
        "new",
        "throw",
        "synchronized",
        "function",
    ]
)
_DEFINITIONS = {
    # a function or method definition: name(params) [const] [throws ...] {
    "cpp": re.compile(r"([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:const\s*)?\{"),
    "java": re.compile(r"([A-Za-z_]\w*)\s*\([^;{}]*\)\s*(?:throws\s+[\w.,\s]+)?\{"),
    # func [(receiver)] Name(params): a Go function or method
    "go": re.compile(r"\bfunc\s+(?:\([^()]*\)\s*)?([A-Za-z_]\w*)\s*\("),
    # fn name[<generics>](params): a Rust function (a lifetime's lone quote can hide one from
    # the mask: its assertions then stay in the program)
    "rust": re.compile(r"\bfn\s+([A-Za-z_]\w*)\s*(?:<[^(){};]*>)?\s*\("),
    "js": re.compile(
        r"function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\("
        r"|(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?"
        r"(?:function\b|\([^()]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)"
    ),
}


@dataclass(frozen=True)
class Reference:
    """How a driver treats assertions whose expected side the test computes.

    ``names``: the functions the reference solution defines (a side that calls one is the
    candidate's side). ``role``: ``"candidate"`` (the driver writes the candidate side) or
    ``"reference"`` (the reference solution's driver writes the expected side).
    ``enabled``: for the candidate, the cases the reference run gave values for; a case
    without one stays in the program, as without a reference.
    """

    names: frozenset[str]
    role: str = "candidate"
    enabled: frozenset[int] = frozenset()


def defined_names(source: str, language: str) -> frozenset[str]:
    """The functions (methods) ``source`` defines, outside strings and comments."""
    pattern = _DEFINITIONS.get(language)
    if pattern is None:
        return frozenset()
    mask = code_mask(source, "\"'`" if language == "js" else "\"'")
    code = "".join(ch if keep else " " for ch, keep in zip(source, mask, strict=True))
    names = set()
    for match in pattern.finditer(code):
        names.update(name for name in match.groups() if name)
    return frozenset(names - _KEYWORDS)


def calls_any(text: str, names: frozenset[str]) -> bool:
    """Whether ``text`` calls one of ``names`` (as ``f(...)`` or ``obj.f(...)``)."""
    return any(re.search(rf"(?<![\w$]){re.escape(name)}\s*\(", text) is not None for name in names)


def sides(left: str, right: str, names: frozenset[str]) -> tuple[str, str, str] | None:
    """``(candidate side, expected side, origin)`` of a comparison: ``origin`` ``"reference"``
    when one side calls the program and the other does not (the expected side then comes
    from the reference run), ``"self"`` when both do (the candidate writes both); None when
    neither does."""
    calls_left, calls_right = calls_any(left, names), calls_any(right, names)
    if calls_left and calls_right:
        return left, right, "self"
    if calls_left:
        return left, right, "reference"
    if calls_right:
        return right, left, "reference"
    return None


def poly_property(
    text: str, abs_call: str, names: frozenset[str], function: str = "poly"
) -> tuple[str, str, str] | None:
    """``(x, xs, bound)`` of HumanEval's ``find_zero`` property ``abs(poly(xs, x)) OP T``
    (``abs_call``: the language's ``abs(`` pattern; ``bound`` the text after the call;
    ``function``: the name the language's prompt gives ``poly``, Go's ``Poly``) when the
    program defines it; None otherwise."""
    if function not in names:
        return None
    match = re.match(abs_call, text)
    if match is None:
        return None
    close = closing(text, match.end() - 1)
    if close is None:
        return None
    inner = text[match.end() : close].strip()
    call = re.match(rf"(?:[A-Za-z_]\w*\s*\.\s*)?{function}\s*\(", inner)
    if call is None or not inner.endswith(")"):
        return None
    if closing(inner, call.end() - 1) != len(inner) - 1:
        return None
    args = split_top_level(inner[call.end() : -1])
    if len(args) != 2:
        return None
    return args[1], args[0], text[close + 1 :].strip()


def poly_bound(bound: str) -> tuple[str, float] | None:
    """``(operator, tolerance)`` of the text after ``abs(poly(...))``: ``< T``, ``<= T``,
    ``> T`` with a numeric ``T``."""
    match = re.fullmatch(r"(<=|<|>)\s*([0-9.]+(?:[eE][+-]?\d+)?)", bound)
    if match is None:
        return None
    return match.group(1), float(match.group(2))


def poly_case(
    text: str,
    abs_call: str,
    names: frozenset[str],
    language: str,
    shown: str,
    negate: bool = False,
    above: bool = False,
    function: str = "poly",
) -> tuple[str, str, Check] | None:
    """``(x, xs, check)`` of HumanEval's ``find_zero`` property read from ``text`` (see
    :func:`poly_property`), judged on the host; ``shown``: the assertion's text in the check.
    A ``> T`` bound is a ``poly_above`` check where the language's test can state one
    (``above``: Java's ``if (abs(...) > T) throw``), else None."""
    prop = poly_property(text, abs_call, names, function)
    bound = poly_bound(prop[2]) if prop else None
    if prop is None or bound is None or (bound[0] == ">" and not above):
        return None
    op = "poly_above" if bound[0] == ">" else "poly"
    check = Check(
        language, op, tol=bound[1], inclusive=bound[0] == "<=", negate=negate, text=shown,
        origin="reference",
    )  # fmt: skip
    return prop[0], prop[1], check


def computed_case(
    k: int,
    found: tuple[str, str, Check] | None,
    in_loop: bool,
    reference: Reference,
    pair: Callable[[str, str], str] | None,
) -> tuple[str, Check] | None:
    """The expression case ``k``'s driver writes and its check, for an assertion whose
    expected side the test computes (``found``: the language's ``(candidate side, expected
    side, check)``); None: in the program. The candidate writes its side (both, as the
    language's ``pair`` expression, for ``origin == "self"``; a language without one, Go,
    leaves that assertion in the program); the reference writes the expected side."""
    if found is None:
        return None
    candidate, expected, check = found
    if in_loop:
        check = dataclasses.replace(check, each="turns")
    if reference.role == "reference":
        return (expected, check) if check.origin == "reference" else None
    if check.origin == "self":
        return (pair(candidate, expected), check) if pair is not None else None
    return (candidate, check) if k in reference.enabled else None
