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
    python scripts/stage_arms.py --check G            # an arm's second condition (protocol.stage3.checks)
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
        if metrics_file(arm, seed).is_file():
            print(f"{arm} seed {seed}: done already ({folder})")
            continue
        command = [sys.executable, "train.py", *overrides(arm, seed)]
        print("$", " ".join(command), flush=True)
        started = time.time()
        subprocess.run(command, cwd=ROOT, check=True)
        (folder / "wall.json").write_text(json.dumps({"seconds": round(time.time() - started)}))


def recorded(key: str) -> dict:
    """``protocol.stage3.<key>`` (``recorded``, ``recorded_means``, ``recorded_checks``): the
    figures of runs whose folders this machine does not hold (docs/model.md's table). Why: run
    folders are not committed, so on a new machine the earlier arms, and the references later
    arms are read against, exist only as these records; a run folder takes precedence."""
    return stage().get(key) or {}


def metrics_file(arm: str, seed: int) -> Path:
    """Where one seed run of an arm writes its best dev figures."""
    return RUNS / arm / f"seed{seed}" / "metrics.json"


def results(arm: str, seeds: list[int], metric: str) -> dict[int, float]:
    """Seed -> the arm's best dev ``metric`` (run folders first, then recorded runs)."""
    kept = recorded("recorded").get(arm) or {}
    found: dict[int, float] = {}
    for seed in seeds:
        path = metrics_file(arm, seed)
        if path.is_file():
            record = json.loads(path.read_text())
            value = record.get(f"best/{metric}", record.get("best/example_spearman"))
            if value is not None:
                found[seed] = float(value)
        elif seed in kept:
            found[seed] = float(kept[seed])
    return found


def arm_mean(arm: str, found: dict[int, float], seeds: list[int]) -> float:
    """The mean over seeds; the recorded 4-place mean when no seed has a run folder here."""
    local = any(metrics_file(arm, seed).is_file() for seed in seeds)
    exact = recorded("recorded_means").get(arm)
    if exact is not None and not local:
        return float(exact)
    return statistics.fmean(found[s] for s in seeds)


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
        mean = arm_mean(arm, found, seeds) if complete else float("nan")
        if complete:
            means[arm] = mean
        cells = [f"{found[s]:.3f}" if s in found else "—" for s in seeds]
        lines.append(f"| {arm} | {' | '.join(cells)} | {mean:.3f} | {{{arm}}} |")
    builds_on = settings.get("builds_on") or {}
    lenient = set(settings.get("non_inferior") or [])
    against = settings.get("against") or {}
    verdicts = {
        arm: verdict(arm, means, gap, builds_on, non_inferior=arm in lenient,
                     reference=against.get(arm, "incumbent"))
        for arm in settings["arms"]
    }  # fmt: skip
    text = "\n".join(lines).format(**verdicts)
    return f"dev {metric}, best epoch per run; rule: mean over seeds > incumbent mean + {gap}\n\n{text}\n"


def verdict(
    arm: str,
    means: dict[str, float],
    gap: float,
    builds_on: dict[str, str] | None = None,
    non_inferior: bool = False,
    reference: str = "incumbent",
) -> str:
    """The rule's word on one arm from the complete arms' means: against the incumbent, and
    for an arm that adds a lever to another (``builds_on``, default ``protocol.stage3``'s),
    against that one (even while the incumbent's seeds are incomplete). A ``non_inferior``
    arm (E: a column added beside the primary one) only has to not cost the primary column
    more than the margin, measured against ``reference`` (``protocol.stage3.against``: the
    adopted arm it goes on, else the incumbent)."""
    if arm not in means:
        return "not all seeds run"
    if arm == "incumbent":
        return "incumbent"
    parts = []
    incumbent = means.get("incumbent")
    if non_inferior and means.get(reference) is None:
        parts.append(f"{reference}'s seeds are not all run")
    elif non_inferior:
        kept = means[arm] >= means[reference] - gap
        parts.append(
            f"{'not below' if kept else 'below'} {'the incumbent' if reference == 'incumbent' else reference}"
            f" by > {gap}: {'kept' if kept else 'not kept'}"
        )
    elif incumbent is None:
        parts.append("the incumbent's seeds are not all run")
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


def check_value(arm: str, seed: int, check: dict) -> float | None:
    """One seed's second-condition figure: its best checkpoint scored by ``evaluate.py``
    (no baselines) on the check's data; the report is kept in the run folder and reused."""
    folder = RUNS / arm / f"seed{seed}"
    if not (folder / "best").is_dir():
        kept = recorded("recorded_checks").get(arm) or {}
        return float(kept[seed]) if seed in kept else None
    out = folder / f"check_{Path(str(check['data'])).name}_{check['split']}"
    report = out / "report.json"
    if not report.is_file():
        command = [
            sys.executable, "evaluate.py", f"ckpt_path={folder / 'best'}", f"data={check['data']}",
            f"split={check['split']}", "baselines=none", "plots=false", f"output_dir={out}",
        ]  # fmt: skip
        print("$", " ".join(command), flush=True)
        subprocess.run(command, cwd=ROOT, check=True)
    metrics = {m["name"]: m for m in json.loads(report.read_text())["metrics"]}
    column = metrics.get(check["column"])
    if column is None:
        raise SystemExit(f"error: {report} has no column {check['column']!r}")
    if check["metric"] != "best_of_n_passed":
        raise SystemExit(f"error: unknown check metric {check['metric']!r} (best_of_n_passed)")
    return float(column["best_of_n"]["passed"]["selected"])


def run_check(arm: str) -> str:
    """The table of ``protocol.stage3.checks[arm]`` for the arm and its reference, per seed,
    with the rule's word: the arm's mean above the reference's by more than the margin."""
    settings = stage()
    check = (settings.get("checks") or {}).get(arm)
    if check is None:
        raise SystemExit(f"error: protocol.stage3.checks has no entry for {arm!r}")
    seeds, gap = [int(s) for s in settings["seeds"]], margin()
    lines = [
        f"| arm | {' | '.join(f'seed {s}' for s in seeds)} | mean |",
        "|---" * (len(seeds) + 2) + "|",
    ]
    means = {}
    for name in (arm, check["against"]):
        found = {s: check_value(name, s, check) for s in seeds}
        cells = [f"{v:.3f}" if v is not None else "—" for v in found.values()]
        done = [v for v in found.values() if v is not None]
        means[name] = statistics.fmean(done) if len(done) == len(seeds) else float("nan")
        lines.append(f"| {name} | {' | '.join(cells)} | {means[name]:.3f} |")
    a, b = means[arm], means[check["against"]]
    word = ("not all seeds run" if a != a or b != b else
            f"{'beats' if a > b + gap else 'does not beat'} {check['against']} by > {gap}")  # fmt: skip
    head = f"{check['column']} {check['metric']} on {check['data']} ({check['split']})"
    return f"{head}\n\n" + "\n".join(lines) + f"\n\n{arm}: {word}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arm", help="the arm to train (every seed of protocol.stage3.seeds)")
    parser.add_argument("--seeds", help="comma-separated seeds (default: the protocol's)")
    parser.add_argument("--table", action="store_true", help="print the arms' table and verdicts")
    parser.add_argument("--check", metavar="ARM", help="compute and print ARM's second condition")
    args = parser.parse_args(argv)
    if args.check:
        print(run_check(args.check))
        return 0
    if args.arm:
        seeds = [int(s) for s in (args.seeds or ",".join(map(str, stage()["seeds"]))).split(",")]
        run_arm(args.arm, seeds)
    if args.table or not args.arm:
        print(table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
