"""MultiPL-E problems (``name``, ``language``, ``prompt``, ``tests``, ``stop_tokens``), label only.

A MultiPL-E program is built the way MultiPL-E's evaluator builds it: the completion is cut at
the earliest occurrence of any of the problem's stop tokens (the completion alone is searched:
the prompt may contain stop tokens itself), then ``prompt + completion + "\\n" + tests``.
Samples (``task_id`` + ``completion``) match a problem by ``task_id == name``.

Sources: the hub dataset ``nuprl/MultiPL-E`` (config ``humaneval-<lang>``; offline fails at
once, naming the local-file option), or a local ``.jsonl``/``.jsonl.gz`` (one row per line) or
``.json`` (a list of rows, or one row such as MultiPL-E's per-problem result files).

MultiPL-E's license forbids training on it: every problem carries ``metadata["label_only"]``
and :func:`data_builders.dataset.label_only.refuse_label_only` stops a build that would put
them in a training or dev split.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from data_builders.errors import UserError
from data_builders.jsonl import iter_jsonl
from data_builders.problems.base import Problem
from data_builders.problems.stops import cut_at_stops

if TYPE_CHECKING:
    from data_builders.execution import Program

HUB_NAME = "nuprl/MultiPL-E"
FIELDS = ("name", "language", "prompt", "tests", "stop_tokens")
LABEL_ONLY_REASON = "MultiPL-E's license forbids training on it; use it to label and evaluate only"

# MultiPL-E's name for the cutter (tests and benchmarks use it).
stop_at_stop_token = cut_at_stops


class MultiPLEProblem(Problem):
    """A :class:`Problem` whose program is MultiPL-E's: prompt + cut completion + tests."""

    @property
    def stop_tokens(self) -> list[str]:
        return list(self.metadata["stop_tokens"])

    @property
    def language(self) -> str:
        return str(self.metadata["language"])

    def program(self, completion: str) -> str:
        """The program MultiPL-E's evaluator runs for ``completion`` (cut at a stop token)."""
        cut = cut_at_stops(completion, self.stop_tokens)
        return self.prompt + cut + "\n" + (self.test or "")


def problem_from_row(row: Any, where: str) -> MultiPLEProblem:
    """One MultiPL-E row as a problem; a malformed row raises a one-line :class:`UserError`."""
    if not isinstance(row, dict):
        raise UserError(f"{where}: expected a JSON object with {', '.join(FIELDS)}")
    missing = [f for f in FIELDS if f not in row]
    if missing:
        raise UserError(
            f"{where}: not a MultiPL-E row, missing {', '.join(missing)} (expected {', '.join(FIELDS)})"
        )
    for key in ("name", "language", "prompt", "tests"):
        if not isinstance(row[key], str):
            raise UserError(
                f"{where}: field {key!r} must be a string, got {type(row[key]).__name__}"
            )
    tokens = row["stop_tokens"]
    if not isinstance(tokens, list) or not all(isinstance(t, str) and t for t in tokens):
        raise UserError(f"{where}: 'stop_tokens' must be a list of non-empty strings")
    if not row["name"].strip():
        raise UserError(f"{where}: empty 'name'")
    return MultiPLEProblem(
        task_id=row["name"],
        prompt=row["prompt"],
        nl="",
        reference="",  # MultiPL-E ships no canonical solutions
        entry_point=None,
        test=row["tests"],
        metadata={
            "language": row["language"],
            "stop_tokens": list(tokens),
            "label_only": True,
            "label_only_reason": LABEL_ONLY_REASON,
        },
    )


