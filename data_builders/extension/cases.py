"""Parse a problem's assertion tests into ``(args, expected)`` cases.

Why: test extension needs the *inputs* of the original tests (to infer argument types and
mutate them) and their expected values (to seed the pool of outputs). Tests are dataset
content, not generated code, but we still never ``exec`` them: a small evaluator accepts
only literals and arithmetic on literals, so anything else is simply "not a case" (the
original assertion is still kept as a test by the executor).
"""

from __future__ import annotations

import ast
import math
import operator
from dataclasses import dataclass
from typing import Any

from data_builders.extension.inputs import canonical

_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_MAX_SIZE = 10_000  # cap on sequence sizes built by '*' so a test cannot blow up memory


class NotLiteral(ValueError):
    """The expression is not something :func:`safe_eval` accepts."""


@dataclass(frozen=True)
class Case:
    """One call of the entry point with literal arguments.

    Attributes:
        args: positional arguments, in order.
        expected: the expected return value, or ``None`` with ``has_expected=False`` when the
            assertion does not state one (e.g. a tolerance check we could not read).
    """

    args: tuple[Any, ...]
    expected: Any = None
    has_expected: bool = True


def safe_eval(node: ast.AST) -> Any:
    """Evaluate literals plus arithmetic, ``float('inf')``-style calls and comprehension-free
    containers; raise :class:`NotLiteral` for anything else."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [safe_eval(elt) for elt in node.elts]
        return {ast.List: list, ast.Tuple: tuple, ast.Set: set}[type(node)](items)
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise NotLiteral("dict unpacking")
        return {safe_eval(k): safe_eval(v) for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd, ast.Not)):
        value = safe_eval(node.operand)
        if isinstance(node.op, ast.Not):
            return not value
        return -value if isinstance(node.op, ast.USub) else +value
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return _binop(node)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        return _call(node.func.id, [safe_eval(arg) for arg in node.args])
    raise NotLiteral(type(node).__name__)


def _binop(node: ast.BinOp) -> Any:
    left, right = safe_eval(node.left), safe_eval(node.right)
    if isinstance(node.op, ast.Mult):
        for seq, times in ((left, right), (right, left)):
            if isinstance(seq, (str, list, tuple, bytes)) and (
                not isinstance(times, int) or len(seq) * times > _MAX_SIZE
            ):
                raise NotLiteral("sequence too large")
    if isinstance(node.op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > 64:
        raise NotLiteral("power too large")
    try:
        return _BINOPS[type(node.op)](left, right)
    except (TypeError, ZeroDivisionError, OverflowError, ValueError) as exc:
        raise NotLiteral(str(exc)) from None


def _call(name: str, args: list[Any]) -> Any:
    simple = {"float": float, "int": int, "str": str, "tuple": tuple, "list": list, "set": set}
    if name in simple and len(args) <= 1:
        try:
            return simple[name](*args)
        except (TypeError, ValueError) as exc:
            raise NotLiteral(str(exc)) from None
    raise NotLiteral(f"call to {name}")


def _call_args(node: ast.AST, names: frozenset[str]) -> tuple[Any, ...] | None:
    """The literal arguments if ``node`` is ``candidate(...)`` (or ``<entry>(...)``)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        return None
    if node.func.id not in names or node.keywords:
        return None
    if any(isinstance(arg, ast.Starred) for arg in node.args):
        return None
    try:
        return tuple(safe_eval(arg) for arg in node.args)
    except NotLiteral:
        return None


def _case_from_assert(test: ast.expr, names: frozenset[str]) -> Case | None:
    """Recognise the common shapes of a HumanEval/MBPP assertion."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        args = _call_args(test.operand, names)
        return Case(args, False) if args is not None else None
    args = _call_args(test, names)
    if args is not None:
        return Case(args, True)
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, (ast.Eq, ast.Is)):
        for call, other in ((left, right), (right, left)):
            args = _call_args(call, names)
            if args is not None:
                try:
                    return Case(args, safe_eval(other))
                except NotLiteral:
                    return Case(args, has_expected=False)
    if isinstance(op, (ast.Lt, ast.LtE)):
        return _tolerance_case(left, names)
    return None


def _tolerance_case(node: ast.expr, names: frozenset[str]) -> Case | None:
    """``abs(candidate(x) - y) < tol`` -> ``Case(x, y)``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))):
        return None
    name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
    if name not in ("abs", "fabs") or len(node.args) != 1:
        return None
    inner = node.args[0]
    if not (isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Sub)):
        return None
    for call, other in ((inner.left, inner.right), (inner.right, inner.left)):
        args = _call_args(call, names)
        if args is not None:
            try:
                value = safe_eval(other)
            except NotLiteral:
                return Case(args, has_expected=False)
            return Case(args, value if isinstance(value, (int, float)) else None, True)
    return None


def parse_cases(test_source: str, entry_point: str) -> list[Case]:
    """All literal cases found in a ``check(candidate)`` source (or bare asserts, as in MBPP).

    Assertions inside loops or with computed arguments are skipped, not guessed at.

    Args:
        test_source: the test code (HumanEval ``check`` function or MBPP assert lines).
        entry_point: the function under test; calls to it or to ``candidate`` count.

    Returns:
        The cases, in source order, duplicates removed.
    """
    try:
        tree = ast.parse(test_source)
    except SyntaxError:
        return []
    names = frozenset({"candidate", entry_point.strip()})
    cases: list[Case] = []
    seen: set[str] = set()
    for node in _top_level_asserts(tree):
        found = _case_from_assert(node.test, names)
        found_cases = [found] if found is not None else _nested_calls(node.test, names)
        for case in found_cases:
            key = canonical(case.args)  # not repr: no 4,300-digit limit on ints
            if key not in seen:
                seen.add(key)
                cases.append(case)
    return cases


def _nested_calls(test: ast.expr, names: frozenset[str]) -> list[Case]:
    """Inputs of calls buried in other shapes (``set(f(x)) == ...``, ``math.isclose(f(x), y)``):
    their arguments still teach us the input types, without an expected value."""
    cases = []
    for node in ast.walk(test):
        args = _call_args(node, names)
        if args is not None:
            cases.append(Case(args, has_expected=False))
    return cases


def _top_level_asserts(tree: ast.Module) -> list[ast.Assert]:
    """Asserts at module level or directly in a function body (not in loops/branches)."""
    found: list[ast.Assert] = []
    for node in tree.body:
        if isinstance(node, ast.Assert):
            found.append(node)
        elif isinstance(node, ast.FunctionDef):
            found.extend(stmt for stmt in node.body if isinstance(stmt, ast.Assert))
    return found


def is_finite_value(value: Any) -> bool:
    """False for values containing nan (they never compare equal, so make useless tests)."""
    if isinstance(value, float):
        return not math.isnan(value)
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(is_finite_value(item) for item in value)
    if isinstance(value, dict):
        return all(is_finite_value(k) and is_finite_value(v) for k, v in value.items())
    return True
