"""Issue 43 item 4: decide per-problem centring of the system-level scores on the transfer dev,
by the rule pre-registered in ``configs/system_level_dev.yaml`` (never on the 39-generator set).

For each held-out family (fold) of the transfer protocol: the family's programs of MBPP's dev
problems (every dev folder), scored by that fold's checkpoint (runs/transfer/<arm>/<fold>/best;
a frozen encoder reads the fold's feature cache) and by the fast baselines (evaluate.py), and
compute the system-level tau of each column raw and with the scores centred per
problem (scripts/system_diagnosis.py's figures). Then the rule's verdict.

    python scripts/system_level_dev.py            # score the folds whose checkpoints exist, table
    python scripts/system_level_dev.py --table    # only the table of what has been scored

Writes <out>/<arm>/<fold>/{dev_rows.jsonl, codescore.jsonl, eval/ (evaluate.py's folder),
diagnosis/} and <out>/<arm>/table.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import unice  # noqa: E402
from data_builders.jsonl import iter_jsonl, write_jsonl  # noqa: E402
from unice.data.families import family_of, load_families  # noqa: E402
from unice.evaluation.codescore import FORMAT_COLUMNS  # noqa: E402
from unice.evaluation.data import load_split  # noqa: E402
from unice.evaluation.report import to_jsonable  # noqa: E402
from unice.evaluation.system_diagnosis import diagnose, read_evaluation  # noqa: E402
from unice.evaluation.system_diagnosis_report import write  # noqa: E402
from unice.training.feature_cache import open_feature_cache  # noqa: E402

CONFIG = ROOT / "configs" / "system_level_dev.yaml"


def protocol(path: Path = CONFIG) -> dict[str, Any]:
    return OmegaConf.to_container(OmegaConf.load(path).protocol, resolve=True)  # type: ignore[return-value]


def fold_folder(settings: dict[str, Any], fold: str) -> Path:
    return ROOT / settings["out"] / settings["arm"] / fold


def checkpoint(settings: dict[str, Any], fold: str) -> Path | None:
    """The fold's exported checkpoint once its run has finished (metrics.json written)."""
    run = ROOT / settings["runs"] / settings["arm"] / fold
    return run / "best" if (run / "best").is_dir() and (run / "metrics.json").is_file() else None


def family_rows(settings: dict[str, Any], fold: str) -> list[dict[str, Any]]:
    """The held-out family's dev rows of every dev folder, ids prefixed with the folder's name
    (both folders number their samples ``TASK::samples::k``)."""
    families = load_families(ROOT / settings["families"])  # the family training held out
    rows = []
    for data in settings["dev_dirs"]:
        for _, row in iter_jsonl(ROOT / data / f"{settings['split']}.jsonl", what="dev row"):
            if family_of(str(row.get("generator") or ""), families) == fold:
                rows.append({**row, "id": f"{Path(data).name}/{row['id']}"})
    return rows


def codescore_scores(ckpt: Path, rows_file: Path, out: Path) -> None:
    """The checkpoint's CodeScore columns of the rows, as a ``scores=`` file. A frozen
    encoder reads the training runs' feature cache (trainer.feature_cache: auto), where every
    dev text was encoded while the fold trained: the same states, without encoding again."""
    data = load_split(rows_file, "dev")
    model = unice.load_model(ckpt, device="cpu")
    if model.config.freeze_encoder:
        model.use_feature_cache(open_feature_cache(model, "auto"))
    scored = model.score(
        generated=data.generated,
        references=[r or None for r in data.references],
        nls=[n or None for n in data.nls],
        languages=data.languages,
        batch_size=32,
        progress=True,
    )
    write_jsonl(
        out,
        [
            to_jsonable(
                {
                    "id": i,
                    **{
                        name: row.get(f"codescore{suffix}")
                        for suffix, name in FORMAT_COLUMNS.items()
                    },
                }
            )
            for i, row in zip(data.ids, scored, strict=True)
        ],
    )


def score_fold(settings: dict[str, Any], fold: str, ckpt: Path) -> Path:
    """The family's dev rows scored by the fold's checkpoint and the fast baselines
    (evaluate.py's folder; skipped when done)."""
    folder = fold_folder(settings, fold)
    out = folder / "eval"
    if (out / "scores.jsonl").is_file() and (out / "report.json").is_file():
        return out
    folder.mkdir(parents=True, exist_ok=True)
    rows_file, scores_file = folder / "dev_rows.jsonl", folder / "codescore.jsonl"
    write_jsonl(rows_file, family_rows(settings, fold))
    print(f"{fold}: scoring {rows_file} with {ckpt}", flush=True)
    codescore_scores(ckpt, rows_file, scores_file)
    command = [
        sys.executable, "evaluate.py", f"data={rows_file}", f"scores=[{scores_file}]",
        "label=passed", "baselines=fast", "bootstrap.n_resamples=0", "plots=false",
        "progress=false", f"output_dir={out}",
    ]  # fmt: skip
    print("$", " ".join(command), flush=True)
    subprocess.run(command, cwd=ROOT, check=True)
    return out


