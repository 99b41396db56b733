"""The evaluation harness headers the sources ran programs after, read from the sources' own code.

Why read them from the reference files instead of typing them here: the ``harness_prefix`` of a
derived row must be the exact text the source's harness prepended, and the pinned reference file
(LDB's ``programming/utils.py``, MGDebugger's ``utils.py``) is the authority for it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from data_builders.errors import UserError

TYPING = "from typing import *\n"


def _assignment(path: Path, name: str) -> ast.expr:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return node.value
    raise UserError(f"{path}: no top-level {name} = ... (is this the pinned file?)")


def ldb_header(utils_py: Path) -> str:
    """LDB's ``IMPORT_HEADER`` (``programming/utils.py``): stripped from its programs, and their
    prefix where one is needed."""
    return ast.literal_eval(_assignment(utils_py, "IMPORT_HEADER"))


def mgdebugger_header(utils_py: Path) -> str:
    """MGDebugger's ``STARTING_CODE`` (``utils.py``: its ``helpers`` joined by newlines) without its
    two numpy lines (numpy is not a dependency of the programs' checks), newline-terminated."""
    helpers = ast.literal_eval(_assignment(utils_py, "helpers"))
    return "\n".join(line for line in helpers if "numpy" not in line) + "\n"


def typing_header(evaluator_py: Path | None) -> str:
    """``from typing import *``: MapCoder's, Reflexion's and LATS's harness line (checked against
    the source's evaluator where the target names one)."""
    if evaluator_py is not None and "from typing import *" not in evaluator_py.read_text(
        encoding="utf-8"
    ):
        raise UserError(f"{evaluator_py}: no 'from typing import *' (is this the pinned file?)")
    return TYPING


HEADERS = {"ldb": ldb_header, "mgdebugger": mgdebugger_header, "typing": typing_header}
