"""Tiny raw source trees for the fetch tests: a few records per source family, laid out as the
shelf's ``raw/`` (``<owner>+<repo>/<commit>/<path>``), with a manifest and a targets file that
name them. Written here, never read from ../shared."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

COMMIT = "c0ffee" + "0" * 34
LDB_HEADER = "from typing import *\nimport math\n_str=str\n"
HEADER = "repo\tcommit\tpath\tbytes\tsha256\tlicence\tderived_into\turl\trole\tnote\n"


class RawTree:
    """Files written under ``root/raw`` plus the manifest rows describing them."""

    def __init__(self, root: Path, base_url: str = "http://127.0.0.1:9") -> None:
        self.root = root
        self.base_url = base_url  # the default: nothing listens, so downloads fail fast
        self.raw = root / "raw"
        self.rows: list[str] = []

    def add(self, repo: str, path: str, content: str | bytes) -> dict[str, str]:
        data = content.encode("utf-8") if isinstance(content, str) else content
        target = self.raw / repo.replace("/", "+") / COMMIT / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        sha = hashlib.sha256(data).hexdigest()
        url = f"{self.base_url}/{repo.replace('/', '+')}/{COMMIT}/{path}"
        self.rows.append(f"{repo}\t{COMMIT}\t{path}\t{len(data)}\t{sha}\tMIT\tx\t{url}\tdata\t\n")
        return {"repo": repo, "path": path}

    def jsonl(self, repo: str, path: str, records: list[dict[str, Any]]) -> dict[str, str]:
        return self.add(repo, path, "".join(json.dumps(r) + "\n" for r in records))

    def write(
        self, targets: dict[str, Any], headers: dict[str, Any] | None = None
    ) -> tuple[Path, Path]:
        manifest = self.root / "manifest.tsv"
        manifest.write_text(HEADER + "".join(self.rows), encoding="utf-8")
        config = self.root / "targets.yaml"
        config.write_text(
            yaml.safe_dump({"headers": headers or {}, "targets": targets}), encoding="utf-8"
        )
        return manifest, config


def mbpp_problem(number: int, name: str, args: str, calls: list[str]) -> dict[str, str]:
    """A sanitized-MBPP-style problem whose asserts call ``calls``."""
    asserts = "".join(f"    assert {c}\n" for c in calls)
    return {
        "task_id": f"MbppEval/{number}",
        "prompt": f"def {name}({args}):\n    '''\n    Task {number}.\n    '''\n",
        "entry_point": name,
        "canonical_solution": "    pass\n",
        "test": f"def check(candidate):\n{asserts}",
    }


def multipl_e(
    number: int, name: str, signature: str, programs: list[str], key: str = "source_codes"
) -> dict:
    """A MapCoder/Reflexion-style record (MultiPL-E name, typed prompt, candidate tests)."""
    record = {
        "name": f"mbpp_{number}_{name}",
        "prompt": f'def {name}({signature}):\n    """\n\tdoc\n\t"""\n',
        "entry_point": name,
        "test": "def check(candidate):\n    assert candidate(1) == 1\n",
    }
    if key == "source_codes":
        record["source_codes"] = programs
    else:
        record["implementations"] = programs[:-1]
        record["solution"] = programs[-1]
    return record


def ldb(
    number: int, name: str, args: str, call: str, solution: str, entry_point: str | None = None
) -> dict:
    """An LDB seed/result record (``MBPP/<n>`` id, asserts call the function by name)."""
    return {
        "task_id": f"MBPP/{number}",
        "prompt": f'def {name}({args}):\n    """\n    doc\n    """\n',
        "entry_point": entry_point or name,
        "test": f"\ndef check(candidate):\n    assert {call} == 1\ncheck({entry_point or name})\n",
        "solution": solution,
    }
