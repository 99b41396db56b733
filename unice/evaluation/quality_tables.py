"""The tables and verdicts of `make quality`'s report, from `evaluate.py` reports.

Why a module of its own: ``scripts/quality_report.py`` reads the evaluations, picks the
primary column and writes the files; the figures it shows (one row per metric column, the
verdict of the primary column against every baseline with its paired intervals, best-of-n,
the reference-free table, the system-level table, fine-tuned minus zero-shot) are computed
and laid out here, each as a ``compute`` function returning JSON-ready data and a ``*_lines``
function writing its markdown.
"""

from __future__ import annotations

import math
from typing import Any

from unice.evaluation.codescore import FORMAT_COLUMNS
from unice.evaluation.reference_free import RANDOM

FORMAT_NAMES = {suffix[1:] or "avg": name for suffix, name in FORMAT_COLUMNS.items()}
"""``primary_format`` (``ref``, ``nl``, ``ref_nl``, ``avg``) -> evaluate.py's column name."""
NL_ONLY = FORMAT_NAMES["nl"]
ZERO_SHOT_PREFIX = "zero-shot "
"""The zero-shot model's columns in the fine-tuned evaluations (scripts/zero_shot_scores.py)."""
ZERO_SHOT_KIND = "zero-shot"
"""Their kind here: a CodeScore model, so neither a baseline in the verdict nor the primary."""
NOT_BASELINES = ("codescore", ZERO_SHOT_KIND)
TARGETS = {"kendall": 0.50, "spearman": 0.66, "mae": 0.22}
"""The paper's UniXcoder zero-shot HE-Eval figures (Ref&NL, L_Uni)."""


def _value(metric: dict[str, Any], level: str, name: str) -> float:
    if level == "corpus":
        value = metric["corpus"].get(name)
    else:
        value = metric["example"]["skipped"].get(name)
    return math.nan if value is None else float(value)


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
        mae = metric.get("mae") if metric["kind"] in NOT_BASELINES else None
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
    baselines = [r for r in rows if r["kind"] not in NOT_BASELINES]
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
            f"{cell(v['codescore_value'])}; best baseline {v['best_baseline']} "
            f"{cell(v['baseline_value'])}. Above every baseline? {mark}"
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
            interval = f"[{cell(c['low'])}, {cell(c['high'])}]" if c["low"] is not None else "—"
            lines.append(
                f"| {c['baseline']} | {cell(c['baseline_value'])} | {cell(c['difference'])} | "
                f"{interval} | {c['interval']} |"
            )
    return lines


def _finite(value: float) -> float:
    return value if value is not None and math.isfinite(value) else -math.inf


