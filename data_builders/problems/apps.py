"""APPS problems from the hub's JSONL files or a local copy in the original folder layout.

Both carry, per problem, the question, a JSON list of solutions, ``input_output`` (JSON:
``inputs``, ``outputs`` and, for call-based problems, ``fn_name``) and starter code.
Call-based problems call ``fn_name`` (``Solution.fn_name`` when the starter code defines
``class Solution``, LeetCode style); the others read standard input.

Layouts accepted by ``--source``: a ``.jsonl`` file (hub style: ``problem_id``, ``question``,
``solutions``, ``input_output``, ``starter_code``, ``difficulty``); a folder of problem
folders ``0000/{question.txt,solutions.json,input_output.json,metadata.json,
starter_code.py}``; or a folder holding ``train/`` and/or ``test/`` of those.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.execution import int_from_decimal
from data_builders.jsonl import read_jsonl
from data_builders.problems.base import Problem, python_only
from data_builders.problems.mbpp import hub_offline

HUB_NAME = "codeparrot/apps"


def _json_field(value: Any, where: str, name: str) -> Any:
    if isinstance(value, str):
        if not value.strip():
            return None
        try:
            return json.loads(value, parse_int=int_from_decimal)  # huge ints in tests
        except json.JSONDecodeError:
            raise UserError(f"{where}: '{name}' is not valid JSON") from None
    return value


def _as_text(value: Any) -> str:
    return "\n".join(map(str, value)) if isinstance(value, list) else str(value)


def make_problem(
    task_id: str,
    question: str,
    solutions: Any,
    io: Any,
    starter: str,
    difficulty: str,
    where: str,
) -> Problem:
    """One APPS problem; raises UserError when it has no solution or no tests."""
    if not isinstance(solutions, list) or not [s for s in solutions if isinstance(s, str)]:
        raise UserError(f"{where}: problem has no reference solution (solutions.json)")
    if not isinstance(io, dict) or not io.get("inputs") or "outputs" not in io:
        raise UserError(f"{where}: problem has no tests (input_output.json with inputs/outputs)")
    inputs, outputs = io["inputs"], io["outputs"]
    if len(inputs) != len(outputs):
        raise UserError(
            f"{where}: input_output.json has {len(inputs)} inputs, {len(outputs)} outputs"
        )
    fn_name = io.get("fn_name")
    if fn_name:
        kind = "call"
        entry = f"Solution.{fn_name}" if "class Solution" in (starter or "") else fn_name
        inputs = [list(args) if isinstance(args, list) else [args] for args in inputs]
    else:
        kind, entry = "stdio", None
        inputs = [_as_text(x) for x in inputs]
        outputs = [_as_text(x) for x in outputs]
    prompt = f"\nQUESTION:\n{question}\n{starter or ''}\n" + (
        "\nUse Call-Based format\n\nANSWER:\n"
        if kind == "call"
        else "\nUse Standard Input format\n\nANSWER:\n"
    )
    clean = [s for s in solutions if isinstance(s, str)]
    return Problem(
        task_id=task_id,
        prompt=prompt,
        nl=question.strip(),
        reference=clean[0],
        entry_point=entry,
        test=None,
        metadata={
            "kind": kind,
            "inputs": inputs,
            "outputs": outputs,
            "solutions": clean,
            "starter_code": starter or "",
            "difficulty": difficulty or "",
        },
    )


def _from_record(record: dict[str, Any], split: str, where: str) -> Problem:
    pid = record.get("problem_id", record.get("id"))
    return make_problem(
        task_id=f"APPS/{split}/{int(pid):04d}" if str(pid).isdigit() else f"APPS/{split}/{pid}",
        question=str(record.get("question", "")),
        solutions=_json_field(record.get("solutions"), where, "solutions"),
        io=_json_field(record.get("input_output"), where, "input_output"),
        starter=str(record.get("starter_code") or ""),
        difficulty=str(record.get("difficulty") or ""),
        where=where,
    )


def _from_folder(folder: Path, split: str) -> Problem:
    def read(name: str) -> str | None:
        path = folder / name
        return path.read_text(encoding="utf-8") if path.is_file() else None

    question = read("question.txt")
    if question is None:
        raise UserError(f"{folder}: no question.txt (not an APPS problem folder)")
    meta = _json_field(read("metadata.json") or "", str(folder / "metadata.json"), "metadata")
    return make_problem(
        task_id=f"APPS/{split}/{folder.name}",
        question=question,
        solutions=_json_field(
            read("solutions.json") or "", str(folder / "solutions.json"), "solutions"
        ),
        io=_json_field(
            read("input_output.json") or "", str(folder / "input_output.json"), "input_output"
        ),
        starter=read("starter_code.py") or "",
        difficulty=(meta or {}).get("difficulty", "") if isinstance(meta, dict) else "",
        where=str(folder),
    )


def load_apps_folder(root: Path) -> list[Problem]:
    """Original layout: ``root/{train,test}/NNNN/`` or ``root/NNNN/``."""
    splits = [(name, root / name) for name in ("train", "test") if (root / name).is_dir()]
    if not splits:
        splits = [(root.name, root)]
    problems = []
    for split, folder in splits:
        for child in sorted(p for p in folder.iterdir() if p.is_dir()):
            problems.append(_from_folder(child, split))
    if not problems:
        raise UserError(f"{root}: no APPS problem folders (expected train/0000/question.txt ...)")
    return problems


def load_apps_jsonl(path: Path, split: str | None = None) -> list[Problem]:
    split = split or path.name.split(".")[0]
    return [
        _from_record(record, split, f"{path}:{number}")
        for number, record in enumerate(read_jsonl(path, what="APPS problem"), start=1)
    ]


def load_apps_hub(skip_incomplete: bool = True) -> list[Problem]:
    """``train.jsonl`` and ``test.jsonl`` of codeparrot/apps (problems lacking solutions or
    tests are skipped: the hub's test split has some)."""
    if hub_offline():
        raise UserError(
            f"APPS comes from the hub ({HUB_NAME}) but HF_HUB_OFFLINE/HF_DATASETS_OFFLINE is "
            "set: pass --source PATH (a folder in the original layout or a train.jsonl file)"
        )
    from huggingface_hub import hf_hub_download

    problems = []
    for split in ("train", "test"):
        try:
            path = Path(hf_hub_download(HUB_NAME, f"{split}.jsonl", repo_type="dataset"))
        except Exception as exc:  # noqa: BLE001 - any hub failure becomes one actionable line
            raise UserError(
                f"cannot download {HUB_NAME}/{split}.jsonl ({type(exc).__name__}); pass --source PATH"
            ) from None
        for number, record in enumerate(read_jsonl(path, what="APPS problem"), start=1):
            try:
                problems.append(_from_record(record, split, f"{path}:{number}"))
            except UserError:
                if not skip_incomplete:
                    raise
    return problems


def load_apps(source: str | None) -> list[Problem]:
    """``--source`` folder or JSONL file, or the hub when no source is given."""
    if source is None or source == "hub":
        return load_apps_hub()
    path = Path(source)
    if path.is_dir():
        return load_apps_folder(path)
    if path.is_file():
        return load_apps_jsonl(path)
    raise UserError(f"--source {source}: no such file or folder")


def load_problems(source: str | Path | None = None, language: str | None = None) -> list[Problem]:
    """All APPS problems (:func:`load_apps`; this source's loader, see
    :mod:`data_builders.problems`)."""
    python_only(language, "APPS")
    return load_apps(None if source is None else str(source))
