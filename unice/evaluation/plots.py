"""PNG figures of a run: predicted vs true PassRatio, Exec reliability, correlation bars.

matplotlib's Agg backend is used explicitly so plotting works on headless machines and in CI.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from unice.evaluation.columns import MetricColumn  # noqa: E402
from unice.metrics import CORRELATIONS  # noqa: E402

HEXBIN_MIN_SAMPLES = 300


def _grid(n: int) -> tuple[plt.Figure, np.ndarray]:
    cols = min(n, 3)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 4 * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, axes.flat


def plot_predicted_vs_true(
    columns: Sequence[MetricColumn], pass_ratio: np.ndarray, path: Path
) -> Path | None:
    """Hexbin (many samples) or scatter of each [0, 1] metric against the true PassRatio."""
    chosen = [c for c in columns if c.kind == "codescore"] or [
        c for c in columns if c.unit_interval
    ]
    if not chosen:
        return None
    fig, axes = _grid(len(chosen[:6]))
    for ax, column in zip(axes, chosen[:6], strict=False):
        keep = np.isfinite(column.scores)
        x, y = pass_ratio[keep], column.scores[keep]
        if x.size >= HEXBIN_MIN_SAMPLES:
            ax.hexbin(x, y, gridsize=25, extent=(0, 1, 0, 1), bins="log", cmap="viridis", mincnt=1)
        else:
            ax.scatter(x, y, s=12, alpha=0.6)
        ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--")
        ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), title=column.name)
        ax.set_xlabel("true PassRatio")
        ax.set_ylabel("predicted")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def reliability_bins(
    probs: np.ndarray, labels: np.ndarray, n_bins: int = 10
) -> dict[str, np.ndarray]:
    """Mean predicted probability, observed frequency and count per equal-width bin."""
    keep = np.isfinite(probs)
    probs, labels = probs[keep], labels[keep].astype(np.float64)
    index = np.minimum((probs * n_bins).astype(int), n_bins - 1)
    counts = np.bincount(index, minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_prob = np.bincount(index, weights=probs, minlength=n_bins) / counts
        observed = np.bincount(index, weights=labels, minlength=n_bins) / counts
    return {"mean_prob": mean_prob, "observed": observed, "count": counts}


def plot_exec_reliability(
    columns: Sequence[MetricColumn], executable: np.ndarray, path: Path
) -> Path | None:
    """Reliability diagram of the Exec probability of each CodeScore format."""
    chosen = [c for c in columns if c.exec_probs is not None]
    if not chosen:
        return None
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.plot([0, 1], [0, 1], color="grey", lw=1, ls="--", label="perfectly calibrated")
    for column in chosen:
        bins = reliability_bins(column.exec_probs, executable)
        filled = bins["count"] > 0
        gaps = np.abs(bins["mean_prob"][filled] - bins["observed"][filled])
        ece = float((gaps * bins["count"][filled]).sum() / bins["count"][filled].sum())
        (line,) = ax.plot(
            bins["mean_prob"][filled],
            bins["observed"][filled],
            label=f"{column.name} (ECE {ece:.3f})",
        )
        sizes = 15 + 120 * bins["count"][filled] / bins["count"].max()  # marker area ~ bin size
        ax.scatter(
            bins["mean_prob"][filled], bins["observed"][filled], s=sizes, color=line.get_color()
        )
    ax.set(xlim=(0, 1), ylim=(0, 1), title="Exec reliability (marker size = samples in bin)")
    ax.set_xlabel("predicted Exec probability (bin mean)")
    ax.set_ylabel("fraction executable")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _figure(metric: dict[str, Any], level: str, corr: str) -> float:
    """Corpus value, or the example-level nanmean; ``nan`` when undefined."""
    value = metric["corpus"][corr] if level == "corpus" else metric["example"]["skipped"][corr]
    return np.nan if value is None else float(value)


def _bars(ax: plt.Axes, metrics: list[dict[str, Any]], level: str) -> None:
    height = 0.8 / len(CORRELATIONS)
    positions = np.arange(len(metrics))
    for i, corr in enumerate(CORRELATIONS):
        values = np.array([_figure(m, level, corr) for m in metrics])
        errors = np.zeros((2, len(metrics)))
        for j, m in enumerate(metrics):
            ci = ((m.get("ci") or {}).get(level) or {}).get(corr)
            if ci and ci[0] is not None and np.isfinite(values[j]):
                errors[:, j] = [max(values[j] - ci[0], 0), max(ci[1] - values[j], 0)]
        offsets = positions + (i - 1) * height
        ax.barh(offsets, np.nan_to_num(values), height, xerr=errors, capsize=2, label=corr)
    ax.set_yticks(positions, [m["name"] for m in metrics], fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0, color="black", lw=0.8)


def plot_correlation_bars(metrics: list[dict[str, Any]], path: Path) -> Path | None:
    """Corpus- and example-level correlations per metric with their bootstrap intervals."""
    if not metrics:
        return None
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 1.2 + 0.45 * len(metrics)), sharey=True)
    _bars(left, metrics, "corpus")
    _bars(right, metrics, "example")
    left.set_title("corpus level")
    right.set_title("example level (nanmean)")
    left.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def best_baseline(system: dict[str, Any]) -> str | None:
    """The non-CodeScore column with the highest system-level Kendall tau (None: none defined)."""
    others = [
        (name, m["kendall"])
        for name, m in system["metrics"].items()
        if m.get("kind") != "codescore" and m["kendall"] is not None and np.isfinite(m["kendall"])
    ]
    return max(others, key=lambda item: item[1])[0] if others else None


def plot_system_level(system: dict[str, Any] | None, path: Path) -> Path | None:
    """Each generator's mean score against its pass rate: every CodeScore column and the
    other column (baseline, external) with the best system-level tau, one panel each."""
    if not system or not system["metrics"]:
        return None
    names = [n for n, m in system["metrics"].items() if m.get("kind") == "codescore"][:5]
    best = best_baseline(system)
    if best:
        names.append(best)
    if not names:
        return None
    pass_rate = np.asarray([s["pass_rate"] for s in system["systems"]])
    fig, axes = _grid(len(names))
    for ax, name in zip(axes, names, strict=False):
        metric = system["metrics"][name]
        means = np.asarray([np.nan if v is None else v for v in metric["means"]], dtype=float)
        ax.scatter(pass_rate, means, s=18, alpha=0.75)
        label = "" if metric.get("kind") == "codescore" else " (best other metric)"
        ax.set_title(
            f"{name}{label}\nτ {_text(metric['kendall'])}, r {_text(metric['pearson'])}",
            fontsize=9,
        )
        ax.set_xlabel("generator pass rate")
        ax.set_ylabel("generator mean score")
    fig.suptitle(f"System level: {system['n_systems']} generators", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _text(value: float | None) -> str:
    return "n/a" if value is None or not np.isfinite(value) else f"{value:.3f}"
