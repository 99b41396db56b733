"""Combine the zero-shot evaluations of `make quality` into one report with the verdict.

    python scripts/quality_report.py --out outputs/quality --checkpoint runs/zeroshot_cpu/best \
        --he outputs/quality/he-eval --he-multi outputs/quality/he-multi [--timings k=v ...]

Reads each evaluation's ``report.json`` (written by ``evaluate.py``), and writes
``OUT/report.md`` and ``OUT/report.json``: CodeScore next to every baseline on the same rows
(corpus- and example-level Kendall/Spearman, MAE, Exec AUROC, wall time), the training run's
dev history, the stage timings, and the issue's check -- is the *primary* CodeScore column
above every baseline on example-level and corpus-level Kendall tau? The primary column is
fixed before scoring (``protocol.primary_format`` of configs/experiment/zeroshot_cpu.yaml,
default ``ref_nl``); other CodeScore columns are shown beside it and never pick the verdict.
Example-level tau is the mean over one common problem set (where every compared metric is
defined), and each difference comes with its paired bootstrap interval over problems
(``evaluate.py``'s ``paired`` section; an interval that crosses 0 is reported as undecided).
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import yaml

from unice.evaluation.codescore import FORMAT_COLUMNS

EXPERIMENT = Path(__file__).resolve().parents[1] / "configs" / "experiment" / "zeroshot_cpu.yaml"
DEFAULT_PRIMARY = "ref_nl"
FORMAT_NAMES = {suffix[1:] or "avg": name for suffix, name in FORMAT_COLUMNS.items()}
"""``primary_format`` (``ref``, ``nl``, ``ref_nl``, ``avg``) -> evaluate.py's column name."""
TARGETS = {"kendall": 0.50, "spearman": 0.66, "mae": 0.22}
"""The paper's UniXcoder zero-shot HE-Eval figures (Ref&NL, L_Uni)."""


def _value(metric: dict[str, Any], level: str, name: str) -> float:
    if level == "corpus":
        value = metric["corpus"].get(name)
    else:
        value = metric["example"]["skipped"].get(name)
    return math.nan if value is None else float(value)


def primary_column(config: Path = EXPERIMENT) -> str:
    """The CodeScore column every verdict reads: the experiment's ``protocol.primary_format``
    (``ref_nl`` when the file or the key is absent)."""
    name = DEFAULT_PRIMARY
    if config.is_file():
        raw = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
        name = ((raw.get("protocol") if isinstance(raw, dict) else None) or {}).get(
            "primary_format"
        ) or DEFAULT_PRIMARY
    if name not in FORMAT_NAMES:
        raise SystemExit(
            f"error: {config}: protocol.primary_format {name!r} is unknown; choose one of "
            f"{', '.join(FORMAT_NAMES)}"
        )
    return FORMAT_NAMES[name]


