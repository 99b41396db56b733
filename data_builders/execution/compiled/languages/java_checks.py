"""Which assertions of a Java test the host judges, and the driver code that replaces them.

Why: an assertion left to the program is decided by the program's own report, which a hostile
program can forge; one the host can judge is rewritten to write a value instead
(``__unice_value``, ``languages/java_support.py``) and judged with Java's ``equals``/``==``
(``compiled/checks.py``). Three kinds, each recognised here from the test's text:

* an element of HumanEval-X's ``correct`` list, or a translated
  ``if (C) throw new AssertionError();``, comparing with a constant (``java_check``,
  ``java_throwing_check``; expected maps built from constants: ``constant_maps``);
* with a reference solution (``languages/computed.py``), an ``assert`` statement or a loop's
  ``if (C) throw new AssertionError()`` comparing with a value the test computes
  (``java_computed``, ``java_statement``): the candidate's run writes its side, the
  reference's run the other.

``languages/java.py`` walks the test's ``main`` and calls these for each statement; what is
not recognised stays an in-program case.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from data_builders.execution.compiled.checks import Check
from data_builders.execution.compiled.languages.checks import abs_check, literal_side
from data_builders.execution.compiled.languages.computed import (
    Reference,
    poly_case,
    sides,
)
from data_builders.execution.compiled.languages.source import (
    closing,
    code_mask,
    matching,
    single_call,
    split_top_level,
    statements,
    strip_parens,
    top_level,
)
from data_builders.execution.compiled.literals import NotLiteral, is_literal, parse_literal
from data_builders.execution.compiled.values import JMap

# A statement of ``main`` that asserts (``languages/java.py`` makes each one a case).
ASSERTING = re.compile(r"throw\s+new\s+AssertionError|\bassert\b")
_OBJECTS_EQUALS = r"(?:java\.util\.)?Objects\s*\.\s*equals\s*\("
_MAP_DECL = re.compile(
    r"(?:java\.util\.)?(?:Map|HashMap)\s*<[^;=]*>\s+(\w+)\s*=\s*new\s+(?:java\.util\.)?HashMap\s*<[^;]*>\s*\(\s*\)\s*;"
)
_MAP_PUT = re.compile(r"(\w+)\s*\.\s*put\s*\((.*)\)\s*;", re.S)


def constant_maps(body: str) -> tuple[dict[str, JMap], dict[str, list[tuple[int, int]]]]:
    """Maps ``main`` builds from constants only (``Map<K, V> m = new HashMap<>();`` then
    ``m.put(k, v);``...): their entries, and the statements that build each."""
    spans: dict[str, list[tuple[int, int]]] = {}
    entries: dict[str, list[tuple[Any, Any]]] = {}
    spoiled: set[str] = set()
    for start, end in statements(body):
        text = body[start:end].strip()
        declared = _MAP_DECL.fullmatch(text)
        if declared:
            name = declared.group(1)
            if name in spans:
                spoiled.add(name)
            spans[name], entries[name] = [(start, end)], []
            continue
        put = _MAP_PUT.fullmatch(text)
        if put and put.group(1) in spans:
            args = split_top_level(put.group(2))
            try:
                if len(args) != 2:
                    raise NotLiteral("put takes two values")
                key, value = (parse_literal(a, "java") for a in args)
            except (NotLiteral, ValueError, IndexError):
                spoiled.add(put.group(1))
                continue
            entries[put.group(1)] = [(k, v) for k, v in entries[put.group(1)] if k != key]
            entries[put.group(1)].append((key, value))
            spans[put.group(1)].append((start, end))
    maps = {n: JMap(tuple(entries[n])) for n in spans if n not in spoiled}
    return maps, {n: spans[n] for n in maps}


def java_check(condition: str, constants: dict[str, Any] | None = None) -> tuple[str, Check] | None:
    """``(X, check)`` when an element of the ``correct`` list compares an expression X with a
    constant the host can read (``X.equals(L)``, ``Objects.equals(X, L)``, ``X == L`` with a
    primitive ``L``, ``Math.abs(X - L) < T``, a bare ``s.f(...)`` / ``!s.f(...)``; ``X ==
    "L"``: identity, so the program writes X and whether it is the pooled instance of its
    string, ``X == X.intern()``, and the host requires both: that is ``==`` with the pooled
    literal, which the driver does not hold); None leaves it to the program."""
    text = strip_parens(condition)
    negate = False
    while text.startswith("!") and not text.startswith("!="):
        rest = text[1:].lstrip()
        grouped = rest.startswith("(") and strip_parens(rest) != rest
        if not grouped and not single_call(rest, chained=True):
            return None
        text, negate = strip_parens(rest), not negate
    try:
        if not text or top_level(text, ("&&", "||", "?", "->")):
            return None
        return _java_check(text, negate, condition, constants or {})
    except (NotLiteral, ValueError, IndexError):
        return None


def _java_check(
    text: str, negate: bool, condition: str, constants: dict[str, Any]
) -> tuple[str, Check] | None:
    objects = re.match(_OBJECTS_EQUALS, text)
    if objects and single_call(text):
        args = split_top_level(text[objects.end() : -1])
        sides = literal_side(*args, "java") if len(args) == 2 else None
        if sides is None:
            return None
        expected = parse_literal(sides[1], "java")
        return sides[0], Check("java", "equals", expected, negate=negate, text=condition)
    equal = top_level(text, ("==", "!="))
    if len(equal) > 1:
        return None
    if equal:
        ((i, op),) = equal
        sides = literal_side(text[:i].strip(), text[i + 2 :].strip(), "java")
        if sides is None:
            return None
        expected = parse_literal(sides[1], "java")
        if isinstance(expected, list) or expected is None:
            return None
        check = Check("java", "eq", expected, negate=negate != (op == "!="), text=condition)
        if isinstance(expected, str):  # identity: the value and whether it is the pooled one
            return f"__unice_interned({sides[0]})", check
        return sides[0], check
    dots = [i for i, _ in top_level(text, (".equals",)) if re.match(r"\.equals\s*\(", text[i:])]
    if dots:
        at = dots[-1]
        open_ = text.index("(", at)
        if matching(text, open_, code_mask(text)) != len(text) - 1:
            return None
        actual, literal = text[:at].strip(), text[open_ + 1 : -1].strip()
        if literal in constants and actual and not re.search(rf"\b{literal}\b", actual):
            return actual, Check(
                "java", "equals", constants[literal], negate=negate, text=condition
            )
        if not is_literal(literal, "java") or is_literal(actual, "java") or not actual:
            return None
        expected = parse_literal(literal, "java")
        return actual, Check("java", "equals", expected, negate=negate, text=condition)
    absolute = abs_check(text, "java", r"Math\s*\.\s*abs\s*\(", negate, condition)
    if absolute is not None:
        return absolute
    if single_call(text, chained=True) and not is_literal(text, "java"):
        return text, Check("java", "truthy", negate=negate, text=condition)
    return None


def java_computed(
    condition: str, names: frozenset[str], fails: bool
) -> tuple[str, str, Check] | None:
    """``(candidate side, expected side, check)`` when ``condition`` compares the candidate
    with a value the test computes (``X.equals(Y)``, ``Objects.equals(X, Y)``, ``X == Y``,
    ``X != Y``, HumanEval's ``Math.abs(s.poly(xs, x)) > T``, each maybe negated):
    ``languages/computed.py``. ``fails``: ``condition`` is the test's failure condition
    (``if (C) throw new AssertionError()``), so the assertion holds when it does not."""
    text, negate = strip_parens(condition), fails
    while text.startswith("!") and not text.startswith("!="):
        text, negate = strip_parens(text[1:]), not negate
    try:
        if not text or top_level(text, ("&&", "||", "?", "->")):
            return None
        objects = re.match(_OBJECTS_EQUALS, text)
        if objects and single_call(text):
            args = split_top_level(text[objects.end() : -1])
            found = sides(*args, names) if len(args) == 2 else None
            op = "equals"
        elif equal := top_level(text, ("==", "!=")):
            if len(equal) > 1:
                return None
            ((i, sign),) = equal
            found = sides(text[:i].strip(), text[i + 2 :].strip(), names)
            op, negate = "eq", negate != (sign == "!=")
        elif dots := [
            i for i, _ in top_level(text, (".equals",)) if re.match(r"\.equals\s*\(", text[i:])
        ]:
            open_ = text.index("(", dots[-1])
            if matching(text, open_, code_mask(text)) != len(text) - 1:
                return None
            found = sides(text[: dots[-1]].strip(), text[open_ + 1 : -1].strip(), names)
            op = "equals"
        else:
            abs_call = r"Math\s*\.\s*abs\s*\("
            return poly_case(text, abs_call, names, "java", condition, negate, above=True)
    except (ValueError, IndexError):
        return None
    if found is None or (found[2] == "self" and op == "eq"):
        return None
    check = Check("java", op, negate=negate, text=condition, origin=found[2])
    return found[0], found[1], check


_THROWING_IF = re.compile(r"\bif\s*\(")
_THROW = re.compile(r"\s*(\{)?\s*throw\s+new\s+AssertionError\s*\(\s*\)\s*;\s*(\})?")
_ASSERT_STATEMENT = re.compile(r"assert\s+(.*?)\s*;\s*$", re.S)


def java_statement(text: str, k: int, reference: Reference) -> tuple[str, Check] | None:
    """The driver's code for statement ``text`` of ``main`` (case ``k``) when it asserts a
    comparison with a value the test computes, and its check; None leaves it to the program.

    ``assert C;``: one value. A loop (``for``/``while``) whose only assertion is one
    ``if (C) throw new AssertionError();``: one case (as the test counts it) whose value is
    every turn's, the ``if`` replaced by recording the turn's value (``__unice_series``); the
    test stopped at the first failing turn, so the host's check does (``stop_first``)."""
    text = text.strip()
    throwing = _throwing_if(text)
    if throwing is not None:  # if (C) throw new AssertionError(); on its own
        found = java_computed(throwing, reference.names, fails=True)
        chosen = _chosen(k, found, reference)
        return (f"__unice_value({k}, () -> ({chosen[0]}));", chosen[1]) if chosen else None
    single = _ASSERT_STATEMENT.fullmatch(text)
    if single:
        if ":" in single.group(1) or "assert" in single.group(1):
            return None
        found = java_computed(single.group(1), reference.names, fails=False)
        chosen = _chosen(k, found, reference)
        return (f"__unice_value({k}, () -> ({chosen[0]}));", chosen[1]) if chosen else None
    if not re.match(r"(?:for|while)\s*\(", text) or len(ASSERTING.findall(text)) != 1:
        return None
    mask = code_mask(text)
    for match in _THROWING_IF.finditer(text):
        if not mask[match.start()]:
            continue
        close = matching(text, match.end() - 1, mask)
        throw = _THROW.match(text, close + 1)
        if throw is None or bool(throw.group(1)) != bool(throw.group(2)):
            continue
        if re.match(r"\s*else\b", text[throw.end() :]):
            return None
        found = java_computed(text[match.end() : close], reference.names, fails=True)
        if found is not None:
            found = (
                found[0],
                found[1],
                dataclasses.replace(found[2], each="list", stop_first=True),
            )
        chosen = _chosen(k, found, reference)
        if chosen is None:
            return None
        turn = f"__unice_turn(__unice_turns, {chosen[0]});"
        body = text[: match.start()] + turn + text[throw.end() :]
        return f"__unice_series({k}, (__unice_turns) -> {{ {body} }});", chosen[1]
    return None


def _throwing_if(text: str) -> str | None:
    """``C`` of a statement that is only ``if (C) throw new AssertionError();`` (braces
    allowed, no ``else``), else None."""
    match = re.match(r"if\s*\(", text)
    if match is None:
        return None
    close = closing(text, match.end() - 1)
    if close is None:
        return None
    throw = _THROW.match(text, close + 1)
    if throw is None or throw.end() != len(text) or bool(throw.group(1)) != bool(throw.group(2)):
        return None
    return text[match.end() : close]


def java_throwing_check(text: str, k: int) -> tuple[str, Check] | None:
    """A statement ``if (C) throw new AssertionError();`` (HE-Eval-X's translated Java
    assertions) whose ``!C`` compares with a constant: a value case like a ``correct``
    element (``java_check``), needing no reference."""
    condition = _throwing_if(text.strip())
    found = java_check(f"!({condition})") if condition is not None else None
    if found is None:
        return None
    return f"__unice_value({k}, () -> ({found[0]}));", found[1]


def _chosen(
    k: int, found: tuple[str, str, Check] | None, reference: Reference
) -> tuple[str, Check] | None:
    """What case ``k``'s driver writes: the candidate's side (both, for ``origin ==
    "self"``), or the reference's expected side (``computed.computed_case``'s rule)."""
    if found is None:
        return None
    candidate, expected, check = found
    if reference.role == "reference":
        return (f"(Object) ({expected})", check) if check.origin == "reference" else None
    if check.origin == "self":
        return f"java.util.Arrays.asList((Object) ({candidate}), (Object) ({expected}))", check
    return (f"(Object) ({candidate})", check) if k in reference.enabled else None
