"""The MBPP and HumanEval generation files: every source's stored programs, mapped to the
problems' task ids and filtered by the shelf README's rules.

Why this order of rules (it decides which rows survive): per source record, the id must name a
problem and the function the source's tests call must be one the problem's asserts call, with an
accepted argument count (MBPP); per program, fences/headers are removed, then empty programs,
cross-problem copies and duplicates (first kept, in the target's source order) are dropped.
``harness_prefix`` is added last, to rows that need it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from data_builders.fetch.manifest import SourceFile
from data_builders.fetch.programs import (
    accepts,
    called_names,
    defined_functions,
    header_names,
    needs_harness,
    normalise,
    required_functions,
    strip_fences,
    strip_header,
    strip_stray_thon,
)
from data_builders.fetch.sources import read_json_records, read_stored
from data_builders.jsonl import read_jsonl


@dataclass
class GenerationSource:
    """One source file (or one field of it) as a target lists it, with its harness text."""

    file: SourceFile
    local: Path
    generator: str
    family: str
    field: str | None = None
    strip: str = ""  # harness text removed from the front of each program (LDB)
    harness: str = ""  # harness text prepended where a program needs it
    harness_rule: str = "all"  # see programs.needs_harness


@dataclass
class Candidate:
    task_id: str
    program: str
    spec: int  # index of its GenerationSource
    record: int  # index of its record in that source


@dataclass
class Drops:
    """How many records/programs each rule dropped (printed by the command, checked by tests)."""

    counts: Counter = field(default_factory=Counter)

    def __str__(self) -> str:
        return ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))


def load_problems(path: Path) -> dict[str, dict[str, Any]]:
    """The problems (HumanEval format: task_id, prompt, entry_point, test) by task id."""
    rows = read_jsonl(path, required=("task_id", "prompt", "entry_point", "test"), what="problem")
    return {row["task_id"]: row for row in rows}


def _clean(program: str, spec: GenerationSource) -> str:
    program = strip_fences(program)
    if spec.family == "agentcoder":
        program = strip_stray_thon(program)
    return strip_header(program, spec.strip)


def candidates(
    specs: list[GenerationSource], problems: dict[str, dict[str, Any]], drops: Drops
) -> list[Candidate]:
    """Every cleaned program whose record passes the id and entry-point checks, in source order."""
    out: list[Candidate] = []
    calls = {t: called_names(p["test"]) for t, p in problems.items()}
    for index, spec in enumerate(tqdm(specs, desc="read sources", unit="file", leave=False)):
        for number, record in enumerate(read_json_records(spec.local)):
            stored = read_stored(spec.family, record, spec.field)
            problem = problems.get(stored.task_id or "")
            if problem is None:
                drops.counts["record: not in the problem set"] += 1
                continue
            if stored.task_id.startswith("HumanEval/"):
                if stored.entry_point != problem["entry_point"]:
                    drops.counts["record: entry point"] += 1
                    continue
            else:
                asserted = calls[stored.task_id]
                if stored.tested is not None and stored.tested not in asserted:
                    drops.counts["record: entry point"] += 1
                    continue
                name = stored.tested or problem["entry_point"]
                if (
                    stored.signature
                    and accepts(stored.signature, name, asserted.get(name, [])) is False
                ):
                    drops.counts["record: argument count"] += 1
                    continue
            for program in stored.programs:
                out.append(Candidate(stored.task_id, _clean(program, spec), index, number))
    return out


def select(
    found: list[Candidate],
    problems: dict[str, dict[str, Any]],
    drops: Drops,
    seen: Iterable[tuple[str, str]] = (),
) -> list[Candidate]:
    """Drop empty programs, cross-problem copies and duplicates (``seen``: keys of older files)."""
    required = {
        t: {p["entry_point"]} if t.startswith("HumanEval/") else required_functions(p["test"])
        for t, p in problems.items()
    }
    requirers: dict[str, set[str]] = defaultdict(set)
    for task, names in required.items():
        for name in names:
            requirers[name].add(task)
    rows: dict[tuple[int, str], set[int]] = defaultdict(set)
    for c in found:
        rows[(c.spec, c.program)].add(c.record)
    keys = set(seen)
    kept = []
    for c in found:
        if not c.program.strip():
            drops.counts["empty"] += 1
            continue
        names = defined_functions(c.program)
        if (
            names is not None
            and not names & required[c.task_id]
            and any(t != c.task_id for n in names for t in requirers.get(n, ()))
            and len(rows[(c.spec, c.program)]) > 1
        ):
            drops.counts["cross-problem"] += 1
            continue
        key = (c.task_id, normalise(c.program))
        if key in keys:
            drops.counts["duplicate"] += 1
            continue
        keys.add(key)
        kept.append(c)
    return kept


def to_rows(
    kept: list[Candidate], specs: list[GenerationSource], problems: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """The derived rows: ``sample_id`` per task in file order, ``harness_prefix`` where needed."""
    harness_names = {s.harness: header_names(s.harness) for s in specs}
    counter: Counter = Counter()
    rows = []
    for c in kept:
        spec = specs[c.spec]
        problem = problems[c.task_id]
        row: dict[str, Any] = {
            "task_id": c.task_id,
            "sample_id": counter[c.task_id],
            "completion": c.program,
            "generator": spec.generator,
            "source": spec.file.source,
        }
        counter[c.task_id] += 1
        context = problem["prompt"] + "    pass\n" + problem["test"]
        names = harness_names[spec.harness]
        if spec.harness and needs_harness(
            c.program, context, problem["prompt"], names, spec.harness_rule
        ):
            row["completion"] = spec.harness + c.program
            row["harness_prefix"] = spec.harness
        rows.append(row)
    return rows


def duplicate_keys(rows: Iterable[dict[str, Any]]) -> set[tuple[str, str]]:
    """The duplicate keys of already-derived rows (their programs as stored, prefix removed)."""
    return {
        (r["task_id"], normalise(r["completion"][len(r.get("harness_prefix", "")) :])) for r in rows
    }


def build(
    specs: list[GenerationSource],
    problems: dict[str, dict[str, Any]],
    seen: Iterable[tuple[str, str]] = (),
) -> tuple[list[dict[str, Any]], Drops]:
    """All rules, in order; returns the rows and the drop counts."""
    drops = Drops()
    found = candidates(specs, problems, drops)
    drops.counts["programs read"] = len(found)
    kept = select(found, problems, drops, seen)
    return to_rows(kept, specs, problems), drops
