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

Beside the verdict, for each set: best-of-n (pass@1 of each metric's top-scored candidate per
problem, against random choice and the oracle; ``evaluate.py``'s ``best_of_n``) and, where the
evaluation grouped rows by generator (``generators=`` of evaluate.py), the system-level table
(each generator's mean score vs its pass rate, tau and r across generators with bootstrap
intervals over generators). For HE-Eval, the reference-free table: CodeScore NL-only (when the
checkpoint has that format) beside a seeded random score (expected example-level tau 0) and any
reference-free scores passed in (``--reference-free-scores FILE.jsonl``, keyed by row id, or
``--reference-free-columns NAME`` for columns already in the HE-Eval report).

The fine-tuned setting (the paper's second HE-Eval setting; issue 43 item 5), with
``--finetuned-he DIR [--finetuned-he-multi DIR] --finetuned-checkpoint PATH``: the evaluations of
the model trained with HumanEval problems 0-81, on problems 82-163 only, each holding the
zero-shot model's columns for the same rows (``zero-shot <column>``, scripts/zero_shot_scores.py).
Its section has the same tables and verdict (the zero-shot columns are no baseline), and the
paired difference fine-tuned minus zero-shot on the same problem resamples.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import yaml

from unice.evaluation.errors import EvaluationError
from unice.evaluation.quality_tables import (
    FORMAT_NAMES,
    against_zero_shot,
    against_zero_shot_lines,
    cell,
    mark_zero_shot,
    reference_free,
    reference_free_lines,
    selection,
    selection_lines,
    summarise,
    system_level,
    system_lines,
    table,
    verdict,
    verdict_lines,
)
from unice.evaluation.reference_free import score_after

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT = ROOT / "configs" / "experiment" / "zeroshot_cpu.yaml"
DEFAULT_PRIMARY = "ref_nl"
HE_EVAL = "HE-Eval (CodeGen-16B)"
HE_MULTI = "HumanEval, 39 other generators"


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


def set_section(
    title: str,
    folder: Path,
    primary: str,
    heading: str = "##",
    free: tuple[list[Path], list[str], int] | None = None,
    finetuned: bool = False,
) -> tuple[dict[str, Any], list[str]]:
    """One evaluated set's part of the report: (its report.json entry, its markdown lines).

    ``free`` (reference-free score files, column names, random seed) adds the reference-free
    table; ``finetuned`` reads the zero-shot columns of a fine-tuned evaluation as such and adds
    the fine-tuned-minus-zero-shot table.
    """
    report = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    zero_shot = mark_zero_shot(report) if finetuned else []
    rows = summarise(report)
    check = verdict(rows, primary, report.get("paired"))
    entry: dict[str, Any] = {
        "report": str(folder / "report.json"),
        "label": report["settings"].get("label", "pass_ratio")
        if isinstance(report.get("settings"), dict)
        else "pass_ratio",
        "data": report["data"],
        "metrics": rows,
        "verdict": check,
    }
    lines = ["", f"{heading} {title}", "", f"`{folder}/report.md` has CIs, Exec metrics and plots."]
    if zero_shot:
        lines += [
            "",
            f"{', '.join(zero_shot)}: the zero-shot model's scores of the same programs (a "
            "CodeScore model beside the fine-tuned one, not a baseline).",
        ]
    lines.append("")
    lines += table(rows)
    lines.append("")
    lines += verdict_lines(check)
    if finetuned:
        entry["against_zero_shot"] = against_zero_shot(report, primary)
        lines += against_zero_shot_lines(entry["against_zero_shot"], primary)
    extra: list[dict[str, Any]] = []
    if free is not None:
        files, named, seed = free
        note = ""
        try:
            extra = score_after(report, files, seed, root=ROOT)
        except EvaluationError as exc:
            if files:  # asked for explicitly: no silent omission
                raise SystemExit(f"error: --reference-free-scores: {exc}") from None
            note = f"Random score not computed: {exc}"
        entry["reference_free"] = reference_free(report, extra, named)
        lines += reference_free_lines(entry["reference_free"], note)
    entry["best_of_n"] = selection(report, extra)
    lines += selection_lines(entry["best_of_n"])
    entry["system_level"] = system_level(report)
    lines += system_lines(entry["system_level"], primary)
    return entry, lines


def training_lines(checkpoint: Path, title: str) -> tuple[dict[str, Any] | None, list[str]]:
    """The run's ``metrics.json`` (beside its ``best`` folder) and its best dev figures."""
    metrics_file = checkpoint.parent / "metrics.json"
    if not metrics_file.is_file():
        return None, []
    training = json.loads(metrics_file.read_text(encoding="utf-8"))
    best = {k: v for k, v in training.items() if k.startswith("best/")}
    return training, ["", title, "", ", ".join(f"{k[5:]} {cell(v)}" for k, v in best.items())]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--checkpoint", type=Path, required=True)
    parser.add_argument("--he", type=Path, required=True, help="evaluate.py output folder")
    parser.add_argument("--he-multi", type=Path, help="evaluate.py output folder")
    parser.add_argument("--total-seconds", type=float)
    parser.add_argument("--timings", nargs="*", default=[], help="stage=seconds pairs")
    parser.add_argument(
        "--reference-free-scores",
        nargs="*",
        default=[],
        type=Path,
        help="JSONL files {id, <metric>: float|null} of reference-free scores of the HE-Eval rows",
    )
    parser.add_argument(
        "--reference-free-columns",
        nargs="*",
        default=[],
        help="columns of the HE-Eval report that are reference-free (e.g. a judge without reference)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the random score")
    parser.add_argument(
        "--experiment",
        type=Path,
        default=EXPERIMENT,
        help="config whose protocol.primary_format names the verdict's column",
    )
    parser.add_argument("--finetuned-checkpoint", type=Path, help="the fine-tuned run's best")
    parser.add_argument(
        "--finetuned-he", type=Path, help="evaluate.py output folder: fine-tuned model, HE-Eval"
    )
    parser.add_argument(
        "--finetuned-he-multi", type=Path, help="the same on the 39 generators' programs"
    )
    parser.add_argument("--finetuned-tasks", default="82-163", help="the problems scored there")
    args = parser.parse_args()
    primary = primary_column(args.experiment)
    if (args.finetuned_he_multi or args.finetuned_checkpoint) and not args.finetuned_he:
        raise SystemExit("error: the fine-tuned setting needs --finetuned-he (its HE-Eval folder)")

    sets = {HE_EVAL: args.he}
    if args.he_multi:
        sets[HE_MULTI] = args.he_multi
    result: dict[str, Any] = {
        "checkpoint": str(args.checkpoint),
        "primary_column": primary,
        "sets": {},
    }
    title = "zero-shot and fine-tuned" if args.finetuned_he else "zero-shot"
    lines = [f"# `make quality`: CodeScore {title} on HumanEval", ""]
    lines.append(
        f"Checkpoint `{args.checkpoint}` (trained by `+experiment=zeroshot_cpu` on real MBPP and "
        "generations (and APPS with WITH_APPS=1); no HumanEval problem in training). Every row of a "
        "table is scored on the same programs. The verdict reads the primary column, "
        f"{primary} (`protocol.primary_format` of `{args.experiment.name}`), only. Example τ is "
        "the mean over the problems where every metric is defined; MAE is given for CodeScore "
        "only (trained to output PassRatio; the baselines are calibrated to nothing here)."
    )
    for title, folder in sets.items():
        free = (
            (args.reference_free_scores, args.reference_free_columns, args.seed)
            if title == HE_EVAL
            else None
        )
        entry, section = set_section(title, folder, primary, "##", free)
        result["sets"][title] = entry
        lines += section
    he_rows = result["sets"][HE_EVAL]["metrics"]
    ref_nl = next((r for r in he_rows if r["name"] == "CodeScore (Ref&NL)"), None)
    if ref_nl:
        lines += [
            "",
            "Paper's UniXcoder zero-shot HE-Eval (Ref&NL): corpus τ .500, ρ .660, MAE .218; here "
            f"τ {cell(ref_nl['corpus_kendall'])}, ρ {cell(ref_nl['corpus_spearman'])}, "
            f"MAE {cell(ref_nl['mae'])}.",
        ]
    training, section = training_lines(
        args.checkpoint, "## Training (dev split of the training mix)"
    )
    if training is not None:
        result["training"] = training
        lines += section
    if args.finetuned_he:
        tasks = args.finetuned_tasks
        finetuned: dict[str, Any] = {
            "checkpoint": str(args.finetuned_checkpoint or ""),
            "tasks": tasks,
            "sets": {},
        }
        lines += [
            "",
            f"## Fine-tuned setting (problems {tasks})",
            "",
            f"Checkpoint `{args.finetuned_checkpoint}` (`+experiment=finetuned_cpu`: the zero-shot "
            "run's configuration and training data plus the CodeGen-16B samples of HumanEval "
            f"problems outside {tasks}). Only problems {tasks} are scored, the same rows for "
            "every column, the zero-shot model's included; the paired intervals compare on "
            "those problems alone.",
        ]
        ft_sets = {HE_EVAL: args.finetuned_he}
        if args.finetuned_he_multi:
            ft_sets[HE_MULTI] = args.finetuned_he_multi
        for title, folder in ft_sets.items():
            entry, section = set_section(
                f"Fine-tuned: {title}, problems {tasks}", folder, primary, "##", finetuned=True
            )
            finetuned["sets"][title] = entry
            lines += section
        if args.finetuned_checkpoint:
            training, section = training_lines(
                args.finetuned_checkpoint,
                "## Fine-tuned training (dev split of the mix, HumanEval dev problems included)",
            )
            if training is not None:
                finetuned["training"] = training
                lines += section
        result["finetuned"] = finetuned
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
