"""Issue 43 item 4: decide per-problem centring of the system-level scores on the transfer dev,
by the rule pre-registered in ``configs/system_level_dev.yaml`` (never on the 39-generator set).

For each held-out family (fold) of the transfer protocol: score MBPP's dev rows with that fold's
checkpoint (runs/transfer/<arm>/<fold>/best; evaluate.py, baselines=fast), keep the family's
generators, and compute the system-level tau of each column raw and with the scores centred per
problem (scripts/system_diagnosis.py's figures). Then the rule's verdict.

    python scripts/system_level_dev.py            # score the folds whose checkpoints exist, table
    python scripts/system_level_dev.py --table    # only the table of what has been scored

Writes <out>/<arm>/<fold>/{<dev dir name>/ (evaluate.py's folder), diagnosis/} and
<out>/<arm>/table.{md,json}.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from unice.evaluation.report import to_jsonable  # noqa: E402
from unice.evaluation.system_diagnosis import (  # noqa: E402
    SystemRows,
    diagnose,
    read_evaluation,
    write,
)

CONFIG = ROOT / "configs" / "system_level_dev.yaml"


def protocol(path: Path = CONFIG) -> dict[str, Any]:
    return OmegaConf.to_container(OmegaConf.load(path).protocol, resolve=True)  # type: ignore[return-value]


def family_patterns(settings: dict[str, Any], fold: str) -> list[str]:
    families = OmegaConf.to_container(OmegaConf.load(ROOT / settings["families"]).families)
    return [str(p) for p in families[fold]]  # type: ignore[index]


def fold_folder(settings: dict[str, Any], fold: str) -> Path:
    return ROOT / settings["out"] / settings["arm"] / fold


def checkpoint(settings: dict[str, Any], fold: str) -> Path | None:
    """The fold's exported checkpoint once its run has finished (metrics.json written)."""
    run = ROOT / settings["runs"] / settings["arm"] / fold
    return run / "best" if (run / "best").is_dir() and (run / "metrics.json").is_file() else None


def score_fold(settings: dict[str, Any], fold: str, ckpt: Path) -> list[Path]:
    """evaluate.py on every dev folder with the fold's checkpoint (skipped when done)."""
    folders = []
    for data in settings["dev_dirs"]:
        out = fold_folder(settings, fold) / Path(data).name
        folders.append(out)
        if (out / "scores.jsonl").is_file() and (out / "report.json").is_file():
            continue
        command = [
            sys.executable, "evaluate.py", f"ckpt_path={ckpt}", f"data={data}",
            f"split={settings['split']}", "label=passed", "baselines=fast",
            "bootstrap.n_resamples=0", "plots=false", "progress=false", f"output_dir={out}",
        ]  # fmt: skip
        print("$", " ".join(command), flush=True)
        subprocess.run(command, cwd=ROOT, check=True)
    return folders


def fold_figures(settings: dict[str, Any], fold: str, folders: list[Path]) -> dict[str, Any]:
    """The family's dev rows from every folder, diagnosed; raw and centred tau per column."""
    rows = SystemRows.concat([read_evaluation(f) for f in folders])
    rows = rows.matching(family_patterns(settings, fold)).at_least(int(settings["min_rows"]))
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
        + " | mean gain |",
        "| --- |" + " --- |" * (len(done) + 1),
    ]
    for name in columns:
        cells, gains = [], []
        for f in done.values():
            raw, centred = f["raw"].get(name), f["centred"].get(name)
            if raw is None or centred is None:
                cells.append("n/a")
                continue
            cells.append(f"{raw:.3f} → {centred:.3f}")
            gains.append(centred - raw)
        mean = f"{statistics.fmean(gains):+.3f}" if len(gains) == len(done) and gains else "n/a"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {mean} |")
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
        folders = [fold_folder(settings, fold) / Path(d).name for d in settings["dev_dirs"]]
        if ckpt is not None and not args.table:
            folders = score_fold(settings, fold, ckpt)
        scored = ckpt is not None and all((f / "scores.jsonl").is_file() for f in folders)
        figures[fold] = fold_figures(settings, fold, folders) if scored else None
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
