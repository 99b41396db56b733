"""``python -m data_builders build conala --source DIR --out DIR``: CoNaLa's human usefulness grades.

The set behind ICE-Score's Table 1 (Evtikhiev et al., "Out of the BLEU", JSS 2023; the files of
JetBrains-Research/codegen-metrics, ``data/to-grade/conala/``): 472 CoNaLa intents, the output of
five models for each, every output graded 0-4 by developers. Nothing is executed: the label is a
human grade, so this builder only reshapes the study's files into the dataset row contract
(``id``, ``task_id``, ``nl``, ``reference``, ``generated``) plus ``usefulness`` and a fixed
fold, writes ``stats.json`` and a dataset card. All rows go to ``test.jsonl`` (the default split
``evaluate.py`` reads); ``fold`` says which of the 5 cross-validation folds an intent is in.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from data_builders.dataset.convention import INPUT_CONVENTION
from data_builders.errors import UserError
from data_builders.jsonl import write_jsonl

GENERATORS = ("baseline", "tranx-annot", "best-tranx", "best-tranx-rerank", "codex")
"""The five models' keys in the study's files, in its order."""
GRADES_FILE = "conala-all-grades.json"
HUMAN_FILE = "conala-human-grades.json"
N_FOLDS = 5
FOLD_SALT = "unice-conala-folds-v1"
"""Folds are fixed by hashing each task id with this salt (not by a seed of some library's
shuffle, whose order could change between versions): sorted by hash, dealt round-robin."""
STUDY_METRICS = ("bleu", "chrf", "rougel", "meteor", "codebleu", "ruby")
"""The study's own per-output scores (``<metric>-<model>``), kept on each row as ``study_*``."""


def fold_of_tasks(task_ids: Sequence[str], n_folds: int = N_FOLDS) -> dict[str, int]:
    """Each task's fold: tasks sorted by sha256(salt + id), then dealt to folds in turn, so
    fold sizes differ by at most one and the assignment never depends on file order."""
    order = sorted(task_ids, key=lambda t: hashlib.sha256(f"{FOLD_SALT}:{t}".encode()).hexdigest())
    return {task: position % n_folds for position, task in enumerate(order)}


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise UserError(
            f"cannot read {path} ({exc.strerror}); pass --source DIR, the folder holding "
            f"{GRADES_FILE} (SHARED/conala_usefulness)"
        ) from None
    except ValueError as exc:
        raise UserError(f"{path} is not JSON ({exc}); copy the study's file again") from None


def _grade(path: Path, index: int, item: Mapping[str, Any], model: str) -> int:
    value = item.get(f"grade-{model}")
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 4:
        raise UserError(
            f"{path}: intent {index} has grade-{model}={value!r}, expected an integer 0-4; "
            "use the study's conala-all-grades.json unchanged"
        )
    return value


def conala_rows(source: Path) -> list[dict[str, Any]]:
    """One row per graded snippet, intents in file order, generators in :data:`GENERATORS`'s.

    Raises:
        UserError: the folder or its grades file is missing or malformed.
    """
    path = source / GRADES_FILE
    if not source.is_dir() or not path.is_file():
        raise UserError(
            f"{path} not found: pass --source DIR, the folder holding the study's {GRADES_FILE} "
            "(the shelf's conala_usefulness, e.g. ../shared/data/conala_usefulness)"
        )
    items = _read_json(path)
    if not isinstance(items, list) or not items:
        raise UserError(f"{path}: expected a list of intents; use the study's file unchanged")
    human_path = source / HUMAN_FILE
    human = _read_json(human_path) if human_path.is_file() else None
    if human is not None and (len(human) != len(items)):
        human = None  # not the same intents: the per-grader counts are left out, not guessed
    task_ids = [f"CoNaLa/{i}" for i in range(len(items))]
    folds = fold_of_tasks(task_ids)
    rows = []
    for index, item in enumerate(items):
        references = item.get("snippet")
        if not isinstance(references, list) or not references or not item.get("intent"):
            raise UserError(
                f"{path}: intent {index} has no intent text or no reference snippets; use the "
                "study's file unchanged"
            )
        graders = human[index] if human and human[index].get("intent") == item["intent"] else None
        for model in GENERATORS:
            if model not in item:
                raise UserError(f"{path}: intent {index} has no output of {model!r}")
            row: dict[str, Any] = {
                "id": f"{task_ids[index]}::{model}",
                "task_id": task_ids[index],
                "generator": model,
                "language": "python",
                "nl": str(item["intent"]),
                "reference": str(references[0]),
                "references": [str(r) for r in references],
                "generated": str(item[model] or ""),
                "usefulness": _grade(path, index, item, model),
                "fold": folds[task_ids[index]],
            }
            if graders is not None:
                grades = list((graders.get(f"grade-{model}") or {}).values())
                row["n_graders"] = len(grades)
                row["grades_mean"] = round(sum(grades) / len(grades), 4) if grades else None
            for metric in STUDY_METRICS:
                value = item.get(f"{metric}-{model}")
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    row[f"study_{metric}"] = float(value)
            rows.append(row)
    return rows


