"""Seed inputs from a function's type annotations, for problems whose tests give none.

Some HumanEval checks only call the function inside loops over random data (``decode_cyclic``,
``find_zero``); their literal cases cannot be read, but the prompt's annotations
(``def decode_cyclic(s: str)``) still say what to generate.
"""

from __future__ import annotations

import ast
from typing import Any

_SCALARS: dict[str, list[Any]] = {
    "int": [0, 1, 7, -3, 12],
    "float": [0.0, 1.5, -2.25, 3.0, 10.75],
    "str": ["", "a", "abc", "Hello World", "xyzzy"],
    "bool": [True, False, True, False, True],
}
_SEED_COUNT = 5


def _seeds_for(annotation: ast.expr | None) -> list[Any] | None:
    """Five example values of the annotated type, or None when unknown."""
    if annotation is None:
        return None
    if isinstance(annotation, ast.Name):
        name = annotation.id
        if name in _SCALARS:
            return list(_SCALARS[name])
        if name in ("list", "List"):
            return [[], [1], [1, 2, 3], [4, -1, 0, 2], [5, 5, 8, 1, 9, 2]]
        return None
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name):
        outer = annotation.value.id.lower()
        inner = annotation.slice
        if outer in ("list", "set") and not isinstance(inner, ast.Tuple):
            items = _seeds_for(inner)
            if items is None:
                return None
            made = [items[:0], items[:1], items[:3], items[1:], items[::-1]]
            return [set(m) for m in made] if outer == "set" else made
        if outer == "tuple" and isinstance(inner, ast.Tuple):
            columns = [_seeds_for(elt) for elt in inner.elts]
            if any(column is None for column in columns):
                return None
            return [tuple(column[i] for column in columns) for i in range(_SEED_COUNT)]
    return None


def seeds_from_signature(source: str, entry_point: str) -> list[tuple[Any, ...]]:
    """Argument tuples built from the annotations of ``entry_point`` in ``source``.

    Returns an empty list when the function is missing, has unannotated or unsupported
    parameters, or the source does not parse.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == entry_point.strip():
            params = node.args.posonlyargs + node.args.args
            columns = [_seeds_for(param.annotation) for param in params]
            if not columns or any(column is None for column in columns):
                return []
            return [tuple(column[i] for column in columns) for i in range(_SEED_COUNT)]
    return []
