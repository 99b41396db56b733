"""MBPP problems from the hub or from a local file, as :class:`Problem` objects.

Local files (``--source PATH``, ``.jsonl[.gz]``), recognised by their fields:

* the original MBPP release (``text``, ``code``, ``test_list``, ``test_setup_code``);
* sanitized MBPP (``prompt``, ``code``, ``test_list``, ``test_imports``);
* HumanEval-shaped files (``prompt``, ``canonical_solution``, ``test``, ``entry_point``),
  such as the shared ``mbpp_sanitized_humaneval_format.jsonl``, read by the same
  :func:`~data_builders.problems.humaneval.problem_from_record` as ``label --problems-file``
  (which re-indents 2-space canonical solutions under 4-space prompts).

MBPP problems become HumanEval-shaped: the prompt is the reference's imports and signature
with the description and first test as docstring, the test is a ``check(candidate)`` of the
problem's asserts (which call the function by name, as MBPP writes them).
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.jsonl import read_jsonl
from data_builders.problems.base import Problem, python_only
from data_builders.problems.humaneval import problem_from_record

HUB_NAME = "google-research-datasets/mbpp"


def hub_offline() -> bool:
    """True when HF_HUB_OFFLINE or HF_DATASETS_OFFLINE is set (a lookup would only stall)."""
    return any(
        os.environ.get(v, "0") not in ("", "0") for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
    )


def _entry_point(code: str, tests: list[str], where: str) -> str:
    """The function the asserts call that the reference defines."""
    try:
        defined = {n.name for n in ast.walk(ast.parse(code)) if isinstance(n, ast.FunctionDef)}
        for test in tests:
            for node in ast.walk(ast.parse(test)):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in defined
                ):
                    return node.func.id
    except SyntaxError as exc:
        raise UserError(f"{where}: code or tests do not parse ({exc.msg})") from None
    raise UserError(f"{where}: no function of the reference code is called by its tests")


def _prompt(code: str, entry_point: str, text: str, example: str) -> str:
    """Imports + ``def`` line of the reference, with the description as docstring."""
    tree = ast.parse(code)
    lines = code.splitlines()
    head: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            head.extend(lines[node.lineno - 1 : node.end_lineno])
        if isinstance(node, ast.FunctionDef) and node.name == entry_point:
            signature = lines[node.lineno - 1 : node.body[0].lineno - 1] or [
                lines[node.lineno - 1].split(":")[0] + ":"
            ]
            doc = "\n".join(f"    {line}" for line in [text.strip(), example.strip()] if line)
            return "\n".join([*head, *signature, f'    """\n{doc}\n    """', ""])
    return f'"""\n{text.strip()}\n{example.strip()}\n"""\n'


def from_mbpp_record(record: dict[str, Any], where: str) -> Problem:
    """One original or sanitized MBPP record -> Problem."""
    text = record.get("text") or record.get("prompt") or ""
    code = record.get("code")
    tests = record.get("test_list")
    if not isinstance(code, str) or not code.strip():
        raise UserError(f"{where}: task has no reference solution ('code'); fix or drop it")
    if not isinstance(tests, list) or not tests:
        raise UserError(f"{where}: task has no tests ('test_list'); fix or drop it")
    setup = record.get("test_setup_code") or "\n".join(record.get("test_imports") or [])
    entry = _entry_point(code, tests, where)
    body = "\n".join(f"    {t.strip()}" for t in tests)
    test = f"{setup}\n\n\ndef check(candidate):\n{body}\n"
    task_id = f"Mbpp/{record.get('task_id')}"
    prompt = _prompt(code, entry, text, tests[0])
    return Problem(
        task_id=task_id,
        prompt=prompt,
        nl=text.strip(),
        reference=f"{setup}\n{code}" if setup.strip() else code,
        entry_point=entry,
        test=test,
    )


def load_mbpp_file(path: str | Path) -> list[Problem]:
    """Problems from a local MBPP file in any of the three accepted shapes."""
    path = Path(path)
    problems = []
    for number, record in enumerate(read_jsonl(path, what="MBPP task"), start=1):
        where = f"{path}:{number}"
        if "canonical_solution" in record or "entry_point" in record:
            problems.append(problem_from_record(record, where))
        elif "code" in record or "test_list" in record:
            problems.append(from_mbpp_record(record, where))
        else:
            raise UserError(
                f"{where}: not an MBPP task (expected 'text'/'code'/'test_list' or HumanEval "
                "fields 'prompt'/'canonical_solution'/'test'/'entry_point')"
            )
    if not problems:
        raise UserError(f"{path}: no tasks in the file")
    return problems


def load_mbpp_hub(variant: str = "full") -> list[Problem]:
    """MBPP from the hub (all splits, in task-id order). Fails at once when offline."""
    if hub_offline():
        raise UserError(
            f"MBPP comes from the hub ({HUB_NAME}) but HF_HUB_OFFLINE/HF_DATASETS_OFFLINE is "
            "set: pass --source PATH (the original MBPP JSONL or a HumanEval-shaped file)"
        )
    try:
        import datasets

        loaded = datasets.load_dataset(HUB_NAME, variant)
    except Exception as exc:  # noqa: BLE001 - any hub failure becomes one actionable line
        raise UserError(
            f"cannot load {HUB_NAME} ({type(exc).__name__}); pass --source PATH instead"
        ) from None
    records = [dict(r) for split in loaded.values() for r in split]
    records.sort(key=lambda r: int(r["task_id"]))
    return [from_mbpp_record(r, f"{HUB_NAME}:{r['task_id']}") for r in records]


def load_mbpp(source: str | None) -> list[Problem]:
    """``--source`` file, or the hub's full MBPP (``hub`` / ``hub:sanitized`` select a config)."""
    if source is None or source in ("hub", "hub:full"):
        return load_mbpp_hub("full")
    if source == "hub:sanitized":
        return load_mbpp_hub("sanitized")
    return load_mbpp_file(source)


def load_problems(source: str | Path | None = None, language: str | None = None) -> list[Problem]:
    """All MBPP problems (:func:`load_mbpp`; this source's loader, see
    :mod:`data_builders.problems`)."""
    python_only(language, "MBPP")
    return load_mbpp(None if source is None else str(source))
