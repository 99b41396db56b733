"""The APPS subset: problems from MapCoder's ``selected150`` and five CodeRL train folders, with
reference solutions chosen by running programs, and the generated programs as samples.

Rules (the shelf README, checked against its files): MapCoder problems are standard-input
problems built from MapCoder's own ``test_list`` (a call-based problem's ``question`` is
MapCoder's ``get_prompt``, and it keeps ``starter_code`` and ``call_based_origin_fn``); their
``solutions`` are up to 3 passing generated programs, one per generator in the sources'
preference order first, then the remaining passing ones in order; a problem with no passing
program is dropped with its samples. CodeRL problems keep APPS's files and the human solutions
that pass. Samples are every program of the sources, per problem distinct after whitespace
normalisation, in source order.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.fetch.apps_check import Checker, Tests
from data_builders.fetch.convert import write_rows
from data_builders.fetch.programs import normalise
from data_builders.fetch.sources import read_json_records

MAX_SOLUTIONS = 3
CODERL_FILES = (
    "question.txt",
    "solutions.json",
    "input_output.json",
    "metadata.json",
    "starter_code.py",
)


def get_prompt(item: dict[str, Any]) -> str:
    """MapCoder's ``APPSDataset.get_prompt`` (src/datasets/APPSDataset.py), verbatim."""
    sample_io_format = ""
    if len(item["sample_io"]) > 0:
        sample_io_format = (
            f"Sample Input Format:\n{item['sample_io'][0]['input']}\n"
            f"Sample Output Format:\n{item['sample_io'][0]['output'][0]}\n\n-------\n"
        )
    return (
        f"{item['description']}\n\n{sample_io_format}Important: You must follow the input output "
        "format. Input should be taken from standard input and output should be given to standard "
        "output.\nNote: If you are writing a function then after the function definition take input "
        "from using `input()` function, call the function with specified parameters and finally "
        "print the output of the function."
    )


def check_prompt_matches(apps_dataset_py: Path) -> None:
    """Fail if the pinned ``APPSDataset.py`` no longer holds the prompt text reproduced here."""
    text = apps_dataset_py.read_text(encoding="utf-8")
    if "Important: You must follow the input output format." not in text:
        raise UserError(f"{apps_dataset_py}: get_prompt text not found (is this the pinned file?)")


def mapcoder_problem(item: dict[str, Any], origin: str) -> tuple[dict[str, Any], Tests]:
    """A ``selected150`` item as a standard-input problem row (without solutions) and its tests."""
    inputs = [test["input"] for test in item["test_list"]]
    outputs = [
        o if isinstance(o, str) else str(o) for o in (t["output"][0] for t in item["test_list"])
    ]
    call_based = bool(item["starter_code"].strip())
    row: dict[str, Any] = {
        "problem_id": int(item["id"]),
        "question": get_prompt(item) if call_based else item["description"],
        "solutions": None,
        "input_output": json.dumps({"inputs": inputs, "outputs": outputs}),
        "starter_code": item["starter_code"],
        "difficulty": item["difficulty"],
        "solutions_source": None,
        "split": "train",
        "origin": origin,
    }
    if call_based:
        match = re.search(r"def\s+(\w+)", item["starter_code"])
        row["call_based_origin_fn"] = match.group(1) if match else None
    return row, Tests(tuple(inputs), tuple(outputs))


def coderl_problem(
    folder: dict[str, Path], problem_id: int
) -> tuple[dict[str, Any], Tests, list[str]]:
    """A CodeRL ``data/APPS/train/<id>/`` folder as a problem row, its tests and human solutions."""
    io_text = folder["input_output.json"].read_text(encoding="utf-8")
    io = json.loads(io_text)
    metadata = json.loads(folder["metadata.json"].read_text(encoding="utf-8"))
    starter = (
        folder["starter_code.py"].read_text(encoding="utf-8") if "starter_code.py" in folder else ""
    )
    row = {
        "problem_id": problem_id,
        "question": folder["question.txt"].read_text(encoding="utf-8"),
        "solutions": None,
        "input_output": json.dumps(io),
        "starter_code": starter,
        "difficulty": metadata["difficulty"],
        "solutions_source": "human",
        "split": "train",
        "origin": "CodeRL data/APPS/train",
        "url": metadata["url"],
    }
    tests = Tests(tuple(io["inputs"]), tuple(io["outputs"]), io.get("fn_name"))
    return row, tests, json.loads(folder["solutions.json"].read_text(encoding="utf-8"))


def task_id(problem_id: int) -> str:
    """The builder's task id for a problems file named ``problems.jsonl``."""
    return f"APPS/problems/{problem_id:04d}"


def read_programs(
    sources: list[tuple[Any, Path, str]],
    wanted: set[int] | None = None,
    seen: set[tuple[int, str]] | None = None,
) -> list[dict[str, Any]]:
    """Every program of the result files, distinct per problem after whitespace normalisation
    (and from ``seen``, the keys of older rows), as sample rows (without verdicts) in source
    order; empty programs are skipped."""
    seen = set(seen or ())
    rows = []
    for entry, local, generator in sources:
        for record in read_json_records(local):
            problem_id = int(record["id"])
            if wanted is not None and problem_id not in wanted:
                continue
            for program in record.get("source_codes", []):
                key = (problem_id, normalise(program))
                if not program.strip() or key in seen:
                    continue
                seen.add(key)
                rows.append(
                    {
                        "task_id": task_id(problem_id),
                        "sample_id": None,
                        "completion": program,
                        "solution": program,
                        "generator": generator,
                        "source": entry.source,
                        "problem_id": problem_id,
                    }
                )
    return rows


