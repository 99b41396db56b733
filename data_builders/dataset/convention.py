"""The model input convention: what ``nl``, ``generated`` and ``reference`` hold in every row.

Why it exists: a HumanEval/MBPP program is the prompt (signature + docstring) plus a body.
Rows used to carry whole programs in ``generated`` and ``reference`` and the docstring again in
``nl``, so the prompt filled a g+r+n input three times over, most rows were cut, and in some
mutants the mutation itself was cut away. Under this convention the task text appears once:

- ``nl``: the task as the generator saw it (the HumanEval/MBPP prompt; the APPS question,
  with its starter code when it has one);
- ``generated`` / ``reference``: the code without that prompt repeated (a HumanEval completion
  is its body; a whole program that starts with the prompt has the prompt removed; a program
  that redefines the prompt's function loses that function's signature and docstring, keeping
  its body where the function stood and every other line -- imports, helpers -- as written;
  anything else is kept whole);
- ``program``: the complete program that was executed (provenance; never fed to the model).

Builders, ``unice-score``, training and ``evaluate.py`` all read rows through this module, so
they agree. Dataset folders record ``input_convention`` in ``stats.json``; folders built before
it (no field) are refused with the command that rebuilds them.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from data_builders.problems.base import Problem

INPUT_CONVENTION = 2
"""Version written to ``stats.json`` (and a build's manifest); 1 = whole programs + docstring."""


def strip_prompt(code: str, prompt: str) -> str:
    """``code`` without ``prompt`` in front of it (when it starts with it), else unchanged.

    Leading whitespace of the prompt is tolerated (MBPP prompts start with a newline that
    some programs drop). An empty prompt changes nothing.

    >>> strip_prompt("def f(x):\\n    '''Doc.'''\\n    return x\\n", "def f(x):\\n    '''Doc.'''\\n")
    '    return x\\n'
    """
    if not prompt:
        return code
    if code.startswith(prompt):
        return code[len(prompt) :]
    stripped = prompt.lstrip()
    if stripped and code.lstrip().startswith(stripped):
        body = code.lstrip()[len(stripped) :]
        return body
    return code


def task_text(problem: Problem) -> str:
    """The ``nl`` field: the task as a generator saw it.

    Function-completion problems (HumanEval, MBPP in HumanEval's shape) have a code prompt
    that the reference starts with: that prompt is the task. Other problems (APPS) give the
    question, followed by the starter code when there is one.
    """
    if problem.prompt and problem.reference.startswith(problem.prompt):
        return _declaration_before(problem) + problem.prompt
    starter = str(problem.metadata.get("starter_code") or "").strip()
    question = (problem.nl or "").strip()
    return f"{question}\n\n{starter}" if starter else question


def _declaration_before(problem: Problem) -> str:
    """HumanEval-X's Rust declaration (its ``use`` lines and the function's signature), which
    the program puts before the prompt: Rust's prompt is only a doc comment, so without it the
    task would not name the function, its parameters or its types. Empty for every other
    problem (their prompts hold the signature)."""
    if problem.metadata.get("language") != "rust":
        return ""
    return str(problem.metadata.get("declaration") or "")


def code_without_prompt(program: str, problem: Problem) -> str:
    """The ``generated``/``reference`` field of ``program``: the task's prompt removed.

    Why the redefinition rule: many generators (chat models, agents) answer a HumanEval/MBPP
    prompt with the whole function again. Kept whole, its signature repeats the prompt, and its
    *form* (``def ...`` vs a bare body) tells a model which generator wrote it -- in the MBPP
    training mix real programs were whole functions and mutants bare bodies, and a model
    learned "bare body => fails", which inverted its ranking on HumanEval's bodies.
    """
    if not (problem.prompt and problem.reference.startswith(problem.prompt)):
        return program
    code = strip_prompt(program, problem.prompt)
    body = function_body(code, problem.entry_point)
    return code if body is None else body


def function_body(program: str, name: str | None) -> str | None:
    """``program`` with top-level function ``name``'s signature (and docstring) removed: its
    body stays where the function stood, every other line as written. None when the program
    does not parse or defines no such function."""
    if not name or "." in name:
        return None
    try:
        tree = ast.parse(program)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    node = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
         and n.name == name),
        None,
    )  # fmt: skip
    if node is None or not node.body:
        return None
    body = node.body
    if (
        len(body) > 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        body = body[1:]
    lines = program.splitlines(keepends=True)
    first = min(d.lineno for d in node.decorator_list) if node.decorator_list else node.lineno
    start = body[0].lineno - 1
    if body[0].lineno == node.lineno:  # one-line function: ``def f(x): return x``
        return None
    end = node.end_lineno or len(lines)
    return "".join(lines[: first - 1] + lines[start:end] + lines[end:])


def row_texts(program: str, problem: Problem, reference: str) -> dict[str, str]:
    """``nl``, ``reference``, ``generated`` and ``program`` of one candidate's row."""
    return {
        "nl": task_text(problem),
        "reference": code_without_prompt(reference, problem) if reference else "",
        "generated": code_without_prompt(program, problem),
        "program": program,
    }


def stale_folder_message(folder: Path, rebuild: str = "") -> str | None:
    """Why ``folder`` cannot be read under this convention, or None when it can.

    A folder made by the builders has ``stats.json``; one without ``input_convention`` there
    was built before this convention (whole programs in ``generated``/``reference``, the
    docstring in ``nl``) and would be silently misread, so it is refused. Folders without
    ``stats.json`` (hand-made JSONL) are taken as written under this convention.
    """
    stats = Path(folder) / "stats.json"
    if not stats.is_file():
        return None
    try:
        version = json.loads(stats.read_text(encoding="utf-8")).get("input_convention", 1)
    except (OSError, ValueError, AttributeError):
        return None
    if version == INPUT_CONVENTION:
        return None
    fix = rebuild or "rerun its `python -m data_builders build ...` command"
    return (
        f"{folder} was built with input convention {version} (whole programs and a repeated "
        f"prompt); this version reads convention {INPUT_CONVENTION}: delete the folder and "
        f"rebuild it ({fix}); the extended-test cache makes that fast"
    )
