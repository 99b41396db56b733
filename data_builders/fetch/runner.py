"""Running the targets of ``configs/fetch/targets.yaml``: obtain and check each input, convert,
write, and record what was built so that a rerun skips it.

Why a record per target (``<out>/.fetch/<target>.json``): a finished target is skipped only when
its outputs exist and were made from the same pinned inputs (their sha256) by the same target
definition; anything else is rebuilt. Outputs are written to temporary names and renamed.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm.auto import tqdm

from data_builders.errors import UserError
from data_builders.fetch import apps, convert, generations
from data_builders.fetch.apps import CODERL_FILES
from data_builders.fetch.download import obtain
from data_builders.fetch.harness import HEADERS, TYPING
from data_builders.fetch.manifest import (
    MANIFEST,
    TARGETS,
    SourceFile,
    load_config,
    load_manifest,
    source_file,
)
from data_builders.jsonl import read_jsonl

STATE_DIR = ".fetch"
PACKAGE = Path(__file__).resolve().parent


@dataclass
class Fetcher:
    """Where inputs come from (``raw`` or a download cache) and where outputs go."""

    out: Path
    raw: Path | None = None
    cache_dir: Path | None = None
    timeout: float = 20.0
    manifest_path: Path = MANIFEST
    targets_path: Path = TARGETS
    workers: int | None = None  # programs run at once by the APPS check (default: one per CPU)
    config: dict[str, Any] = field(default_factory=dict)
    _rows: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.raw is not None and not self.raw.is_dir():
            raise UserError(f"--raw {self.raw}: no such folder")
        if self.cache_dir is None:
            self.cache_dir = self.out / STATE_DIR / "raw"
        if not self.config:
            self.config = load_config(self.targets_path)
        self.manifest = load_manifest(self.manifest_path)

    # inputs -------------------------------------------------------------------------------
    def file(self, ref: dict[str, str]) -> tuple[SourceFile, Path]:
        entry = source_file(self.manifest, ref["repo"], ref["path"])
        return entry, obtain(entry, self.raw, self.cache_dir, self.timeout)

    def header(self, name: str | None) -> str:
        if not name:
            return ""
        if name == "typing":
            return TYPING
        ref = self.config["headers"].get(name)
        if ref is None:
            raise UserError(f"configs/fetch/targets.yaml: unknown harness {name!r}")
        kind = "typing" if name.startswith("typing") else name
        return HEADERS[kind](self.file(ref)[1])

    def inputs(self, spec: dict[str, Any]) -> list[dict[str, str]]:
        """Every file reference a target reads (for its record), in a stable order."""
        refs: list[dict[str, str]] = []
        for key in ("samples", "problems", "reference"):
            if key in spec:
                refs.append(spec[key])
        refs.extend(spec.get("files", {}).values())
        coderl = spec.get("coderl")
        if coderl:
            known = self.manifest
            for folder in coderl["ids"]:
                for name in CODERL_FILES:
                    path = f"{coderl['dir']}/{folder}/{name}"
                    if (coderl["repo"], path) in known:
                        refs.append({"repo": coderl["repo"], "path": path})
        for source in spec.get("sources", []):
            refs.append({"repo": source["repo"], "path": source["path"]})
            for name in (source.get("harness"), source.get("strip")):
                if name and name in self.config["headers"]:
                    refs.append(self.config["headers"][name])
        refs.extend(spec.get("extra_files", []))
        return refs

    # records --------------------------------------------------------------------------------
    def outputs(self, spec: dict[str, Any]) -> list[str]:
        """The files a target writes, relative to ``out``."""
        return list(spec.get("files", {})) or list(spec.get("outputs", [])) or [spec["output"]]

    def fingerprint(self, name: str, spec: dict[str, Any]) -> str:
        """What a target's outputs depend on: its definition, the headers, its inputs' sha256 and
        this package's code (a changed rule rebuilds)."""
        shas = [source_file(self.manifest, r["repo"], r["path"]).sha256 for r in self.inputs(spec)]
        code = [hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(PACKAGE.glob("*.py"))]
        blob = json.dumps(
            {"target": spec, "headers": self.config["headers"], "inputs": shas, "code": code},
            sort_keys=True,
        )
        return hashlib.sha256(blob.encode()).hexdigest()

    def done(self, name: str, spec: dict[str, Any]) -> bool:
        record = self.out / STATE_DIR / f"{name}.json"
        if not record.is_file():
            return False
        try:
            saved = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return False
        return saved.get("fingerprint") == self.fingerprint(name, spec) and all(
            (self.out / o).is_file() for o in self.outputs(spec)
        )

    def mark_done(self, name: str, spec: dict[str, Any], summary: str) -> None:
        record = self.out / STATE_DIR / f"{name}.json"
        record.parent.mkdir(parents=True, exist_ok=True)
        tmp = record.with_name(record.name + ".tmp")
        payload = {
            "fingerprint": self.fingerprint(name, spec),
            "outputs": self.outputs(spec),
            "summary": summary,
        }
        tmp.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
        tmp.replace(record)

    # targets --------------------------------------------------------------------------------
    def rows_of(self, name: str) -> list[dict[str, Any]]:
        """A generation target's rows: this run's, else its finished output, else built now."""
        if name not in self._rows:
            spec = self.config["targets"][name]
            path = self.out / spec["output"]
            if self.done(name, spec):
                self._rows[name] = read_jsonl(path)
            else:
                self.run(name, force=True)
        return self._rows[name]

    def run(self, name: str, force: bool = False) -> str:
        """Build one target (unless finished); returns a one-line summary."""
        spec = self.config["targets"][name]
        if not force and self.done(name, spec):
            return f"{name}: up to date, skipped"
        kind = spec["kind"]
        if kind == "copy":
            for output, ref in spec["files"].items():
                convert.copy_file(self.file(ref)[1], self.out / output)
            summary = f"{len(spec['files'])} file(s) copied"
        elif kind == "codet_samples":
            rows = convert.codet_samples(
                self.file(spec["samples"])[1], self.file(spec["problems"])[1], spec["generator"]
            )
            count = convert.write_rows(self.out / spec["output"], rows, compact=False)
            summary = f"{count} rows"
        elif kind == "generations":
            summary = self._generations(name, spec)
        elif kind in ("apps", "apps_more"):
            summary = apps.run_target(self, name, spec)
        else:
            raise UserError(f"configs/fetch/targets.yaml: target {name} has unknown kind {kind!r}")
        self.mark_done(name, spec, summary)
        return f"{name}: {summary}"

    def _generations(self, name: str, spec: dict[str, Any]) -> str:
        problems = generations.load_problems(self.file(spec["problems"])[1])
        specs = []
        for source in spec["sources"]:
            entry, local = self.file(source)
            specs.append(
                generations.GenerationSource(
                    file=entry,
                    local=local,
                    generator=source["generator"],
                    family=source["family"],
                    field=source.get("field"),
                    strip=self.header(source.get("strip")),
                    harness=self.header(source.get("harness")),
                    harness_rule=self.config["headers"]
                    .get(source.get("harness"), {})
                    .get("rule", "all"),
                )
            )
        seen: set[tuple[str, str]] = set()
        for earlier in spec.get("after", []):
            seen |= generations.duplicate_keys(self.rows_of(earlier))
        rows, drops = generations.build(specs, problems, seen)
        convert.write_rows(self.out / spec["output"], rows)
        self._rows[name] = rows
        return f"{len(rows)} rows ({drops})"


def run_all(fetcher: Fetcher, only: list[str] | None = None) -> list[str]:
    """Build every target (or ``only`` those), in the config's order, with a progress bar."""
    targets = fetcher.config["targets"]
    names = only or list(targets)
    unknown = [n for n in names if n not in targets]
    if unknown:
        raise UserError(
            f"--only: unknown target(s) {', '.join(unknown)}; choose from {', '.join(targets)}"
        )
    lines = []
    for name in tqdm(names, desc="fetch", unit="target"):
        lines.append(fetcher.run(name))
        tqdm.write(lines[-1])
    return lines
