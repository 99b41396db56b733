"""Issue 43's transfer arms, by the rule pre-registered in ``configs/experiment/transfer_cpu.yaml``
(``protocol.transfer``; docs/experiments/transfer.md).

Every arm trains ``+experiment=transfer_cpu`` with its own overrides and the frozen encoder's
schedule once per fold, a fold holding one generator family out (``data.holdout_family``): the
family trains on nothing and its programs of the dev problems are the dev rows. An arm is judged
on the mean over folds of the best epoch's dev ``protocol.transfer.metric``. HE-Eval is never
read here.

    python scripts/transfer_arms.py --arm T1              # every fold of one arm (done folds skipped)
    python scripts/transfer_arms.py --arm T0 --folds qwen
    python scripts/transfer_arms.py --table               # per-family table and the verdicts
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from omegaconf import OmegaConf

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT = ROOT / "configs" / "experiment" / "transfer_cpu.yaml"
ADOPT_MARGIN_FROM = ROOT / "configs" / "experiment" / "zeroshot_cpu.yaml"
RUNS = ROOT / "runs" / "transfer"


def protocol() -> dict:
    """``protocol.transfer`` of the experiment file, unresolved."""
    return OmegaConf.to_container(OmegaConf.load(EXPERIMENT).protocol.transfer, resolve=False)


def margin() -> float:
    """The adopt margin every arm of ``make quality`` is judged with."""
    return float(OmegaConf.load(ADOPT_MARGIN_FROM).protocol.adopt_margin)


def run_folder(arm: str, fold: str) -> Path:
    return RUNS / arm / fold


def overrides(arm: str, fold: str) -> list[str]:
    """The ``train.py`` overrides of one arm's run with one family held out."""
    settings = protocol()
    if arm not in settings["arms"]:
        raise SystemExit(f"error: unknown arm {arm!r}; choose one of {', '.join(settings['arms'])}")
    if fold not in settings["folds"]:
        raise SystemExit(
            f"error: unknown fold {fold!r}; choose one of {', '.join(settings['folds'])}"
        )
    return [
        "+experiment=transfer_cpu",
        f"seed={settings['seed']}",
        f"output_dir={run_folder(arm, fold)}",
        *settings["frozen"],
        *settings["arms"][arm],
        f"data.holdout_family={fold}",  # after the arm's data= so it applies to that config
    ]


def run_arm(arm: str, folds: list[str]) -> None:
    for fold in folds:
        folder = run_folder(arm, fold)
        if (folder / "metrics.json").is_file():
            print(f"{arm} / {fold}: done already ({folder})")
            continue
        command = [sys.executable, "train.py", *overrides(arm, fold)]
        print("$", " ".join(command), flush=True)
        started = time.time()
        subprocess.run(command, cwd=ROOT, check=True)
        (folder / "wall.json").write_text(json.dumps({"seconds": round(time.time() - started)}))


def fold_value(arm: str, fold: str, metric: str) -> float | None:
    path = run_folder(arm, fold) / "metrics.json"
    if not path.is_file():
        return None
    value = json.loads(path.read_text()).get(f"best/{metric}")
    return None if value is None else float(value)


def arm_means(settings: dict) -> dict[str, float | None]:
    """Arm -> mean over folds (``None`` until every fold has run)."""
    out: dict[str, float | None] = {}
    for arm in settings["arms"]:
        values = [fold_value(arm, f, settings["metric"]) for f in settings["folds"]]
        out[arm] = None if None in values else statistics.fmean(values)  # type: ignore[arg-type]
    return out


def verdicts(means: dict[str, float | None], builds_on: dict[str, str], gap: float) -> list[str]:
    """The rule, in arm order: an arm is credited iff it beats the arm it builds on by more than
    ``gap``, and adopted iff it also beats the configuration adopted so far by more than ``gap``."""
    lines: list[str] = []
    adopted = "T0"
    for arm, base in builds_on.items():
        mine, theirs, best = means.get(arm), means.get(base), means.get(adopted)
        if mine is None or theirs is None or best is None:
            lines.append(f"{arm}: not decided (a fold has not run)")
            continue
        credited = mine - theirs > gap
        adopt = credited and mine - best > gap
        lines.append(
            f"{arm}: {mine:.3f} vs {base} {theirs:.3f} ({mine - theirs:+.3f}) -> "
            f"{'credited' if credited else 'not credited'}; vs adopted {adopted} {best:.3f} "
            f"-> {'ADOPTED' if adopt else 'not adopted'}"
        )
        if adopt:
            adopted = arm
    lines.append(f"adopted configuration: {adopted}")
    return lines


def schedule_verdict(means: dict[str, float | None], schedule: dict[str, str], gap: float) -> str:
    """Amendment 3's rule: ``make quality`` keeps its incumbent schedule (``incumbent``, I's
    fine-tuned encoder) unless the ``challenger`` (the frozen encoder) beats it by more than
    ``gap`` on the mean over folds."""
    incumbent, challenger = schedule["incumbent"], schedule["challenger"]
    mine, theirs = means.get(incumbent), means.get(challenger)
    if mine is None or theirs is None:
        return f"schedule: not decided ({incumbent} or {challenger} has a fold to run)"
    switch = theirs - mine > gap
    return (
        f"schedule: {challenger} {theirs:.3f} vs {incumbent} {mine:.3f} ({theirs - mine:+.3f}) -> "
        + (f"SWITCH to {challenger}'s schedule" if switch else f"keep {incumbent}'s schedule")
    )


def table() -> str:
    settings = protocol()
    metric, folds = settings["metric"], settings["folds"]
    means = arm_means(settings)
    head = f"| arm | {' | '.join(folds)} | mean |"
    rows = [head, "|" + " --- |" * (len(folds) + 2)]
    for arm in settings["arms"]:
        cells = [fold_value(arm, f, metric) for f in folds]
        shown = ["—" if v is None else f"{v:.3f}" for v in cells]
        mean = means[arm]
        rows.append(f"| {arm} | {' | '.join(shown)} | {'—' if mean is None else f'{mean:.3f}'} |")
    rows.append("")
    rows += verdicts(means, settings["builds_on"], margin())
    if "schedule" in settings:
        rows.append(schedule_verdict(means, settings["schedule"], margin()))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arm", help="run every fold of this arm")
    parser.add_argument("--folds", help="comma-separated folds (default: all of the protocol)")
    parser.add_argument("--table", action="store_true", help="print the table and verdicts")
    args = parser.parse_args(argv)
    if args.arm:
        folds = args.folds.split(",") if args.folds else protocol()["folds"]
        run_arm(args.arm, folds)
    if args.table or not args.arm:
        print(table())
    return 0


if __name__ == "__main__":
    sys.exit(main())