def _rows_of(path: Path) -> list[tuple[str, Any]]:
    if path.name.endswith(".json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UserError(f"{path}: not readable JSON ({exc})") from None
        rows = data if isinstance(data, list) else [data]
        return [(f"{path}[{i}]", row) for i, row in enumerate(rows)]
    if not (path.name.endswith(".jsonl") or path.name.endswith(".jsonl.gz")):
        raise UserError(f"{path}: expected a MultiPL-E .jsonl, .jsonl.gz or .json file")
    return [(f"{path}:{line}", row) for line, row in iter_jsonl(path, what="MultiPL-E row")]


def load_multipl_e_file(
    path: str | os.PathLike[str], language: str | None = None
) -> list[MultiPLEProblem]:
    """Problems from a local MultiPL-E file, in file order (``language`` keeps only that one)."""
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such file (a MultiPL-E .jsonl, .jsonl.gz or .json)")
    problems: list[MultiPLEProblem] = []
    seen: set[str] = set()
    for where, row in _rows_of(path):
        problem = problem_from_row(row, where)
        if language and problem.language != language:
            continue
        if problem.task_id in seen:
            raise UserError(f"{where}: duplicate name {problem.task_id!r}")
        seen.add(problem.task_id)
        problems.append(problem)
    if not problems:
        suffix = f" in language {language!r}" if language else ""
        raise UserError(f"{path}: no MultiPL-E problems{suffix}")
    return problems


def load_multipl_e_hub(config: str) -> list[MultiPLEProblem]:
    """``nuprl/MultiPL-E`` config ``config`` (e.g. ``humaneval-cpp``) from the hub."""
    from data_builders.problems.mbpp import hub_offline

    hint = "pass --problems-file PATH (a MultiPL-E .jsonl, .jsonl.gz or .json)"
    if hub_offline():
        raise UserError(
            f"MultiPL-E comes from the hub ({HUB_NAME}) but HF_HUB_OFFLINE/HF_DATASETS_OFFLINE is set: {hint}"
        )
    try:
        import datasets

        loaded = datasets.load_dataset(HUB_NAME, config)
    except Exception as exc:  # noqa: BLE001 - any hub failure becomes one actionable line
        raise UserError(f"cannot load {HUB_NAME} {config} ({type(exc).__name__}); {hint}") from None
    return [
        problem_from_row(dict(row), f"{HUB_NAME}:{config}:{split}:{i}")
        for split in loaded
        for i, row in enumerate(loaded[split])
    ]


def load_multipl_e(source: str | None, language: str) -> list[MultiPLEProblem]:
    """A local file when ``source`` is given, else the hub's ``humaneval-<language>``."""
    if source:
        return load_multipl_e_file(source, language)
    return load_multipl_e_hub(f"humaneval-{language}")


def load_problems(source: str | Path | None = None, language: str | None = None) -> list[Problem]:
    """MultiPL-E's HumanEval problems in ``language`` (:func:`load_multipl_e`; this source's
    loader, see :mod:`data_builders.problems`); ``language`` None: every problem of
    ``source`` (the hub needs a language)."""
    if not language and not source:
        raise UserError("MultiPL-E problems need a language (e.g. js, cpp)")
    return list(load_multipl_e(None if source is None else str(source), language or None))


def problems_for(
    task_ids: Iterable[str], source: str | Path | None = None, language: str | None = None
) -> dict[str, Problem]:
    """The problems ``label``'s samples of ``task_ids`` are checked against, by name: those of
    ``source`` (a file; ``language``: only that one's), else the hub's ``humaneval-<language>``."""
    if source is None and not language:
        raise UserError(
            "--problems multipl-e needs --problems-file PATH (a MultiPL-E .jsonl/.jsonl.gz/.json)"
            " or --language L (the hub's nuprl/MultiPL-E humaneval-L)"
        )
    return {problem.task_id: problem for problem in load_problems(source, language)}


def program_language(problem: Problem) -> str:
    """The language of ``problem``'s programs, by this project's name (``rs``: ``rust``)."""
    from data_builders.execution import LANGUAGE_ALIASES as ALIASES

    name = str(problem.metadata["language"])
    return ALIASES.get(name, name)


def make_program(problem: Problem, completion: str) -> Program:
    """The program ``label`` runs for ``completion``: prompt + completion cut at the first stop
    token, with the problem's tests as its test (MultiPL-E's program, one case per assertion)."""
    from data_builders.execution import Program, TestCode

    cut = cut_at_stops(completion, problem.metadata["stop_tokens"])
    return Program(
        problem.prompt + cut, TestCode(problem.test or ""), language=program_language(problem)
    )


def reference_program(problem: Problem) -> None:
    """None: MultiPL-E ships no reference solution, so its assertions get flat limits."""
    return None


def match_samples(
    problems: Sequence[MultiPLEProblem], samples: str | os.PathLike[str]
) -> list[tuple[str, int, str]]:
    """``(name, index among that task's samples, program)`` for each line of ``samples``.

    Raises:
        UserError: a line without ``task_id``/``completion``, or a ``task_id`` that names no
            problem (the file and line are named).
    """
    by_name = {p.task_id: p for p in problems}
    counts: dict[str, int] = {}
    out = []
    for line, record in iter_jsonl(samples, required=("task_id", "completion"), what="sample"):
        name = record["task_id"]
        if name not in by_name:
            raise UserError(
                f"{samples}:{line}: task_id {name!r} is no MultiPL-E problem name "
                "(samples match by task_id == name)"
            )
        if not isinstance(record["completion"], str):
            raise UserError(f"{samples}:{line}: 'completion' must be a string")
        index = counts.get(name, 0)
        counts[name] = index + 1
        out.append((name, index, by_name[name].program(record["completion"])))
    return out