def cell(value: Any) -> str:
    """A number in the quality report's tables: three decimals, ``—`` where undefined (not
    :func:`unice.evaluation.tables.fmt`'s ``n/a``), as the report has always read."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "—"
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _ci(interval: Any) -> str:
    if not interval or interval[0] is None or interval[1] is None:
        return ""
    low, high = (float(v) for v in interval)
    if not (math.isfinite(low) and math.isfinite(high)):
        return ""
    return f" [{low:.2f}, {high:.2f}]"


def selection(report: dict[str, Any], extra: list[dict[str, Any]] = ()) -> dict[str, Any]:
    """Best-of-n from the report's ``best_of_n`` figures (and those of ``extra`` analyses):
    pass@1 and mean PassRatio of each metric's top-scored candidate per problem, with random
    choice (expected pass@1 = mean pass rate per problem) and the oracle (any passing one)."""
    metrics = list(report["metrics"]) + list(extra)
    if not metrics:
        return {}
    first = metrics[0]["best_of_n"]
    data = report.get("data") or {}
    return {
        "n_problems": first["passed"]["n_problems"],
        "candidates_per_problem": data["n_samples"] / data["n_problems"]
        if data.get("n_problems")
        else None,
        "random": first["passed"]["random"],
        "random_pass_ratio": first["pass_ratio"]["random"],
        "oracle": first["passed"]["oracle"],
        "oracle_pass_ratio": first["pass_ratio"]["oracle"],
        "rows": [
            {
                "name": m["name"],
                "kind": m["kind"],
                "pass_at_1": m["best_of_n"]["passed"]["selected"],
                "pass_ratio": m["best_of_n"]["pass_ratio"]["selected"],
            }
            for m in metrics
        ],
    }


def selection_lines(best: dict[str, Any]) -> list[str]:
    if not best:
        return []
    per = best["candidates_per_problem"]
    lines = [
        "",
        f"### Best-of-n: pass@1 of the top-scored candidate ({best['n_problems']} problems, "
        f"{per:.1f} candidates each)"
        if per
        else "### Best-of-n: pass@1 of the top-scored candidate",
        "",
        "| selector | pass@1 | − random choice | mean PassRatio of the pick |",
        "| --- | --- | --- | --- |",
    ]
    for row in best["rows"]:
        lines.append(
            f"| {row['name']} | {cell(row['pass_at_1'])} | "
            f"{_signed(row['pass_at_1'] - best['random'])} | {cell(row['pass_ratio'])} |"
        )
    lines += [
        f"| (random choice, expected) | {cell(best['random'])} | | "
        f"{cell(best['random_pass_ratio'])} |",
        f"| (oracle: any passing candidate) | {cell(best['oracle'])} | | "
        f"{cell(best['oracle_pass_ratio'])} |",
        "",
        "Ties at the top count as a uniform random pick among them (expected value).",
    ]
    return lines


def _signed(value: float) -> str:
    return "—" if not math.isfinite(value) else f"{value:+.3f}"


def reference_free(
    report: dict[str, Any], extra: list[dict[str, Any]] = (), named: list[str] = ()
) -> dict[str, Any]:
    """The reference-free columns of one set: CodeScore NL-only when the report has it, the
    report's columns ``named`` as reference-free, and the ``extra`` analyses (the random score
    and external files, :func:`unice.evaluation.reference_free.score_after`)."""
    by_name = {m["name"]: m for m in report["metrics"]}
    chosen = [by_name[n] for n in [NL_ONLY, *named] if n in by_name] + list(extra)
    rows = []
    for m in chosen:
        ci = (m.get("ci") or {}).get("example") or {}
        rows.append(
            {
                "name": m["name"],
                "kind": m["kind"],
                "n_scored": m.get("n_scored"),
                "example_kendall": _number(m["example"]["skipped"].get("kendall")),
                "example_kendall_ci": ci.get("kendall"),
                "corpus_kendall": _number(m["corpus"].get("kendall")),
                "auroc_passed": _number(m.get("auroc_passed")),
                "pass_at_1": m["best_of_n"]["passed"]["selected"],
                "expected_example_kendall": 0.0 if m["name"] == RANDOM else None,
            }
        )
    return {
        "nl_only": NL_ONLY in by_name,
        "missing": [n for n in named if n not in by_name],
        "rows": rows,
    }


def reference_free_lines(free: dict[str, Any], note: str = "") -> list[str]:
    lines = ["", "### Reference-free: what a user reranking samples without a reference gets", ""]
    if not free["nl_only"]:
        lines += [
            f"The checkpoint has no {NL_ONLY} column (it was trained without the `nl` format), "
            "so CodeScore has no reference-free figure here.",
            "",
        ]
    if free["missing"]:
        lines += [f"Not in the report (no column of that name): {', '.join(free['missing'])}.", ""]
    if note:
        lines += [note, ""]
    if not free["rows"]:
        return lines
    lines += [
        "| reference-free column | n | example τ [95% CI] | expected τ by chance | corpus τ "
        "| AUROC vs passed | best-of-n pass@1 |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in free["rows"]:
        expected = (
            cell(r["expected_example_kendall"]) if r["expected_example_kendall"] is not None else ""
        )
        lines.append(
            f"| {r['name']} | {r['n_scored']} | {cell(r['example_kendall'])}"
            f"{_ci(r['example_kendall_ci'])} | {expected} | {cell(r['corpus_kendall'])} | "
            f"{cell(r['auroc_passed'])} | {cell(r['pass_at_1'])} |"
        )
    lines += [
        "",
        "Example τ here is each column's mean over its own problems (nanmean), not the common "
        f"set of the table above. {RANDOM}: uniform scores from a fixed seed; its expected "
        "example-level τ is 0 and its expected pass@1 that of random choice, so its row shows "
        "how far one draw of chance moves both.",
    ]
    return lines


def system_level(report: dict[str, Any]) -> dict[str, Any] | None:
    """The report's system-level section, one row per metric; None when it has none."""
    system = report.get("system_level")
    if not system:
        return None
    rows = [
        {
            "name": name,
            "kind": m.get("kind"),
            "n_systems": m["n_systems"],
            "kendall": _number(m["kendall"]),
            "kendall_ci": m.get("kendall_ci"),
            "pearson": _number(m["pearson"]),
            "pearson_ci": m.get("pearson_ci"),
        }
        for name, m in system["metrics"].items()
    ]
    rows.sort(key=lambda r: r["kind"] not in NOT_BASELINES)  # CodeScore columns first, stable
    return {
        "n_systems": system["n_systems"],
        "n_resamples": system.get("n_resamples"),
        "confidence": system.get("confidence"),
        "unit": system.get("unit", "generators"),
        "pass_rates": [s["pass_rate"] for s in system["systems"]],
        "rows": rows,
    }


