"""Reading the public source files: JSON/JSONL text into records, and each family's records into
``(task id, programs, the function its tests call, its signature text)``.

Why one reader per family: MapCoder, LDB, Reflexion, LATS, AgentCoder, MGDebugger,
MapCoder-Reproduction and ILF each store programs, ids and tests under different fields; the
shelf README's rules (id mapping, which fields are programs) are written down here once.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data_builders.errors import UserError
from data_builders.fetch.programs import tested_function

ID = re.compile(r"^(mbpp|MBPP|HumanEval)[_/](\d+)")


def read_json_records(path: Path) -> list[dict[str, Any]]:
    """A ``.json`` list or a ``.jsonl`` file's objects. A JSONL line is parsed from its first
    ``{``: MapCoder's ``ChatGPT-MapCoder-3-3-Human`` ablation file starts with a stray Windows path."""
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix == ".json":
            data = json.loads(text)
            if not isinstance(data, list):
                raise UserError(f"{path}: expected a JSON list of records")
            return data
        records = []
        for number, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                start = line.find("{")
                if start < 0:
                    raise UserError(f"{path}:{number}: no JSON object on this line")
                records.append(json.loads(line[start:]))
        return records
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: malformed JSON ({exc.msg}, line {exc.lineno})") from None


@dataclass
class Stored:
    """One source record's programs for one task, with what the id/entry checks need."""

    task_id: str | None  # "MbppEval/602" / "HumanEval/0"; None when the id is not MBPP/HumanEval
    programs: list[str]
    entry_point: str | None  # the record's own entry point (HumanEval's check)
    tested: str | None  # the function the source's own tests call (MBPP's check)
    signature: str | None  # the source's text holding that function's signature


def map_id(raw: Any) -> str | None:
    """MultiPL-E names (``mbpp_602_x``, ``HumanEval_23_x``), ``MBPP/602``, ``HumanEval/0`` and
    AgentCoder's/ILF's integers (original MBPP ids) to ``MbppEval/602`` / ``HumanEval/0``."""
    if isinstance(raw, int):
        return f"MbppEval/{raw}"
    match = ID.match(str(raw))
    if not match:
        return None
    prefix = "HumanEval" if match.group(1) == "HumanEval" else "MbppEval"
    return f"{prefix}/{int(match.group(2))}"


def _ids(record: dict[str, Any]) -> Any:
    return record.get("name") or record.get("task_id")


def read_stored(family: str, record: dict[str, Any], field: str | None = None) -> Stored:
    """One record of ``family`` as :class:`Stored` (see the module docstring for the families)."""
    if family == "mapcoder":  # MapCoder and MapCoder-Reproduction; their Reflexion runs too
        if "source_codes" in record:
            programs = list(record["source_codes"])
        else:
            programs = list(record.get("implementations", [])) + [record["solution"]]
        entry = record.get("entry_point")
        return Stored(map_id(_ids(record)), programs, entry, entry, record.get("prompt"))
    if family in ("ldb", "mgdebugger", "reflexion"):  # LDB/MGDebugger seeds; Reflexion, LATS logs
        programs = list(record.get("implementations", []))
        if "solution" in record:
            programs.append(record["solution"])
        # LDB's own tests call the problem's function in asserts; its entry_point can be a helper.
        # The shelf checked MGDebugger's copies of the same records by entry_point (7 problems x 4
        # seeds dropped, MBPP 18/56/70 among them): kept as the shelf has it.
        entry = record.get("entry_point")
        tested = tested_function(record["test"]) if family == "ldb" else entry
        return Stored(map_id(_ids(record)), programs, entry, tested, record.get("prompt"))
    if family == "agentcoder":
        tests = "\n".join(record.get("test_list", []))
        tested = tested_function(tests)
        return Stored(
            map_id(record["task_id"]), [record["completion"]], None, tested, record.get("code")
        )
    if family == "ilf":  # one program per record, from ``field``; no entry point of its own
        program = record[field or "original_model_completion"]
        return Stored(map_id(record["task_id"]), [program], None, None, program)
    raise UserError(f"configs/fetch/targets.yaml: unknown source family {family!r}")