def conala_stats(rows: Sequence[Mapping[str, Any]], source: Path) -> dict[str, Any]:
    """``stats.json``: counts, the grade distribution, folds, and where the rows came from."""
    by_task: dict[str, list[int]] = {}
    for row in rows:
        by_task.setdefault(row["task_id"], []).append(row["usefulness"])
    folds = Counter(row["fold"] for row in rows if row["generator"] == GENERATORS[0])
    return {
        "dataset": "conala",
        "input_convention": INPUT_CONVENTION,
        "label": "usefulness",
        "rows": len(rows),
        "tasks": len(by_task),
        "generators": list(GENERATORS),
        "grade_counts": {
            str(g): n for g, n in sorted(Counter(r["usefulness"] for r in rows).items())
        },
        "mean_grade_by_generator": {
            model: round(
                sum(r["usefulness"] for r in rows if r["generator"] == model)
                / max(1, sum(r["generator"] == model for r in rows)),
                4,
            )
            for model in GENERATORS
        },
        "constant_grade_tasks": sum(len(set(g)) == 1 for g in by_task.values()),
        "multi_reference_tasks": sum(len(r["references"]) > 1 for r in rows[:: len(GENERATORS)]),
        "empty_outputs": sum(not r["generated"].strip() for r in rows),
        "outputs_equal_to_a_reference": sum(
            r["generated"].strip() in {x.strip() for x in r["references"]} for r in rows
        ),
        "folds": {str(k): folds[k] for k in sorted(folds)},
        "fold_rule": f"tasks sorted by sha256('{FOLD_SALT}:' + task_id), dealt round-robin",
        "splits": {"train": 0, "dev": 0, "test": len(rows)},
        "source": str(source),
    }


def card(stats: Mapping[str, Any]) -> str:
    """The dataset card (README.md)."""
    grades = ", ".join(f"{g}: {n}" for g, n in stats["grade_counts"].items())
    means = ", ".join(f"{m} {v:.2f}" for m, v in stats["mean_grade_by_generator"].items())
    folds = ", ".join(f"{k}: {n}" for k, n in stats["folds"].items())
    return "\n".join(
        [
            "# CoNaLa usefulness (human grades)",
            "",
            f"{stats['rows']:,} Python snippets: {stats['tasks']} CoNaLa intents x "
            f"{len(stats['generators'])} models ({', '.join(stats['generators'])}), each graded "
            "0-4 for usefulness by 3-10 developers (Evtikhiev et al., *Out of the BLEU*, JSS 2023; "
            "JetBrains-Research/codegen-metrics, Apache-2.0). The data behind ICE-Score's Table 1.",
            "",
            "Built by `python -m data_builders build conala --source DIR --out DIR` "
            "(data_builders/dataset/conala.py). Nothing is executed: the label is the human grade.",
            "",
            "## Rows (`test.jsonl`, every row)",
            "",
            "| field | what |",
            "| --- | --- |",
            "| `id` | `CoNaLa/<i>::<generator>` |",
            "| `task_id` | `CoNaLa/<i>`, i = the intent's position in conala-all-grades.json |",
            "| `generator` | the model key |",
            "| `nl` | the intent |",
            "| `reference` / `references` | the first reference snippet / all of them |",
            "| `generated` | the model's output |",
            "| `usefulness` | the study's aggregated grade `grade-<model>` (0-4) |",
            "| `fold` | the intent's cross-validation fold (0-4) |",
            "| `n_graders`, `grades_mean` | how many developers graded it and their mean grade |",
            "| `study_<metric>` | the study's own bleu/chrf/rougel/meteor/codebleu/ruby score |",
            "",
            "## Statistics",
            "",
            f"- grades: {grades}.",
            f"- mean grade per model: {means}.",
            f"- intents whose five grades are equal (no within-intent order): "
            f"{stats['constant_grade_tasks']}.",
            f"- intents with several references: {stats['multi_reference_tasks']}; empty outputs: "
            f"{stats['empty_outputs']}; outputs equal to a reference: "
            f"{stats['outputs_equal_to_a_reference']}.",
            f"- folds (intents each): {folds}. Rule: {stats['fold_rule']}.",
            "",
            "## Use",
            "",
            "`python evaluate.py data=DIR label=usefulness` correlates every metric with the grade "
            "(example level per intent, as ICE-Score; corpus level over all rows); `make "
            "usefulness` trains CodeScore on the grades fold by fold (docs/usefulness.md).",
            "",
        ]
    )


def build_conala(source: Path, out: Path) -> dict[str, Any]:
    """Write ``out/test.jsonl``, ``out/stats.json`` and ``out/README.md``; return the stats.

    Rebuilding overwrites the three files (the build is a pure function of the source).
    """
    rows = conala_rows(Path(source))
    stats = conala_stats(rows, Path(source))
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "test.jsonl", rows)
    (out / "stats.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    (out / "README.md").write_text(card(stats), encoding="utf-8")
    return stats