def system_lines(system: dict[str, Any] | None, primary: str) -> list[str]:
    if not system:
        return []
    if system["n_systems"] < 2:  # HE-Eval's rows all come from CodeGen-16B: nothing to correlate
        return []
    lines = [
        "",
        f"### System level ({system['n_systems']} generators)",
        "",
        "Each generator's mean score against its pass rate (mean of `passed` over its programs), "
        "correlated across generators: does the metric rank the generators as execution does?",
        "",
        "| metric | generators | τ [95% CI] | r [95% CI] |",
        "| --- | --- | --- | --- |",
    ]
    for r in system["rows"]:
        name = f"**{r['name']}**" if r["name"] == primary else r["name"]
        lines.append(
            f"| {name} | {r['n_systems']} | {cell(r['kendall'])}{_ci(r['kendall_ci'])} | "
            f"{cell(r['pearson'])}{_ci(r['pearson_ci'])} |"
        )
    ours = next((r for r in system["rows"] if r["name"] == primary), None)
    others = [r for r in system["rows"] if r["kind"] not in NOT_BASELINES]
    if ours and others:
        best = max(others, key=lambda r: _finite(r["kendall"]))
        lines += [
            "",
            f"Primary column {primary}: τ {cell(ours['kendall'])}; best baseline "
            f"{best['name']}: τ {cell(best['kendall'])}.",
        ]
    rates = [v for v in system["pass_rates"] if v is not None]
    conf = int(round(100 * (system.get("confidence") or 0.95)))
    lines += [
        "",
        f"Pass rates {cell(min(rates))} to {cell(max(rates))}. {conf}% percentile bootstrap over "
        f"generators ({system.get('n_resamples')} resamples, seeded): the sampling unit of a "
        "correlation across generators is the generator. Generators answer different subsets "
        "of the problems, so a pass rate is also a statement about which problems it answered.",
    ]
    return lines


def table(rows: list[dict[str, Any]]) -> list[str]:
    header = (
        "| metric | example τ (common) | example ρ (own problems) | corpus τ | corpus ρ | corpus r | MAE | Exec AUROC "
        "| wall s |"
    )
    lines = [header, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        cells = [r["name"]] + [
            cell(r[key])
            for key in (
                "example_kendall", "example_spearman", "corpus_kendall", "corpus_spearman",
                "corpus_pearson", "mae", "exec_auroc",
            )
        ]  # fmt: skip
        seconds = r["seconds"]
        cells.append(f"{seconds:.1f}" if isinstance(seconds, (int, float)) else "")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def mark_zero_shot(report: dict[str, Any], prefix: str = ZERO_SHOT_PREFIX) -> list[str]:
    """Give the zero-shot model's columns of a fine-tuned evaluation (external score files to
    evaluate.py) the kind :data:`ZERO_SHOT_KIND`, in the metrics and the system-level section, so
    no table takes them for a baseline; returns their names."""
    names = [m["name"] for m in report["metrics"] if m["name"].startswith(prefix)]
    for metric in report["metrics"]:
        if metric["name"] in names:
            metric["kind"] = ZERO_SHOT_KIND
    for name, metric in ((report.get("system_level") or {}).get("metrics") or {}).items():
        if name in names:
            metric["kind"] = ZERO_SHOT_KIND
    return names


def against_zero_shot(
    report: dict[str, Any], primary: str, prefix: str = ZERO_SHOT_PREFIX
) -> dict[str, Any]:
    """Fine-tuned minus zero-shot (the primary column of each) at both levels, with the paired
    interval of evaluate.py's bootstrap (the same problem resamples); empty without both."""
    zero_shot = prefix + primary
    paired = report.get("paired") or {}
    difference = ((paired.get("differences") or {}).get(primary) or {}).get(zero_shot)
    if not difference:
        return {}
    common = paired.get("common") or {}
    return {
        level: {
            "finetuned": _number((common.get(primary) or {}).get(level)),
            "zero_shot": _number((common.get(zero_shot) or {}).get(level)),
            "zero_shot_column": zero_shot,
            **difference[level],
        }
        for level in LEVELS
        if level in difference
    }


def against_zero_shot_lines(delta: dict[str, Any], primary: str) -> list[str]:
    if not delta:
        return []
    lines = [
        "",
        f"Fine-tuned {primary} minus the zero-shot model's, same rows, paired bootstrap over "
        "problems:",
        "",
        "| level | fine-tuned | zero-shot | difference [95% CI] | interval says |",
        "| --- | --- | --- | --- | --- |",
    ]
    for level, d in delta.items():
        lines.append(
            f"| {level.replace('_', ' ')} | {cell(d['finetuned'])} | {cell(d['zero_shot'])} | "
            f"{cell(d['difference'])} [{cell(d['low'])}, {cell(d['high'])}] | {d['verdict']} |"
        )
    return lines
