"""``evaluate(cfg)``: the whole evaluation run behind ``python evaluate.py``.

Order: load and validate the split, collect metric columns (checkpoint formats, baselines,
external files, ICE-Score), analyse them against the labels, then write report.json, report.md,
scores.jsonl and the plots, and print the tables.
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from omegaconf import DictConfig, OmegaConf
from rich.console import Console

from data_builders.jsonl import write_jsonl
from unice.evaluation.analysis import (
    AnalysisSettings,
    analyse,
    label_summary,
    paired_comparison,
    system_level,
)
from unice.evaluation.baselines import run_baselines
from unice.evaluation.codescore import score_checkpoint
from unice.evaluation.columns import MetricColumn, SkippedMetric
from unice.evaluation.data import EvalData, load_split
from unice.evaluation.errors import EvaluationError
from unice.evaluation.external import load_external_scores
from unice.evaluation.ice import ICE_SCORE_NAMES, ice_score_column
from unice.evaluation.languages import baseline_settings, split_language
from unice.evaluation.plots import (
    plot_correlation_bars,
    plot_exec_reliability,
    plot_predicted_vs_true,
    plot_system_level,
)
from unice.evaluation.provenance import execution_cost, provenance
from unice.evaluation.report import print_tables, to_jsonable, write_report
from unice.evaluation.systems import row_generators


def _to_dict(cfg: Any) -> dict[str, Any]:
    if isinstance(cfg, DictConfig):
        return OmegaConf.to_container(cfg, resolve=True)  # type: ignore[return-value]
    return dict(cfg)


def collect_columns(
    cfg: Mapping[str, Any], data: EvalData, progress: bool
) -> tuple[list[MetricColumn], list[SkippedMetric]]:
    """Every metric column the config asks for, and the metrics that had to be skipped."""
    columns: list[MetricColumn] = []
    skipped: list[SkippedMetric] = []
    if cfg.get("ckpt_path"):
        columns += score_checkpoint(
            cfg["ckpt_path"], data, int(cfg.get("batch_size", 32)), cfg.get("device"), progress
        )
    compare = cfg.get("baseline_inputs", "body")
    if compare not in ("body", "full"):
        raise EvaluationError(f"baseline_inputs={compare!r} is unknown; choose body or full")
    # Rows hold prompt-free code (data_builders.dataset.convention): ``body`` compares it
    # dedented (a body parses as top-level code for CodeBLEU), ``full`` as written.
    generated, references = data.generated, data.references
    reference_sets = data.reference_sets
    if compare == "body":
        generated = [textwrap.dedent(code) for code in generated]
        references = [textwrap.dedent(code) for code in references]
        reference_sets = [[textwrap.dedent(code) for code in refs] for refs in reference_sets]
    specs = baseline_settings(cfg.get("baselines") or {}, split_language(data.rows))
    # the NL task goes along only when a baseline asks for it (CodeBERTScore's source_context)
    wants_nl = any(
        (spec or {}).get("enabled", True) and (spec or {}).get("source_context")
        for spec in specs.values()
    )
    runs = run_baselines(
        specs,
        generated,
        references,
        progress,
        reference_sets=reference_sets,
        sources=data.nls if wants_nl else None,
    )
    for run in runs:
        if run.skipped:
            skipped.append(SkippedMetric(run.name, run.skipped))
            continue
        for name, scores in run.columns.items():
            columns.append(
                MetricColumn(
                    name,
                    scores,
                    "baseline",
                    seconds=run.seconds,
                    time_note=f"one run for {', '.join(run.columns)}"
                    if len(run.columns) > 1
                    else "",
                    settings=run.settings,
                )
            )
    taken = [column.name for column in columns]
    if cfg.get("ice_score"):  # loaded after the (fast) files, so a bad file fails before the judge
        taken += ICE_SCORE_NAMES
    columns += load_external_scores(cfg.get("scores"), data.ids, taken)
    if cfg.get("ice_score"):
        columns.append(ice_score_column(data, cfg["ice_score"]))
    names = [column.name for column in columns]
    if len(set(names)) != len(names):  # a bug, not a user error: reports are keyed by name
        raise RuntimeError(f"duplicate metric column names: {sorted(names)}")
    return columns, skipped


def _output_dir(cfg: Mapping[str, Any]) -> Path:
    value = cfg.get("output_dir")
    if value:
        return Path(value)
    return Path("outputs/eval") / datetime.now().strftime("%Y-%m-%d_%H-%M-%S")


def _write_scores(columns: list[MetricColumn], data: EvalData, path: Path) -> None:
    """Per-sample scores, re-usable later as ``scores=<this file>``."""
    rows = []
    for i, sample_id in enumerate(data.ids):
        row: dict[str, Any] = {"id": sample_id}
        for column in columns:
            row[column.name] = column.scores[i]
        rows.append(to_jsonable(row))
    write_jsonl(path, rows)


def _plots(
    columns: list[MetricColumn],
    data: EvalData,
    metrics: list,
    systems: dict[str, Any] | None,
    out: Path,
) -> list[str]:
    made = [
        plot_predicted_vs_true(columns, data.pass_ratio, out / "pred_vs_true.png")
        if data.has_execution
        else None,
        plot_exec_reliability(columns, data.executable, out / "exec_reliability.png")
        if data.has_execution
        else None,
        plot_correlation_bars(metrics, out / "correlations.png"),
        plot_system_level(systems, out / "system_level.png") if systems else None,
    ]
    return [str(path) for path in made if path is not None]


def evaluate(cfg: Any, console: Console | None = None) -> dict[str, Any]:
    """Run the evaluation described by ``cfg`` (``configs/evaluate.yaml``); return the report.

    Raises:
        EvaluationError: any user-fixable problem (data, split, labels, checkpoint, scores).
    """
    cfg = _to_dict(cfg)
    console = console or Console(stderr=False)
    progress = bool(cfg.get("progress", True))
    settings = AnalysisSettings.from_mapping(cfg, cfg.get("bootstrap") or {})
    started = time.perf_counter()
    data = load_split(
        cfg.get("dataset"), cfg.get("split", "test"), cfg.get("limit"), settings.label
    )
    generators, generators_from = row_generators(data, cfg.get("generators"))
    columns, skipped = collect_columns(cfg, data, progress)
    if not columns:
        why = "; ".join(f"{s.name} skipped: {s.reason}" for s in skipped)
        raise EvaluationError(
            "nothing to evaluate: pass ckpt_path=DIR, scores=FILE.jsonl, ice_score=default, "
            "or enable baselines (baselines=all)" + (f" ({why})" if why else "")
        )
    metrics = analyse(columns, data, settings, progress=progress)
    out = _output_dir(cfg)
    report: dict[str, Any] = {
        "provenance": provenance(cfg.get("ckpt_path")),
        "settings": {**settings.__dict__, "split": cfg.get("split", "test")},
        "data": {
            "path": str(data.path),
            "sha256": data.sha256,
            **label_summary(data, settings.label),
        },
        "metrics": metrics,
        "paired": paired_comparison(
            columns,
            data,
            settings,
            cfg.get("paired_exclude") or (),
            cfg.get("paired_ours") or (),
        ),
        "system_level": system_level(columns, data, settings, generators, generators_from)
        if generators
        else None,
        "skipped": [s.__dict__ for s in skipped],
        "execution_cost": execution_cost(data.path, cfg.get("split", "test"), data.rows),
        "config": cfg,
    }
    out.mkdir(parents=True, exist_ok=True)
    _write_scores(columns, data, out / "scores.jsonl")
    report["plots"] = (
        _plots(columns, data, metrics, report["system_level"], out)
        if cfg.get("plots", True)
        else []
    )
    report["seconds"] = time.perf_counter() - started
    paths = write_report(report, out)
    print_tables(report, console)
    console.print(f"report: {paths['md']} and {paths['json']}")
    report["output_dir"] = str(out)
    return report
