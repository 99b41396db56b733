"""Combine the zero-shot evaluations of `make quality` into one report with the verdict.

    python scripts/quality_report.py --out outputs/quality --checkpoint runs/zeroshot_cpu/best \
        --he outputs/quality/he-eval --he-multi outputs/quality/he-multi [--timings k=v ...]

Reads each evaluation's ``report.json`` (written by ``evaluate.py``), and writes
``OUT/report.md`` and ``OUT/report.json``: CodeScore next to every baseline on the same rows
(corpus- and example-level Kendall/Spearman, MAE, Exec AUROC, wall time), the training run's
dev history, the stage timings, and the issue's check -- is CodeScore (Ref&NL or the format
average) above every baseline on example-level and corpus-level Kendall tau on HE-Eval?
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

CODESCORE = ("CodeScore (Ref&NL)", "CodeScore (avg)")
TARGETS = {"kendall": 0.50, "spearman": 0.66, "mae": 0.22}
"""The paper's UniXcoder zero-shot HE-Eval figures (Ref&NL, L_Uni)."""


def _value(metric: dict[str, Any], level: str, name: str) -> float:
    if level == "corpus":
        value = metric["corpus"].get(name)
    else:
        value = metric["example"]["skipped"].get(name)
    return math.nan if value is None else float(value)


def summarise(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per metric column of an ``evaluate.py`` report."""
    rows = []
    for metric in report["metrics"]:
        exec_metrics = metric.get("exec") or {}
        rows.append(
            {
                "name": metric["name"],
                "kind": metric["kind"],
                "corpus_kendall": _value(metric, "corpus", "kendall"),
                "corpus_spearman": _value(metric, "corpus", "spearman"),
                "corpus_pearson": _value(metric, "corpus", "pearson"),
                "example_kendall": _value(metric, "example", "kendall"),
                "example_spearman": _value(metric, "example", "spearman"),
                "mae": math.nan if metric.get("mae") is None else float(metric["mae"]),
                "exec_auroc": float(exec_metrics.get("auroc", math.nan) or math.nan),
                "seconds": metric.get("seconds"),
            }
        )
    return [row for row in rows if row["name"] != "ExactMatch"]


def verdict(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Whether a CodeScore column beats every baseline on example- and corpus-level tau."""
    baselines = [r for r in rows if r["kind"] == "baseline"]
    out: dict[str, Any] = {}
    if not baselines or not any(r["name"] in CODESCORE for r in rows):
        return out
    for level in ("example_kendall", "corpus_kendall"):
        best = max(baselines, key=lambda r: _finite(r[level]))
        ours = max((r for r in rows if r["name"] in CODESCORE), key=lambda r: _finite(r[level]))
        out[level] = {
            "codescore": ours["name"],
            "codescore_value": ours[level],
            "best_baseline": best["name"],
            "baseline_value": best[level],
            "beats_every_baseline": _finite(ours[level]) > _finite(best[level]),
        }
    return out


def _finite(value: float) -> float:
    return value if value is not None and math.isfinite(value) else -math.inf


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def table(rows: list[dict[str, Any]]) -> list[str]:
    header = (
        "| metric | example τ | example ρ | corpus τ | corpus ρ | corpus r | MAE | Exec AUROC "
        "| wall s |"
    )
    lines = [header, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        cells = [r["name"]] + [
            _fmt(r[key])
            for key in (
                "example_kendall", "example_spearman", "corpus_kendall", "corpus_spearman",
                "corpus_pearson", "mae", "exec_auroc",
            )
        ]  # fmt: skip
        seconds = r["seconds"]
        cells.append(f"{seconds:.1f}" if isinstance(seconds, (int, float)) else "")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--he", type=Path, required=True, help="evaluate.py output folder")
    parser.add_argument("--he-multi", type=Path, help="evaluate.py output folder")
    parser.add_argument("--total-seconds", type=float)
    parser.add_argument("--timings", nargs="*", default=[], help="stage=seconds pairs")
    args = parser.parse_args()

    sets = {"HE-Eval (CodeGen-16B)": args.he}
    if args.he_multi:
        sets["HumanEval, 39 other generators"] = args.he_multi
    result: dict[str, Any] = {"checkpoint": str(args.checkpoint), "sets": {}}
    lines = ["# `make quality`: CodeScore zero-shot on HumanEval", ""]
    lines.append(
        f"Checkpoint `{args.checkpoint}` (trained by `+experiment=zeroshot_cpu` on real MBPP and "
        "APPS generations and MBPP mutants; no HumanEval problem in training). Every row of a "
        "table is scored on the same programs."
    )
    for title, folder in sets.items():
        report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        rows = summarise(report)
        data = report["data"]
        check = verdict(rows)
        result["sets"][title] = {
            "report": str(folder / "report.json"),
            "label": report["settings"].get("label", "pass_ratio")
            if isinstance(report.get("settings"), dict)
            else "pass_ratio",
            "data": data,
            "metrics": rows,
            "verdict": check,
        }
        lines += [
            "",
            f"## {title}",
            "",
            f"`{folder}/report.md` has CIs, Exec metrics and plots.",
            "",
        ]
        lines += table(rows)
        lines.append("")
        for level, v in check.items():
            mark = "yes" if v["beats_every_baseline"] else "**no**"
            lines.append(
                f"- {level.replace('_', ' ')}: best CodeScore column {v['codescore']} "
                f"{_fmt(v['codescore_value'])} vs best baseline {v['best_baseline']} "
                f"{_fmt(v['baseline_value'])}: above every baseline? {mark}"
            )
    he_rows = result["sets"]["HE-Eval (CodeGen-16B)"]["metrics"]
    ref_nl = next((r for r in he_rows if r["name"] == "CodeScore (Ref&NL)"), None)
    if ref_nl:
        lines += [
            "",
            "Paper's UniXcoder zero-shot HE-Eval (Ref&NL): corpus τ .500, ρ .660, MAE .218; here "
            f"τ {_fmt(ref_nl['corpus_kendall'])}, ρ {_fmt(ref_nl['corpus_spearman'])}, "
            f"MAE {_fmt(ref_nl['mae'])}.",
        ]
    metrics_file = args.checkpoint.parent / "metrics.json"
    if metrics_file.is_file():
        result["training"] = json.loads(metrics_file.read_text(encoding="utf-8"))
        best = {k: v for k, v in result["training"].items() if k.startswith("best/")}
        lines += ["", "## Training (dev split of the training mix)", ""]
        lines.append(", ".join(f"{k[5:]} {_fmt(v)}" for k, v in best.items()))
    timings = dict(item.split("=", 1) for item in args.timings)
    result["timings_seconds"] = {k: float(v) for k, v in timings.items()}
    result["total_seconds"] = args.total_seconds
    if timings or args.total_seconds:
        lines += ["", "## Time (wall seconds, this run)", ""]
        lines.append(", ".join(f"{k} {float(v):.0f}" for k, v in sorted(timings.items())))
        if args.total_seconds:
            lines.append(
                f"\nTotal: {args.total_seconds:.0f} s ({args.total_seconds / 60:.1f} min)."
            )
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "report.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    (args.out / "report.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