def fold_figures(settings: dict[str, Any], fold: str, evaluation: Path) -> dict[str, Any]:
    """The family's dev rows diagnosed; raw and centred tau per column."""
    rows = read_evaluation(evaluation).at_least(int(settings["min_rows"]))
    diagnosis = diagnose(rows, int(settings["n_resamples"]), int(settings["seed"]))
    write(diagnosis, fold_folder(settings, fold) / "diagnosis", f"Dev system level: {fold}")
    return {
        "n_generators": diagnosis["n_generators"],
        "n_rows": diagnosis["n_rows"],
        "raw": {n: m["kendall"] for n, m in diagnosis["variants"]["raw"].items()},
        "centred": {n: m["kendall"] for n, m in diagnosis["variants"]["centred_scores"].items()},
    }


def verdict(settings: dict[str, Any], figures: dict[str, dict[str, Any] | None]) -> dict[str, Any]:
    """The pre-registered rule on ``column``: mean over folds of centred minus raw tau."""
    column, margin = settings["column"], float(settings["margin"])
    if any(f is None for f in figures.values()):
        missing = [fold for fold, f in figures.items() if f is None]
        return {"decided": False, "why": f"no finished checkpoint for {', '.join(missing)}"}
    gains = [f["centred"][column] - f["raw"][column] for f in figures.values()]  # type: ignore[index]
    mean = statistics.fmean(gains)
    return {
        "decided": True,
        "gains": gains,
        "mean_gain": mean,
        "margin": margin,
        "adopted": mean > margin,
    }


def table(settings: dict[str, Any], figures: dict[str, dict[str, Any] | None]) -> str:
    done = {fold: f for fold, f in figures.items() if f}
    columns = sorted({c for f in done.values() for c in f["raw"]})
    column = settings["column"]
    columns = [column, *[c for c in columns if c != column]] if column in columns else columns
    lines = [
        f"Arm {settings['arm']}; per fold: system-level τ of the held-out family's generators "
        f"(≥ {settings['min_rows']} dev programs), raw → centred per problem.",
        "",
        "| column | "
        + " | ".join(f"{fold} ({f['n_generators']} gen.)" for fold, f in done.items())
        + " | mean raw τ | mean gain |",
        "| --- |" + " --- |" * (len(done) + 2),
    ]
    for name in columns:
        cells, raws, gains = [], [], []
        for f in done.values():
            raw, centred = f["raw"].get(name), f["centred"].get(name)
            if raw is None or centred is None:
                cells.append("n/a")
                continue
            cells.append(f"{raw:.3f} → {centred:.3f}")
            raws.append(raw)
            gains.append(centred - raw)
        defined = len(gains) == len(done) and gains and all(math.isfinite(g) for g in gains)
        mean = f"{statistics.fmean(gains):+.3f}" if defined else "n/a"
        mean_raw = f"{statistics.fmean(raws):.3f}" if defined else "n/a"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {mean_raw} | {mean} |")
    result = verdict(settings, figures)
    lines.append("")
    if not result["decided"]:
        lines.append(f"Rule: not decided ({result['why']}).")
    else:
        lines.append(
            f"Rule ({column}, mean gain > {result['margin']}): mean gain "
            f"{result['mean_gain']:+.3f} → {'ADOPTED' if result['adopted'] else 'not adopted'}."
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", action="store_true", help="no scoring: table of what exists")
    args = parser.parse_args(argv)
    settings = protocol()
    figures: dict[str, dict[str, Any] | None] = {}
    for fold in settings["folds"]:
        ckpt = checkpoint(settings, fold)
        evaluation = fold_folder(settings, fold) / "eval"
        if ckpt is not None and not args.table:
            evaluation = score_fold(settings, fold, ckpt)
        scored = ckpt is not None and (evaluation / "scores.jsonl").is_file()
        figures[fold] = fold_figures(settings, fold, evaluation) if scored else None
        if figures[fold] is None:
            print(f"{fold}: no finished checkpoint under {settings['runs']}/{settings['arm']}")
    text = table(settings, figures)
    out = ROOT / settings["out"] / settings["arm"]
    out.mkdir(parents=True, exist_ok=True)
    (out / "table.md").write_text(text)
    (out / "table.json").write_text(
        json.dumps(
            to_jsonable({"figures": figures, "verdict": verdict(settings, figures)}), indent=1
        )
    )
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
