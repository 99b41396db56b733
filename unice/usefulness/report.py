"""``outputs/usefulness/report.{md,json}``: the human-trained CodeScore next to every baseline.

Reads what the earlier stages wrote (``evaluation/report.json`` from ``evaluate.py
label=usefulness``, ``arms.json`` from the arm rule, ``scores.jsonl``) and data/conala's rows
(the study's stored scores), and puts them in one place with ICE-Score's published Table 1.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from data_builders.jsonl import iter_jsonl
from unice.evaluation.report import to_jsonable
from unice.evaluation.tables import fmt
from unice.usefulness.study import PUBLISHED_TABLE_1, STUDY_COLUMNS, agreement

HUMAN_COLUMN = "CodeScore (human-trained)"
NOT_BASELINES = ("ExactMatch",)
"""Constant within most intents (defined on ~40 of 472): not a rival at example level."""


def _metric_rows(evaluation: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for m in evaluation["metrics"]:
        ci = m.get("ci") or {}
        rows.append(
            {
                "name": m["name"],
                "kind": m["kind"],
                "example": m["example"]["skipped"],
                "example_ci": (ci.get("example") or {}).get("kendall"),
                "intents": m["example"]["n_problems"] - m["example"]["n_undefined"],
                "corpus": m["corpus"],
                "corpus_ci": (ci.get("corpus") or {}).get("kendall"),
                "n_scored": m["n_scored"],
            }
        )
    return rows


def _is_rival(row: Mapping[str, Any]) -> bool:
    """A non-LLM baseline computed by the project (not the study's stored copy, not ours)."""
    return row["kind"] == "baseline" and row["name"] not in NOT_BASELINES


def best_baselines(rows: list[dict[str, Any]]) -> dict[str, str | None]:
    """The non-LLM baseline with the highest example-level and corpus-level Kendall tau."""
    rivals = [r for r in rows if _is_rival(r)]
    out: dict[str, str | None] = {}
    for level, key in (("example", "example"), ("corpus", "corpus")):
        finite = [r for r in rivals if math.isfinite(r[key]["kendall"])]
        out[level] = max(finite, key=lambda r: r[key]["kendall"])["name"] if finite else None
    return out


def study_agreement(data: Path, evaluation_scores: Path) -> dict[str, Any]:
    """Per metric: our per-snippet scores vs the study's stored ones (same rows)."""
    rows = {row["id"]: row for _, row in iter_jsonl(data / "test.jsonl")}
    ours = {row["id"]: row for _, row in iter_jsonl(evaluation_scores)}
    out = {}
    for key, name in STUDY_COLUMNS.items():
        if not any(name in r for r in ours.values()):
            continue
        a = [np.nan if ours[i].get(name) is None else ours[i][name] for i in rows]
        b = [
            np.nan if rows[i].get(f"study_{key}") is None else rows[i][f"study_{key}"] for i in rows
        ]
        out[name] = agreement(a, b)
    return out


def _ci(ci: Any) -> str:
    if not ci or ci[0] is None:
        return ""
    return f" [{fmt(ci[0], 2)}, {fmt(ci[1], 2)}]"


def build_report(out: Path, data: Path, zs_ckpt: Path | None) -> dict[str, Any]:
    """Everything report.md shows, as JSON-ready data."""
    evaluation = json.loads((out / "evaluation" / "report.json").read_text(encoding="utf-8"))
    arms = json.loads((out / "arms.json").read_text(encoding="utf-8"))
    rows = _metric_rows(evaluation)
    best = best_baselines(rows)
    paired = evaluation.get("paired") or {}
    versus = {}
    for other in {best["example"], best["corpus"]} - {None}:
        versus[other] = ((paired.get("differences") or {}).get(HUMAN_COLUMN) or {}).get(other)
    zero_shot = [r["name"] for r in rows if r["kind"] == "codescore"]
    return {
        "data": evaluation["data"],
        "metrics": rows,
        "best_baselines": best,
        "paired_vs_best": versus,
        "paired": paired,
        "published_table_1": PUBLISHED_TABLE_1,
        "study_agreement": study_agreement(data, out / "evaluation" / "scores.jsonl"),
        "arms": arms,
        "zero_shot": {
            "checkpoint": str(zs_ckpt) if zs_ckpt else None,
            "columns": zero_shot,
            "note": None
            if zs_ckpt
            else "not available: no PassRatio-trained checkpoint on this machine (make quality "
            "writes runs/zeroshot_cpu/best; or ZS_CKPT=DIR); its columns are not in this report",
        },
        "skipped": evaluation.get("skipped", []),
        "provenance": evaluation.get("provenance", {}),
        "evaluation_report": str(out / "evaluation" / "report.md"),
    }


def arm_rows(arms: dict[str, dict]) -> list[str]:
    """The arm table's rows of one stage: overrides, inner-dev τ per fold, mean, gain, verdict
    (an arm that did not run says why)."""
    rows = []
    for arm, f in arms.items():
        if not f.get("ran", True):
            rows.append(f"| {arm} | | | | | {f['why']} |")
            continue
        per_fold = ", ".join(fmt(v) for v in f["per_fold"])
        rows.append(
            f"| {arm} | {' '.join(f['overrides']) or '(this file)'} | {per_fold} | "
            f"{fmt(f.get('mean'))} | {fmt(f.get('gain'))} | {f.get('verdict', '')} |"
        )
    return rows


def render(report: Mapping[str, Any]) -> str:
    """report.md."""
    data = report["data"]
    lines = [
        "# Usefulness on CoNaLa: CodeScore trained on human grades vs every baseline",
        "",
        f"{data['n_samples']:,} snippets, {data['n_problems']} intents; label: the study's "
        "aggregated developer grade (0-4). Example level: per-intent Kendall tau-b over its five "
        "snippets, averaged over the intents where both sides vary (as ICE-Score); corpus "
        "level: one tau over all snippets. [95% bootstrap intervals over intents.] "
        f"`{HUMAN_COLUMN}`: each snippet scored by the fold model that never saw its intent "
        f"(arm {report['arms']['chosen']}, chosen on the inner dev folds).",
        "",
        "| metric | example τ | intents | example ρ | example r | corpus τ | corpus ρ | corpus r "
        "| Table 1 (ex / corpus τ) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in report["metrics"]:
        published = PUBLISHED_TABLE_1.get(r["name"])
        paper = f"{published[0]:.3f} / {published[1]:.3f}" if published else ""
        lines.append(
            f"| {r['name']} | {fmt(r['example']['kendall'])}{_ci(r['example_ci'])} | "
            f"{r['intents']} | {fmt(r['example']['spearman'])} | {fmt(r['example']['pearson'])} | "
            f"{fmt(r['corpus']['kendall'])}{_ci(r['corpus_ci'])} | {fmt(r['corpus']['spearman'])} "
            f"| {fmt(r['corpus']['pearson'])} | {paper} |"
        )
    for name in ("ICE-Score (GPT-3.5)", "Ref-ICE-Score (GPT-3.5)"):
        ex, co = PUBLISHED_TABLE_1[name]
        lines.append(f"| {name}, the paper's figure | | | | | | | | {ex:.3f} / {co:.3f} |")
    lines += [
        "",
        "`study X`: the study's own stored score of each snippet (its Table 1 rows come from "
        "these). `Table 1`: ICE-Score's published figures, quoted.",
        "",
        "## Against the best non-LLM baseline (paired, one common set of intents)",
        "",
    ]
    best = report["best_baselines"]
    lines.append(
        f"Best non-LLM baseline computed here: example level **{best['example']}**, corpus level "
        f"**{best['corpus']}** (ExactMatch left out: constant within most intents)."
    )
    lines += ["", "| CodeScore (human-trained) − | example τ Δ [95%] | | corpus τ Δ [95%] | |"]
    lines.append("| --- | --- | --- | --- | --- |")
    for other, diff in report["paired_vs_best"].items():
        if not diff:
            continue
        e, c = diff["example_kendall"], diff["corpus_kendall"]
        lines.append(
            f"| {other} | {fmt(e['difference'])} [{fmt(e['low'])}, {fmt(e['high'])}] | "
            f"{e['verdict']} | {fmt(c['difference'])} [{fmt(c['low'])}, {fmt(c['high'])}] | "
            f"{c['verdict']} |"
        )
    paired = report["paired"]
    if paired:
        lines += [
            "",
            f"Paired bootstrap over intents ({paired['n_resamples']} resamples, the same for both "
            f"metrics), on the {paired['n_common_problems']} of {paired['n_problems']} intents "
            "where every compared metric's tau is defined; every other pair is in "
            f"`{report['evaluation_report']}`.",
        ]
    lines += ["", "## The baselines against the study's stored scores (per snippet)", ""]
    lines += ["| metric | snippets | equal (±.0015) | mean abs Δ | max abs Δ | r |"]
    lines.append("| --- | --- | --- | --- | --- | --- |")
    for name, a in report["study_agreement"].items():
        lines.append(
            f"| {name} | {a['n']} | {fmt(a['equal'])} | {fmt(a['mean_abs'], 4)} | "
            f"{fmt(a['max_abs'])} | {fmt(a['r'])} |"
        )
    zs = report["zero_shot"]
    lines += ["", "## Zero-shot CodeScore (trained on PassRatio)", ""]
    if zs["checkpoint"]:
        lines.append(
            f"Checkpoint `{zs['checkpoint']}`: columns {', '.join(zs['columns'])} in the table "
            "above, scored as they are (never trained on a grade)."
        )
    else:
        lines.append(zs["note"] + ".")
    arms = report["arms"]
    levers = arms.get("levers") or (arms if "levers" not in arms else None)
    lines += ["", "## Arms on the inner dev folds (the pre-registered rule)", ""]
    if levers is None:
        lines.append(
            "No levers run here (`LEVERS=1 make usefulness` trains every arm and applies the "
            f"rule); this run trained the adopted arm {arms['chosen']} only."
        )
        levers = arms
    lines += ["| arm | overrides | inner-dev τ per fold | mean | gain vs A | verdict |"]
    lines.append("| --- | --- | --- | --- | --- | --- |")
    lines += arm_rows(levers["arms"])
    lines.append("")
    lines.append(
        f"Adopted iff the mean beats A's by more than {arms['margin']} "
        "(configs/experiment/usefulness.yaml, written before any run)."
    )
    for record, title in (("levers2", "Stage two"), ("levers3", "Stage three")):
        stage = arms.get(record)
        if not stage:
            continue
        lines += ["", f"### {title} (each arm on top of C; `LEVERS={record[-1]}`)", ""]
        lines += ["| arm | overrides | inner-dev τ per fold | mean | gain vs C | verdict |"]
        lines.append("| --- | --- | --- | --- | --- | --- |")
        lines += arm_rows(stage["arms"])
        lines += ["", f"Adopted iff the mean beats C's by more than {stage['margin']}."]
    if report["skipped"]:
        lines += ["", "## Skipped metrics", ""]
        lines += [f"- **{s['name']}**: {s['reason']}" for s in report["skipped"]]
    prov = report["provenance"]
    lines += ["", f"git commit `{prov.get('git_commit')}`; created {prov.get('created')}.", ""]
    return "\n".join(lines)


def write_usefulness_report(out: Path, data: Path, zs_ckpt: Path | None) -> dict[str, Path]:
    """Write ``out/report.json`` and ``out/report.md``; return their paths."""
    report = build_report(out, data, zs_ckpt)
    paths = {"json": out / "report.json", "md": out / "report.md"}
    paths["json"].write_text(
        json.dumps(to_jsonable(report), indent=2, ensure_ascii=False, allow_nan=False) + "\n",
        encoding="utf-8",
    )
    paths["md"].write_text(render(report), encoding="utf-8")
    return paths
