"""Static rules on stored programs: the shelf README's cleaning, naming and harness checks.

Why static (``ast``) rules only: the derived generation files record what the sources stored,
minus harness text and markdown; deciding which rows to keep must not depend on running them
(the builders label them later, in a sandbox).
"""

from __future__ import annotations

import ast
import builtins
import re
from collections.abc import Iterable

FENCE = re.compile(r"^\s*```[A-Za-z0-9_+-]*\s*$")
BUILTIN_NAMES = frozenset(dir(builtins))


def strip_fences(program: str) -> str:
    """Drop markdown fence lines (```` ``` ````, ```` ```python ````), keep every other line."""
    return "\n".join(line for line in program.split("\n") if not FENCE.match(line))


def strip_stray_thon(program: str) -> str:
    """AgentCoder cut its completions after the first "```py", leaving a first line ``thon``."""
    first, sep, rest = program.partition("\n")
    return rest if first == "thon" and sep else program


def strip_header(program: str, header: str) -> str:
    """Remove a harness ``header`` from the front of ``program`` (LDB's ``IMPORT_HEADER``)."""
    return program[len(header) :] if header and program.startswith(header) else program


def normalise(program: str) -> str:
    """The duplicate key: whitespace runs collapsed, ends trimmed."""
    return " ".join(program.split())


def _parse(code: str) -> ast.Module | None:
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError):
        return None


def called_names(code: str) -> dict[str, list[int]]:
    """Every plain-name call in ``code``: name -> argument counts (positional + keyword), in order."""
    out: dict[str, list[int]] = {}
    tree = _parse(code)
    if tree is None:
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            out.setdefault(node.func.id, []).append(len(node.args) + len(node.keywords))
    return out


def assert_called_names(code: str) -> list[str]:
    """Names called inside ``assert`` statements, first occurrence order."""
    out: list[str] = []
    tree = _parse(code)
    if tree is None:
        return out
    for statement in ast.walk(tree):
        if isinstance(statement, ast.Assert):
            for node in ast.walk(statement):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id not in out
                ):
                    out.append(node.func.id)
    return out


def tested_function(test_code: str) -> str | None:
    """The function a source's asserts test: the first non-builtin name they call (a builtin's
    name when they call nothing else, e.g. MBPP 126's own ``sum``)."""
    names = assert_called_names(test_code)
    user = [name for name in names if name not in BUILTIN_NAMES]
    return (user or names or [None])[0]


def required_functions(test_code: str) -> set[str]:
    """The functions a sanitized MBPP problem's asserts require (non-builtin names they call)."""
    names = assert_called_names(test_code)
    return set([name for name in names if name not in BUILTIN_NAMES] or names)


def accepts(signature_code: str, name: str, arg_counts: Iterable[int]) -> bool | None:
    """Whether ``name``'s signature in ``signature_code`` (a prompt: a ``def`` with a docstring and
    no body is completed with ``pass``) takes every count in ``arg_counts``; None when the code
    defines no such function."""
    tree = _parse(signature_code) or _parse(signature_code + "    pass\n")
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            args = node.args
            positional = len(args.posonlyargs) + len(args.args)
            low = positional - len(args.defaults)
            high = float("inf") if args.vararg else positional
            return all(low <= count <= high for count in arg_counts)
    return None


def defined_functions(program: str) -> set[str] | None:
    """Names of every function the program defines (nested ones too); None if it does not parse."""
    tree = _parse(program)
    if tree is None:
        return None
    return {
        n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def bound_and_loaded(code: str) -> tuple[set[str], set[str]] | None:
    """(names the code binds anywhere, names it reads anywhere); None if it does not parse."""
    tree = _parse(code)
    if tree is None:
        return None
    bound: set[str] = set()
    loaded: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
    return bound, loaded


def header_names(header: str) -> frozenset[str]:
    """The names a harness header binds (``from M import *`` binds ``M.__all__`` or M's public names)."""
    import importlib

    names: set[str] = set()
    tree = _parse(header)
    if tree is None:
        return frozenset()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            module = importlib.import_module(node.module or "")
            public = getattr(module, "__all__", None)
            names.update(
                public if public is not None else (n for n in dir(module) if not n.startswith("_"))
            )
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return frozenset(names)


def needs_harness(
    program: str, problem_code: str, prompt: str, harness: frozenset[str], rule: str = "all"
) -> bool:
    """The shelf's ``harness_prefix`` rule: the program reads names that nothing but the harness
    defines. ``rule="all"``: every name it reads unbound by itself, the problem's prompt and test,
    or builtins is one the harness binds, and there is at least one; ``rule="any"``: at least one
    such name is (how the shelf treated MapCoder-Reproduction). A body-only program is read after
    its prompt."""
    found = bound_and_loaded(program) or bound_and_loaded(prompt + program)
    context = bound_and_loaded(problem_code)
    if found is None:
        return False
    bound, loaded = found
    free = loaded - bound - BUILTIN_NAMES - (context[0] if context else set())
    if rule == "any":
        return bool(free & harness)
    return bool(free) and free <= harness
