"""Writing a run's results: rich tables on the terminal, report.json, report.md."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table as RichTable

from data_builders.jsonl import atomic_writer
from unice.evaluation.tables import Table, build_tables


def to_jsonable(value: Any) -> Any:
    """Plain JSON: NaN/inf become ``null`` (undefined), numpy scalars and tuples become Python."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, (np.floating, float)):
        value = float(value)
        return value if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value


def _markdown_table(table: Table) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = [f"## {table.title}", ""]
    lines.append("| " + " | ".join(cell(h) for h in table.headers) + " |")
    lines.append("| " + " | ".join("---" for _ in table.headers) + " |")
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in table.rows]
    lines += [""] + [f"_{note}_" for note in table.notes]
    return "\n".join(lines) + "\n"


def render_markdown(report: dict[str, Any]) -> str:
    """report.md: the tables, skipped metrics with reasons, and provenance."""
    data = report["data"]
    if "pass_rate" in data:
        labels = (
            f"average PassRatio {data['avg_pass_ratio']:.4f}, pass rate {data['pass_rate']:.4f}, "
            f"executable {data['exec_rate']:.4f}."
        )
    else:  # a human grade (label=usefulness): no execution labels
        label = data["label"]
        counts = ", ".join(f"{g}: {n}" for g, n in data["grade_counts"].items())
        labels = f"average {label} {data[f'avg_{label}']:.4f} (grades {counts})."
    parts = [
        "# UniCE evaluation report",
        "",
        f"Data: `{data['path']}` (sha256 `{data['sha256'][:16]}…`), {data['n_samples']} samples, "
        f"{data['n_problems']} problems; {labels}",
        "",
    ]
    parts += [_markdown_table(t) for t in build_tables(report)]
    if report["skipped"]:
        parts += ["## Skipped metrics", ""]
        parts += [f"- **{s['name']}**: {s['reason']}" for s in report["skipped"]]
        parts.append("")
    prov = report["provenance"]
    parts += ["## Provenance", "", f"- command: `{prov.get('command', '')}`"]
    parts += [f"- checkpoint: `{prov.get('checkpoint')}`", f"- created: {prov.get('created')}"]
    parts += [f"- git commit: `{prov.get('git_commit')}`"]
    versions = ", ".join(f"{k} {v}" for k, v in prov.get("packages", {}).items())
    parts += [f"- packages: {versions}", ""]
    return "\n".join(parts)


def print_tables(report: dict[str, Any], console: Console | None = None) -> None:
    """The same tables on the terminal."""
    console = console or Console()
    for table in build_tables(report):
        rich_table = RichTable(title=table.title, title_justify="left")
        for index, header in enumerate(table.headers):
            rich_table.add_column(header, justify="left" if index == 0 else "right")
        for row in table.rows:
            rich_table.add_row(*row)
        console.print(rich_table)
        for note in table.notes:
            console.print(f"[dim]{note}[/dim]")
    for skipped in report["skipped"]:
        console.print(f"[yellow]skipped[/yellow] {skipped['name']}: {skipped['reason']}")


def write_report(report: dict[str, Any], output_dir: Path) -> dict[str, Path]:
    """report.json and report.md in ``output_dir`` (written atomically)."""
    output_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": output_dir / "report.json", "md": output_dir / "report.md"}
    with atomic_writer(paths["json"]) as handle:
        json.dump(to_jsonable(report), handle, indent=2, ensure_ascii=False, allow_nan=False)
        handle.write("\n")
    with atomic_writer(paths["md"]) as handle:
        handle.write(render_markdown(report))
    return paths
