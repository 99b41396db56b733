"""Issue 27's stage three on MBPP dev, by the rule pre-registered in
``configs/experiment/zeroshot_cpu.yaml`` (``protocol.stage3``; docs/model.md).

Every arm trains ``+experiment=zeroshot_cpu`` with its own overrides (and, except the
incumbent and an arm written ``{frozen: false, overrides: [...]}``, the frozen encoder's
schedule ``protocol.stage3.frozen``) once per seed, choosing
its best epoch on dev; it is judged on the mean over seeds of ``protocol.stage3.metric`` on
the dev split only. HE-Eval is never read here.

    python scripts/stage_arms.py --arm A              # every seed of one arm (finished seeds skipped)
    python scripts/stage_arms.py --arm incumbent --seeds 13,14
    python scripts/stage_arms.py --table              # the table and the rule's verdicts
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
EXPERIMENT = ROOT / "configs" / "experiment" / "zeroshot_cpu.yaml"
RUNS = ROOT / "runs" / "stage3"
RECORDED = {"incumbent": {12: 0.478}}
"""Seed runs recorded before stage three (the incumbent's seed 12, `make quality`'s own run:
its dev example_spearman at the chosen epoch, docs/model.md); a run folder overrides it."""


def stage() -> dict:
    """``protocol.stage3`` of the experiment, its interpolations unresolved."""
    raw = OmegaConf.load(EXPERIMENT)
    return OmegaConf.to_container(raw.protocol.stage3, resolve=False)


def margin() -> float:
    return float(OmegaConf.load(EXPERIMENT).protocol.adopt_margin)


def overrides(arm: str, seed: int) -> list[str]:
    """The ``train.py`` overrides of one arm's run with one seed."""
    settings = stage()
    if arm not in settings["arms"]:
        raise SystemExit(f"error: unknown arm {arm!r}; choose one of {', '.join(settings['arms'])}")
    own = settings["arms"][arm]
    if isinstance(own, dict):  # {frozen: false, overrides: [...]}: a fine-tuned arm with levers
        frozen = list(settings["frozen"]) if own.get("frozen", True) else []
        own = own.get("overrides") or []
    else:  # null: the incumbent as it is; a list: frozen, with these overrides
        frozen = [] if own is None else list(settings["frozen"])
    return [
        "+experiment=zeroshot_cpu",
        f"seed={seed}",
        f"output_dir={RUNS / arm / f'seed{seed}'}",
        *frozen,
        *(own or []),
    ]


def run_arm(arm: str, seeds: list[int]) -> None:
    for seed in seeds:
        folder = RUNS / arm / f"seed{seed}"
        if (folder / "metrics.json").is_file():
            print(f"{arm} seed {seed}: done already ({folder})")
            continue
        command = [sys.executable, "train.py", *overrides(arm, seed)]
        print("$", " ".join(command), flush=True)
        started = time.time()
        subprocess.run(command, cwd=ROOT, check=True)
        (folder / "wall.json").write_text(json.dumps({"seconds": round(time.time() - started)}))


def results(arm: str, seeds: list[int], metric: str) -> dict[int, float]:
    """Seed -> the arm's best dev ``metric`` (run folders first, then recorded runs)."""
    found: dict[int, float] = {}
    for seed in seeds:
        path = RUNS / arm / f"seed{seed}" / "metrics.json"
        if path.is_file():
            record = json.loads(path.read_text())
            value = record.get(f"best/{metric}", record.get("best/example_spearman"))
            if value is not None:
                found[seed] = float(value)
        elif seed in RECORDED.get(arm, {}):
            found[seed] = RECORDED[arm][seed]
    return found


def table() -> str:
    settings = stage()
    seeds, metric, gap = [int(s) for s in settings["seeds"]], settings["metric"], margin()
    means: dict[str, float] = {}
    lines = [
        f"| arm | {' | '.join(f'seed {s}' for s in seeds)} | mean | verdict |",
        "|---" * (len(seeds) + 3) + "|",
    ]
    for arm in settings["arms"]:
        found = results(arm, seeds, metric)
        complete = len(found) == len(seeds)
        mean = statistics.fmean(found.values()) if complete else float("nan")
        if complete:
            means[arm] = mean
        cells = [f"{found[s]:.3f}" if s in found else "—" for s in seeds]
        lines.append(f"| {arm} | {' | '.join(cells)} | {mean:.3f} | {{{arm}}} |")
    builds_on = settings.get("builds_on") or {}
    lenient = set(settings.get("non_inferior") or [])
    verdicts = {
        arm: verdict(arm, means, gap, builds_on, non_inferior=arm in lenient)
        for arm in settings["arms"]
    }
    text = "\n".join(lines).format(**verdicts)
    return f"dev {metric}, best epoch per run; rule: mean over seeds > incumbent mean + {gap}\n\n{text}\n"


def verdict(
    arm: str,
    means: dict[str, float],
    gap: float,
    builds_on: dict[str, str] | None = None,
    non_inferior: bool = False,
) -> str:
    """The rule's word on one arm from the complete arms' means: against the incumbent, and
    for an arm that adds a lever to another (``builds_on``, default ``protocol.stage3``'s),
    against that one (even while the incumbent's seeds are incomplete). A ``non_inferior``
    arm (E: a column added beside the primary one) only has to not cost the primary column
    more than the margin."""
    if arm not in means:
        return "not all seeds run"
    if arm == "incumbent":
        return "incumbent"
    parts = []
    incumbent = means.get("incumbent")
    if incumbent is None:
        parts.append("the incumbent's seeds are not all run")
    elif non_inferior:
        kept = means[arm] >= incumbent - gap
        parts.append(
            f"{'not below' if kept else 'below'} the incumbent by > {gap}: "
            f"{'kept' if kept else 'not kept'}"
        )
    else:
        beats = means[arm] > incumbent + gap
        parts.append(f"{'beats' if beats else 'does not beat'} the incumbent by > {gap}")
    if builds_on is None:
        builds_on = stage().get("builds_on") or {}
    base = builds_on.get(arm)
    if base in means:
        own = means[arm] > means[base] + gap
        parts.append(f"{'beats' if own else 'does not beat'} {base} by > {gap}")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arm", help="the arm to train (every seed of protocol.stage3.seeds)")
    parser.add_argument("--seeds", help="comma-separated seeds (default: the protocol's)")
    parser.add_argument("--table", action="store_true", help="print the arms' table and verdicts")
    args = parser.parse_args(argv)
    if args.arm:
        seeds = [int(s) for s in (args.seeds or ",".join(map(str, stage()["seeds"]))).split(",")]
        run_arm(args.arm, seeds)
    if args.table or not args.arm:
        print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
