"""The dataset card (``README.md``) and the PassRatio histogram written next to the splits."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from data_builders.dataset.decontaminate import card_lines
from data_builders.dataset.splits import SPLITS


@dataclass(frozen=True)
class CardExtras:
    """What one dataset adds to the generic ``stats.json`` and card (which name no dataset:
    each dataset's module makes its extras, :func:`data_builders.dataset.datasets.card_extras`
    finds them).

    Attributes:
        title: the dataset's name in the card's heading (``HE-Eval``, ``HE-Eval-X C++``);
            empty: the ``dataset`` field of ``stats.json``.
        command: the ``build`` arguments that make it (``humaneval-x --language cpp``);
            empty: the ``dataset`` field.
        stats: extra ``stats.json`` entries, each computed from the kept task records
            (written after ``decontamination``, in this order).
        sections: card sections, each lines from the final statistics, placed after the
            extended-tests paragraph and before "Provenance".
    """

    title: str = ""
    command: str = ""
    stats: Mapping[str, Callable[[Sequence[Mapping[str, Any]]], Any]] = field(default_factory=dict)
    sections: Sequence[Callable[[Mapping[str, Any]], list[str]]] = ()


def _fmt(value: float) -> str:
    return f"{value:.4f}".lstrip("0") if 0 <= value < 1 else f"{value:.4f}"


def render_card(stats: Mapping[str, Any], extras: CardExtras | None = None) -> str:
    """Markdown card: the paper's dataset-table columns, the extension summary, ``extras``'
    sections, provenance."""
    extras = extras or CardExtras()
    name = extras.title or stats["dataset"]
    command = extras.command or stats["dataset"]
    splits = stats["splits"]
    ext = stats["extension"]
    lines = [
        f"# {name} (built by `python -m data_builders build {command}`)",
        "",
        "One JSON line per candidate program: `id`, `task_id`, `nl` (the task as the generator",
        "saw it), `reference` and `generated` (the code without that prompt), `program` (what was",
        "executed), `pass_ratio`, `executable`, `passed`, `base_passed`, `n_tests`, `source`,",
        "`status_counts`. Labels come from running every candidate in the sandboxed executor on",
        "the extended tests; `base_passed` is the verdict on the original tests only.",
        'Load with `datasets.load_dataset("json", data_files={"train": "train.jsonl", ...})`.',
        "",
        "| split | tasks | samples | NL / Ref / Gen per task | tests ext (orig) | "
        "avg tokens NL / Ref / Gen | AvgPassRatio | Exec rate | Pass@1 base | Pass@1 ext |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for split in [*SPLITS, "overall"]:
        s = stats["overall"] if split == "overall" else splits[split]
        if not s["tasks"]:
            continue
        lines.append(
            f"| {split} | {s['tasks']:,} | {s['samples']:,} | 1 / 1 / {s['generated_per_task']:.1f}"
            f" | {s['tests_per_task_extended']:.1f} ({s['tests_per_task_original']:.1f})"
            f" | {s['avg_tokens_nl']:.0f} / {s['avg_tokens_reference']:.0f} / "
            f"{s['avg_tokens_generated']:.0f} | {_fmt(s['avg_pass_ratio'])} | "
            f"{_fmt(s['executable_rate'])} | {_fmt(s['pass_at_1_base'])} | "
            f"{_fmt(s['pass_at_1_extended'])} |"
        )
    overall = stats["overall"]
    lines += [
        "",
        f"Extended tests per task: mean {ext['mean_tests']:.1f}, min {ext['min_tests']}, "
        f"max {ext['max_tests']}; {ext['share_tasks_with_50_plus']:.1%} of tasks have 50 or "
        f"more. Of {overall['base_passing']:,} programs that pass the original tests, "
        f"{overall['base_passing_exposed']:,} fail an extended test. Per-task counts are in "
        "`stats.json` (`tests_per_task`).",
        "",
        *(line for section in extras.sections for line in section(stats)),
        "## Provenance",
        "",
        f"- candidates: {', '.join(stats['candidate_sources']) or 'none'}",
        f"- split by problem, seed {stats['seed']}, ratios train/dev/test "
        f"{' / '.join(f'{r:.2f}' for r in stats['split_ratios'])}",
        f"- builder config fingerprint `{stats['config_fingerprint']}` "
        "(full settings in `stats.json`)",
        "- tokens: identifiers, numbers and single punctuation characters (not a model's BPE)",
        "",
        *card_lines(stats.get("decontamination") or {}, stats["dataset"]),
        "![PassRatio per split](pass_ratio.png)",
        "",
    ]
    return "\n".join(lines)


def plot_pass_ratio(rows_by_split: Mapping[str, Sequence[Mapping[str, Any]]], path: Path) -> None:
    """Histogram of PassRatio per split: the label distribution a metric is trained on."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    bins = [i / 20 for i in range(21)]
    for split in SPLITS:
        values = [r["pass_ratio"] for r in rows_by_split.get(split, [])]
        if values:
            ax.hist(values, bins=bins, alpha=0.5, label=f"{split} ({len(values):,})")
    ax.set_xlabel("PassRatio on extended tests")
    ax.set_ylabel("programs")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)