def summarise(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per metric column of an ``evaluate.py`` report.

    Kendall tau comes from the report's ``paired`` section when it has one: example level over
    the common problem set, corpus level over the rows every metric scored. MAE only for
    CodeScore (trained to output PassRatio; the baselines are calibrated to nothing here).
    """
    common = (report.get("paired") or {}).get("common") or {}
    rows = []
    for metric in report["metrics"]:
        exec_metrics = metric.get("exec") or {}
        shared = common.get(metric["name"], {})
        mae = metric.get("mae") if metric["kind"] == "codescore" else None
        rows.append(
            {
                "name": metric["name"],
                "kind": metric["kind"],
                "common_set": bool(shared),
                "corpus_kendall": _number(shared.get("corpus_kendall"))
                if shared
                else _value(metric, "corpus", "kendall"),
                "corpus_spearman": _value(metric, "corpus", "spearman"),
                "corpus_pearson": _value(metric, "corpus", "pearson"),
                "example_kendall": _number(shared.get("example_kendall"))
                if shared
                else _value(metric, "example", "kendall"),
                "example_spearman": _value(metric, "example", "spearman"),
                "mae": _number(mae),
                "exec_auroc": float(exec_metrics.get("auroc", math.nan) or math.nan),
                "seconds": metric.get("seconds"),
            }
        )
    return [row for row in rows if row["name"] != "ExactMatch"]


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


LEVELS = ("example_kendall", "corpus_kendall")


def verdict(
    rows: list[dict[str, Any]], primary: str, paired: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Per level: is the ``primary`` column above every baseline? Tied or below one: no.

    Each comparison carries the paired interval of the difference when ``paired`` (the
    report's section) has it: ``above``/``below`` when it excludes 0, ``undecided`` when it
    crosses 0, ``n/a`` without one. Empty when the primary column or the baselines are absent.
    """
    ours = next((r for r in rows if r["name"] == primary), None)
    baselines = [r for r in rows if r["kind"] != "codescore"]
    if ours is None or not baselines:
        return {}
    differences = ((paired or {}).get("differences") or {}).get(primary) or {}
    out: dict[str, Any] = {}
    for level in LEVELS:
        comparisons = []
        for base in baselines:
            interval = (differences.get(base["name"]) or {}).get(level) or {}
            comparisons.append(
                {
                    "baseline": base["name"],
                    "baseline_value": base[level],
                    "difference": ours[level] - base[level],
                    "low": interval.get("low"),
                    "high": interval.get("high"),
                    "interval": interval.get("verdict") or "n/a",
                }
            )
        above = all(math.isfinite(c["difference"]) and c["difference"] > 0 for c in comparisons)
        best = max(baselines, key=lambda r: _finite(r[level]))
        out[level] = {
            "codescore": primary,
            "codescore_value": ours[level],
            "best_baseline": best["name"],
            "baseline_value": best[level],
            "above_every_baseline": above,
            "undecided": [c["baseline"] for c in comparisons if c["interval"] == "undecided"],
            "comparisons": comparisons,
        }
    return out


def verdict_lines(check: dict[str, Any]) -> list[str]:
    """The verdict in markdown: one line per level and a table of the paired differences."""
    lines: list[str] = []
    for level, v in check.items():
        mark = "yes" if v["above_every_baseline"] else "**no**"
        where = "common problem set" if level == "example_kendall" else "common rows"
        lines += [
            "",
            f"- {level.replace('_', ' ')} ({where}): primary column {v['codescore']} "
            f"{_fmt(v['codescore_value'])}; best baseline {v['best_baseline']} "
            f"{_fmt(v['baseline_value'])}. Above every baseline? {mark}"
            + (
                f" ({len(v['undecided'])} interval(s) cross 0: {', '.join(v['undecided'])})"
                if v["undecided"]
                else ""
            ),
            "",
            "| baseline | τ | primary − baseline | paired interval | interval says |",
            "| --- | --- | --- | --- | --- |",
        ]
        for c in v["comparisons"]:
            interval = f"[{_fmt(c['low'])}, {_fmt(c['high'])}]" if c["low"] is not None else "—"
            lines.append(
                f"| {c['baseline']} | {_fmt(c['baseline_value'])} | {_fmt(c['difference'])} | "
                f"{interval} | {c['interval']} |"
            )
    return lines


def _finite(value: float) -> float:
    return value if value is not None and math.isfinite(value) else -math.inf


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def table(rows: list[dict[str, Any]]) -> list[str]:
    header = (
        "| metric | example τ (common) | example ρ (own problems) | corpus τ | corpus ρ | corpus r | MAE | Exec AUROC "
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
    parser.add_argument(
        "--experiment",
        type=Path,
        default=EXPERIMENT,
        help="config whose protocol.primary_format names the verdict's column",
    )
    args = parser.parse_args()
    primary = primary_column(args.experiment)

    sets = {"HE-Eval (CodeGen-16B)": args.he}
    if args.he_multi:
        sets["HumanEval, 39 other generators"] = args.he_multi
    result: dict[str, Any] = {
        "checkpoint": str(args.checkpoint),
        "primary_column": primary,
        "sets": {},
    }
    lines = ["# `make quality`: CodeScore zero-shot on HumanEval", ""]
    lines.append(
        f"Checkpoint `{args.checkpoint}` (trained by `+experiment=zeroshot_cpu` on real MBPP and "
        "generations (and APPS with WITH_APPS=1); no HumanEval problem in training). Every row of a "
        "table is scored on the same programs. The verdict reads the primary column, "
        f"{primary} (`protocol.primary_format` of `{args.experiment.name}`), only. Example τ is "
        "the mean over the problems where every metric is defined; MAE is given for CodeScore "
        "only (trained to output PassRatio; the baselines are calibrated to nothing here)."
    )
    for title, folder in sets.items():
        report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
        rows = summarise(report)
        data = report["data"]
        check = verdict(rows, primary, report.get("paired"))
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
        lines += verdict_lines(check)
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
