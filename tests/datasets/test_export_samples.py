"""``scripts/export_samples.py``: a built folder's generated candidates as a samples file
whose completions make the same programs again (prompt + completion)."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROMPT = "/* Add two numbers. */\nconst add = (a, b) => {\n"
TASK = {
    "task_id": "JavaScript/0",
    "prompt": PROMPT,
    "canonical_solution": "  return a + b\n}\n",
    "test": "const testAdd = () => {\n  console.assert(add(1, 2) === 3)\n}\ntestAdd()\n",
}


def _row(k: int, source: str, body: str) -> dict[str, object]:
    kind = source.split(":")[0]
    return {"id": f"JavaScript/0::{kind}::{k}", "task_id": "JavaScript/0", "source": source,
            "program": PROMPT + body, "pass_ratio": 0.0}  # fmt: skip


def _export(tmp_path: Path, rows: list[dict[str, object]]) -> subprocess.CompletedProcess:
    problems = tmp_path / "humaneval_js.jsonl.gz"
    problems.write_bytes(gzip.compress((json.dumps(TASK) + "\n").encode()))
    data = tmp_path / "built"
    data.mkdir()
    (data / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    argv = [sys.executable, str(ROOT / "scripts" / "export_samples.py"), "--data", str(data)]
    argv += ["--problems-file", str(problems), "--out", str(tmp_path / "out.jsonl.gz")]
    return subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)


def test_generated_rows_become_completions_after_the_prompt(tmp_path: Path) -> None:
    rows = [
        _row(1, "generate:local:SmolLM2", "  return b\n}\n"),
        _row(0, "samples:canonical.jsonl", "  return a + b\n}\n"),
        _row(0, "generate:local:SmolLM2", "  return a - b\n}\n"),
    ]
    done = _export(tmp_path, rows)
    assert done.returncode == 0, done.stderr
    lines = [
        json.loads(x)
        for x in gzip.decompress((tmp_path / "out.jsonl.gz").read_bytes()).splitlines()
    ]
    assert lines == [
        {"task_id": "JavaScript/0", "completion": "  return a - b\n}\n", "generator": "local:SmolLM2"},
        {"task_id": "JavaScript/0", "completion": "  return b\n}\n", "generator": "local:SmolLM2"},
    ]  # fmt: skip


def test_a_folder_without_generated_rows_is_a_one_line_error(tmp_path: Path) -> None:
    done = _export(tmp_path, [_row(0, "samples:canonical.jsonl", "  return a + b\n}\n")])
    assert done.returncode == 2
    assert "no generated rows" in done.stderr and len(done.stderr.strip().splitlines()) == 1