def choose_solutions(passing: list[dict[str, Any]], preference: list[str]) -> list[dict[str, Any]]:
    """Up to 3 passing programs: the first of each generator in ``preference`` order, then the
    rest in order."""
    chosen: list[dict[str, Any]] = []
    for generator in preference:
        if len(chosen) == MAX_SOLUTIONS:
            break
        first = next((r for r in passing if r["generator"] == generator), None)
        if first is not None:
            chosen.append(first)
    for row in passing:
        if len(chosen) >= MAX_SOLUTIONS:
            break
        if row not in chosen:
            chosen.append(row)
    return chosen


def number_samples(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``sample_id`` per task in file order; drops the working ``problem_id`` field."""
    counter: dict[str, int] = defaultdict(int)
    for row in rows:
        row["sample_id"] = counter[row["task_id"]]
        counter[row["task_id"]] += 1
        row.pop("problem_id", None)
    return rows


def build(
    fetcher: Any, spec: dict[str, Any], checker: Checker
) -> tuple[list[dict], list[dict], str]:
    """The problems and samples rows of the ``apps`` target."""
    check_prompt_matches(fetcher.file(spec["reference"])[1])
    _, selected = fetcher.file(spec["problems"])
    teamcoder = set(spec.get("teamcoder_ids", []))
    items: dict[int, dict[str, Any]] = {}
    for item in read_json_records(selected):
        items.setdefault(int(item["id"]), item)  # MapCoder lists 22 problems twice
    problems: dict[int, tuple[dict[str, Any], Tests]] = {}
    for problem_id, item in items.items():
        origin = spec["origin"] + (spec["teamcoder_origin"] if problem_id in teamcoder else "")
        problems[problem_id] = mapcoder_problem(item, origin)
    sources = [(*fetcher.file(s), s["generator"]) for s in spec["sources"]]
    preference = [s["generator"] for s in spec["sources"]]
    samples = read_programs(sources, set(problems))
    verdicts = checker.check(
        [(r["solution"], problems[r["problem_id"]][1]) for r in samples], "check APPS samples"
    )
    for row, passed in zip(samples, verdicts, strict=True):
        row["passes_original_tests"] = passed
    rows = []
    kept: set[int] = set()
    used: set[int] = set()
    for problem_id, (row, _) in problems.items():
        passing = [
            r for r in samples if r["problem_id"] == problem_id and r["passes_original_tests"]
        ]
        chosen = choose_solutions(passing, preference)
        if not chosen:
            continue
        used.update(id(r) for r in chosen)
        row["solutions"] = json.dumps([r["solution"] for r in chosen])
        row["solutions_source"] = "generated: " + ", ".join(
            dict.fromkeys(r["generator"] for r in chosen)
        )
        rows.append(row)
        kept.add(problem_id)
    coderl = spec["coderl"]
    for folder_id in coderl["ids"]:
        folder = {}
        for name in CODERL_FILES:
            ref = {"repo": coderl["repo"], "path": f"{coderl['dir']}/{folder_id}/{name}"}
            if (ref["repo"], ref["path"]) in fetcher.manifest:
                folder[name] = fetcher.file(ref)[1]
        row, tests, human = coderl_problem(folder, int(folder_id))
        passed = checker.check([(s, tests) for s in human], f"check CodeRL {folder_id}")
        row["solutions"] = json.dumps([s for s, ok in zip(human, passed, strict=True) if ok])
        rows.append(row)
    rows.sort(key=lambda r: r["problem_id"])
    out_samples = [r for r in samples if r["problem_id"] in kept]
    for row in out_samples:
        row["used_as_solution"] = id(row) in used
    number_samples(out_samples)
    summary = f"{len(rows)} problems ({len(kept)} MapCoder), {len(out_samples)} samples"
    return rows, out_samples, summary


def run_target(fetcher: Any, name: str, spec: dict[str, Any]) -> str:
    """Build ``apps`` (problems + samples) or ``apps-more`` (more samples for the same problems)."""
    checker = Checker(fetcher.out / ".fetch" / "apps-checks.jsonl", fetcher.workers)
    if spec["kind"] == "apps":
        problems, samples, summary = build(fetcher, spec, checker)
        problems_path, samples_path = (fetcher.out / o for o in spec["outputs"])
        write_rows(samples_path, samples)
        write_rows(problems_path, problems)
        return summary
    return more_samples(fetcher, spec, checker)


def more_samples(fetcher: Any, spec: dict[str, Any], checker: Checker) -> str:
    """Further programs for the problems the ``apps`` target kept (MapCoder's only)."""
    problems_path, older_path = (
        fetcher.out / o for o in fetcher.config["targets"][spec["after"]]["outputs"]
    )
    if not fetcher.done(spec["after"], fetcher.config["targets"][spec["after"]]):
        fetcher.run(spec["after"])
    kept: dict[int, Tests] = {}
    for line in problems_path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["origin"].startswith("MapCoder"):
            io = json.loads(row["input_output"])
            kept[row["problem_id"]] = Tests(tuple(io["inputs"]), tuple(io["outputs"]))
    sources = [(*fetcher.file(s), s["generator"]) for s in spec["sources"]]
    older = set()
    for line in older_path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        older.add((int(row["task_id"].rsplit("/", 1)[1]), normalise(row["solution"])))
    samples = read_programs(sources, set(kept), older)
    verdicts = checker.check(
        [(r["solution"], kept[r["problem_id"]]) for r in samples], "check APPS samples"
    )
    for row, passed in zip(samples, verdicts, strict=True):
        row["passes_original_tests"] = passed
        row["used_as_solution"] = False
    number_samples(samples)
    write_rows(fetcher.out / spec["output"], samples)
    return f"{len(samples)} samples"
