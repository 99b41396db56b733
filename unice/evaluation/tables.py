"""The report's tables, built once and rendered both to the terminal (rich) and to report.md.

Building them once guarantees that report.md holds exactly the numbers printed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from unice.metrics import CORRELATIONS

SHORT = {"kendall": "τ", "spearman": "ρ", "pearson": "r"}


@dataclass
class Table:
    """A titled table of already formatted cells, with notes printed under it."""

    title: str
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def fmt(value: Any, digits: int = 3) -> str:
    """A number as text; undefined values show as ``n/a`` (never as 0)."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def _with_ci(value: float | None, ci: list | tuple | None) -> str:
    """``value`` with its interval on a second line (rich wraps it; markdown shows a space)."""
    text = fmt(value)
    if ci and text != "n/a" and ci[0] is not None and ci[1] is not None:
        text += f"\n[{fmt(ci[0], 2)}, {fmt(ci[1], 2)}]"
    return text


def corpus_table(report: dict[str, Any]) -> Table:
    data = report["data"]
    label = report["settings"]["label"]
    headers = ["Metric", "n"] + [SHORT[c] for c in CORRELATIONS] + ["MAE"]
    title = f"Corpus-level correlation with {label} ({data['n_samples']} samples)"
    table = Table(title, headers)
    for m in report["metrics"]:
        ci = (m.get("ci") or {}).get("corpus") or {}
        row = [m["name"], str(m["n_scored"])]
        row += [_with_ci(m["corpus"][c], ci.get(c)) for c in CORRELATIONS]
        table.rows.append(row + [fmt(m["mae"])])
    conf = int(round(100 * report["settings"]["confidence"]))
    n_boot = report["settings"]["n_resamples"]
    if n_boot:
        table.notes.append(f"[{conf}% bootstrap CI, {n_boot} resamples of the problems]")
    if label == "usefulness":
        table.notes.append("no MAE: the label is a human 0-4 grade; correlations are scale-free.")
        return table
    table.notes.append(
        "MAE against PassRatio for CodeScore only: it is trained to output PassRatio. The "
        "baselines are similarities or grades on scales of their own, not calibrated to "
        "PassRatio, so no MAE is reported for them."
    )
    return table


def example_table(report: dict[str, Any]) -> Table:
    label = report["settings"]["label"]
    headers = ["Metric"] + [SHORT[c] for c in CORRELATIONS]
    headers += [f"{SHORT[c]} (undef.=0)" for c in CORRELATIONS] + ["undefined"]
    title = f"Example-level correlation with {label} ({report['data']['n_problems']} problems)"
    table = Table(title, headers)
    for m in report["metrics"]:
        ci = (m.get("ci") or {}).get("example") or {}
        example = m["example"]
        row = [m["name"]]
        row += [_with_ci(example["skipped"][c], ci.get(c)) for c in CORRELATIONS]
        row += [fmt(example["as_zero"][c]) for c in CORRELATIONS]
        row.append(f"{example['n_undefined']}/{example['n_problems']}")
        table.rows.append(row)
    table.notes.append(
        "mean of per-problem correlations. A problem with constant labels or scores, or a single "
        "sample, has none: skipped (nanmean, as ICE-Score) in the τ/ρ/r columns, counted as 0 "
        "in the '(undef.=0)' columns."
    )
    return table


def paired_table(report: dict[str, Any]) -> Table | None:
    """CodeScore minus each baseline on one common problem set, with paired intervals."""
    paired = report.get("paired")
    if not paired:
        return None
    conf = int(round(100 * paired["confidence"]))
    title = (
        f"CodeScore minus each baseline, Kendall τ ({paired['n_common_problems']} of "
        f"{paired['n_problems']} problems where every metric is defined; {paired['n_rows']} rows)"
    )
    table = Table(title, ["CodeScore − metric", "example τ Δ", "", "corpus τ Δ", ""])
    for ours, against in paired["differences"].items():
        for other, levels in against.items():
            row = [f"{ours} − {other}"]
            for level in ("example_kendall", "corpus_kendall"):
                d = levels[level]
                row += [_with_ci(d["difference"], (d["low"], d["high"])), d["verdict"]]
            table.rows.append(row)
    table.notes.append(
        f"[{conf}% paired bootstrap interval, {paired['n_resamples']} resamples of the problems, "
        "the same resample for both metrics; 'undecided': the interval crosses 0]"
    )
    common = ", ".join(
        f"{name} {fmt(v['example_kendall'])} / {fmt(v['corpus_kendall'])}"
        for name, v in paired["common"].items()
    )
    table.notes.append(f"example / corpus τ on that common set: {common}")
    return table


