"""The system-level diagnosis written out: a markdown report, a plot and its JSON.

Split from :mod:`unice.evaluation.system_diagnosis` (which computes the diagnosis) so that
each module has one job: that one reads rows and computes figures, this one presents them.
``scripts/system_diagnosis.py`` and ``scripts/system_level_dev.py`` call :func:`write`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from unice.evaluation.report import to_jsonable
from unice.evaluation.system_diagnosis import VARIANTS


def _num(value: float | None, digits: int = 3) -> str:
    if value is None or not np.isfinite(value):
        return "n/a"
    return f"{value:.{digits}f}"


def _ci(interval: Sequence[float] | None) -> str:
    if not interval or not all(np.isfinite(v) for v in interval):
        return ""
    return f" [{interval[0]:.2f}, {interval[1]:.2f}]"


def _figure(figure: Mapping[str, Any] | None) -> str:
    if figure is None:
        return "not computed"
    return f"{_num(figure['kendall'])}{_ci(figure['kendall_ci_generators'])}"


def focus_metrics(diagnosis: Mapping[str, Any], limit: int = 6) -> list[str]:
    """The columns the per-generator table and the plot show: CodeScore's and CodeBLEU first,
    then the other columns by raw tau (every column stays in the JSON)."""
    raw = diagnosis["variants"]["raw"]
    ordered = sorted(raw, key=lambda n: -np.nan_to_num(raw[n]["kendall"], nan=-9.0))
    first = [n for n in ordered if n.startswith("CodeScore") or n == "CodeBLEU"]
    return (first + [n for n in ordered if n not in first])[:limit]


def to_markdown(diagnosis: Mapping[str, Any], title: str = "System-level diagnosis") -> str:
    """The report: the four taus of every column, the target's own confound, the most
    misplaced generators, and the per-generator table of the focus columns."""
    d = diagnosis
    lines = [
        f"# {title}",
        "",
        f"{d['n_rows']} rows, {d['n_problems']} problems, {d['n_generators']} generators "
        f"({d['source'].get('data')}, {d['source'].get('split')}; scores {d['source'].get('scores')}"
        + (f"; generators {', '.join(d['source']['only'])}" if d["source"].get("only") else "")
        + f"). Intervals: 95% percentile bootstrap, {d['n_resamples']} resamples, "
        "over generators (G) and over problems (P).",
        "",
        "How much of the pass-rate order is coverage: τ(pass rate, coverage) "
        f"{_num(d['target']['tau_pass_rate_coverage'])}, τ(pass rate, relative) "
        f"{_num(d['target']['tau_pass_rate_relative'])}, τ(pass rate, length) "
        f"{_num(d['target']['tau_pass_rate_length'])} (coverage: the pass rate of the "
        "generator's problems over all generators; relative: its pass rate minus that; "
        "length: the median of its programs' characters over their reference's; the last "
        "column: across problems, each problem's mean score vs its pass rate).",
        "",
        "| metric | raw τ (G) (P) | centred both τ (G) | centred scores vs raw pass rate τ (G) | "
        f"common problems τ (G) [{d['n_common_problems']} problems] | τ(mean, coverage) | "
        "τ(mean, relative) | τ(mean, length) | problems: τ(mean, pass rate) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    variants = d["variants"]
    for name in sorted(
        d["metrics"], key=lambda n: -np.nan_to_num(variants["raw"][n]["kendall"], nan=-9.0)
    ):
        raw = variants["raw"][name]
        centred, scores, common = ((variants[v] or {}).get(name) for v in VARIANTS[1:])
        lines.append(
            f"| {name} | {_num(raw['kendall'])}{_ci(raw['kendall_ci_generators'])}"
            f"{_ci(raw['kendall_ci_problems'])} | {_figure(centred)} | {_figure(scores)} | "
            + (
                f"{_num(common['kendall'])}{_ci(common['kendall_ci_generators'])}"
                if common
                else "not computed"
                + (f" (< {d['min_common']} problems)" if variants["common"] is None else "")
            )
            + f" | {_num(d['metrics'][name]['tau_with_coverage'])} | "
            f"{_num(d['metrics'][name]['tau_with_relative'])} | "
            f"{_num(d['metrics'][name]['tau_with_length'])} | "
            f"{_num(d['metrics'][name]['tau_problem_level'])} |"
        )
    focus = focus_metrics(d)
    lines += ["", "## Most misplaced generators (rank 1 = best; displacement = metric − pass)", ""]
    for name in focus:
        worst = ", ".join(
            f"{m['generator']} ({m['pass_rank']:.0f}→{m['rank']:.0f})"
            for m in d["metrics"][name]["misplaced"]
        )
        lines.append(f"- **{name}**: {worst}")
    lines += [
        "",
        "## Per generator (sorted by pass rate)",
        "",
        "| generator | rows | problems | pass rate | coverage | relative | length | "
        "over window | " + " | ".join(f"{n}: mean (rank, Δ)" for n in focus) + " |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" + " --- |" * len(focus),
    ]
    order = sorted(range(len(d["generators"])), key=lambda i: d["generators"][i]["pass_rank"])
    for i in order:
        g = d["generators"][i]
        cells = [
            f"{_num(d['metrics'][n]['means'][i])} ({d['metrics'][n]['ranks'][i]:.0f}, "
            f"{d['metrics'][n]['displacement'][i]:+.0f})"
            if np.isfinite(d["metrics"][n]["ranks"][i])
            else "n/a"
            for n in focus
        ]
        lines.append(
            f"| {g['name']} | {g['rows']} | {g['problems']} | {g['pass_rate']:.3f} | "
            f"{g['coverage']:.3f} | {g['relative']:+.3f} | {_num(g['length_ratio'], 2)} | "
            f"{_num(g.get('over_window'), 2)} | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines) + "\n"


def plot(diagnosis: Mapping[str, Any], path: Path) -> Path:
    """Per focus column: generator mean vs pass rate (raw), and centred mean vs relative pass
    rate (coverage taken out of both sides), each generator coloured by its coverage."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    focus = focus_metrics(diagnosis)
    generators = diagnosis["generators"]
    pass_rate = np.asarray([g["pass_rate"] for g in generators])
    relative = np.asarray([g["relative"] for g in generators])
    coverage = np.asarray([g["coverage"] for g in generators])
    fig, axes = plt.subplots(
        2, len(focus), figsize=(3.4 * len(focus) + 1, 7), squeeze=False, layout="constrained"
    )
    for col, name in enumerate(focus):
        metric = diagnosis["metrics"][name]
        for row, (x, y, variant, xlabel) in enumerate(
            (
                (pass_rate, metric["means"], "raw", "pass rate"),
                (relative, metric["centred_means"], "centred", "relative pass rate"),
            )
        ):
            ax = axes[row][col]
            y = np.asarray([math.nan if v is None else v for v in y], dtype=float)
            points = ax.scatter(x, y, c=coverage, cmap="viridis", s=16, vmin=0, vmax=1)
            tau = (diagnosis["variants"][variant] or {}).get(name, {}).get("kendall")
            ax.set_title(f"{name}\n{variant}: τ {_num(tau)}", fontsize=8)
            ax.set_xlabel(xlabel, fontsize=8)
            ax.set_ylabel("generator mean score", fontsize=8)
            ax.tick_params(labelsize=7)
    fig.colorbar(points, ax=axes, shrink=0.6, label="coverage (its problems' pass rate)")
    fig.suptitle(f"System level: {diagnosis['n_generators']} generators", fontsize=10)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write(diagnosis: Mapping[str, Any], out: Path, title: str) -> list[Path]:
    """``diagnosis.json``, ``diagnosis.md`` and ``diagnosis.png`` under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "diagnosis.json").write_text(json.dumps(to_jsonable(diagnosis), indent=1) + "\n")
    (out / "diagnosis.md").write_text(to_markdown(diagnosis, title))
    return [out / "diagnosis.json", out / "diagnosis.md", plot(diagnosis, out / "diagnosis.png")]