def exec_table(report: dict[str, Any]) -> Table | None:
    rows = [m for m in report["metrics"] if m.get("exec") or m.get("passability")]
    if not rows:
        return None
    threshold = report["settings"]["threshold"]
    table = Table(
        f"Exec and Passability (threshold {threshold})",
        ["Metric", "Exec P", "Exec R", "Exec F1", "Exec acc", "Exec AUROC", "Pass agree", "Pass κ"],
    )
    for m in rows:
        ex = m.get("exec") or {}
        pa = m.get("passability") or {}
        table.rows.append(
            [m["name"]]
            + [fmt(ex.get(k)) for k in ("precision", "recall", "f1", "accuracy", "auroc")]
            + [fmt(pa.get("agreement")), fmt(pa.get("kappa"))]
        )
    table.notes.append(
        f"{fmt(report['data']['exec_rate'])} of samples are executable, "
        f"{fmt(report['data']['pass_rate'])} pass every test."
    )
    return table


def _grade_selection_table(report: dict[str, Any], label: str) -> Table:
    """Best-of-n against a human grade: the mean grade of each problem's top-ranked sample."""
    table = Table(
        "Best-of-n selection (top-ranked sample per problem)", ["Metric", f"mean {label}"]
    )
    reference = None
    for m in report["metrics"]:
        best = m["best_of_n"][label]
        reference = reference or best
        table.rows.append([m["name"], fmt(best["selected"])])
    if reference:
        for who in ("random", "oracle"):
            table.rows.append([f"({who})", fmt(reference[who])])
    table.notes.append(
        "ties at the top count as a uniform random pick among them (expected value)."
    )
    return table


def selection_table(report: dict[str, Any]) -> Table:
    label = report["settings"]["label"]
    if label == "usefulness":
        return _grade_selection_table(report, label)
    table = Table(
        "Best-of-n selection (top-ranked sample per problem)",
        ["Metric", "pass rate", "mean PassRatio", "AUROC vs passed"],
    )
    reference = None
    for m in report["metrics"]:
        best = m["best_of_n"]
        reference = reference or best
        table.rows.append(
            [
                m["name"],
                fmt(best["passed"]["selected"]),
                fmt(best["pass_ratio"]["selected"]),
                fmt(m["auroc_passed"]),
            ]
        )
    if reference:
        for who in ("random", "oracle"):
            table.rows.append(
                [f"({who})", fmt(reference["passed"][who]), fmt(reference["pass_ratio"][who]), ""]
            )
    table.notes.append(
        "ties at the top count as a uniform random pick among them (expected value)."
    )
    return table


def system_table(report: dict[str, Any]) -> Table | None:
    """Generator mean score vs generator pass rate, across generators (WMT's system level)."""
    system = report.get("system_level")
    if not system:
        return None
    rates = [s["pass_rate"] for s in system["systems"]]
    target = system.get("target", "pass rate")
    title = (
        f"System level: each generator's mean score vs its {target} "
        f"({system['n_systems']} generators)"
    )
    table = Table(title, ["Metric", "generators", "τ", "r"])
    for name, m in system["metrics"].items():
        table.rows.append(
            [
                name,
                str(m["n_systems"]),
                _with_ci(m["kendall"], m.get("kendall_ci")),
                _with_ci(m["pearson"], m.get("pearson_ci")),
            ]
        )
    conf = int(round(100 * system["confidence"]))
    if system["n_resamples"]:
        table.notes.append(
            f"[{conf}% bootstrap CI, {system['n_resamples']} resamples of the generators]"
        )
    if target != "pass rate":
        table.notes.append(
            f"{target} over a generator's programs ({fmt(min(rates))} to {fmt(max(rates))}); "
            f"mean score over the programs the metric scored."
        )
        return table
    table.notes.append(
        f"pass rate = mean of `passed` over a generator's programs ({fmt(min(rates))} to "
        f"{fmt(max(rates))}); mean score over the programs the metric scored. Generators "
        f"from {system.get('generators_from') or 'n/a'}."
    )
    return table


def time_table(report: dict[str, Any]) -> Table:
    n = report["data"]["n_samples"]
    table = Table("Time", ["Metric", "wall s", "s / 1k samples", "note"])
    for m in report["metrics"]:
        seconds = m["seconds"]
        per_k = None if seconds is None else 1000.0 * seconds / max(n, 1)
        note = m.get("time_note") or ""
        table.rows.append([m["name"], fmt(seconds, 2), fmt(per_k, 2), note])
    execution = report.get("execution_cost") or {}
    table.rows.append(
        ["(execute the tests)", fmt(execution.get("seconds"), 2), "", execution.get("note", "")]
    )
    return table


def build_tables(report: dict[str, Any]) -> list[Table]:
    """All tables of a report, in display order."""
    tables = [
        corpus_table(report),
        example_table(report),
        paired_table(report),
        exec_table(report),
        selection_table(report),
        system_table(report),
        time_table(report),
    ]
    return [t for t in tables if t is not None]
