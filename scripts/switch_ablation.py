"""Issue 18's switch ablation on MBPP dev, by the pre-registered rule of
``configs/experiment/zeroshot_cpu.yaml`` (``protocol``; docs/model.md, "Protocol").

Every arm trains ``+experiment=zeroshot_cpu`` for the same ``protocol.ablation_steps`` steps
(one dev evaluation at the end, same seed) with one switch changed, and is judged on
``protocol.selection_metric`` of the dev split only; HE-Eval is never read here. The rejected
arms' switches were retired (issue 27; their code is at commit 5bbd199): ``--table`` still reads
their recorded ``metrics.json``, but they can no longer be trained.

    python scripts/switch_ablation.py --arm baseline          # one arm (resumable: skipped when done)
    python scripts/switch_ablation.py --arm exact_features
    python scripts/switch_ablation.py --arm combined --switches exact_features,clean_generated
    python scripts/switch_ablation.py --arm exact_prior --switches exact_features  # stage 2
    python scripts/switch_ablation.py --table                 # the table and the rule's verdicts
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from omegaconf import OmegaConf

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENT = ROOT / "configs" / "experiment" / "zeroshot_cpu.yaml"
SWITCH_VALUES = {
    "exact_features": "true",
    "clean_generated": "true",
    "exact_prior": "rouge_l",
    "layout": "none",
}
"""The value each switch takes in its arm. ``layout: none`` redoes a decision HumanEval made
(layout tokens kept although MBPP dev preferred them off; docs/model.md, the HE-Eval log)."""
OFF_VALUES = {
    **{name: "false" for name in SWITCH_VALUES},
    "exact_prior": "null",
    "layout": "auto",
}
"""Every arm pins every switch: off except its own, so an arm stays comparable with the
baseline after the experiment file adopts a switch."""
STAGE_TWO = ("exact_prior",)
"""Switches pre-registered after the first stage's arms ran (before any HE-Eval scoring):
each trains on top of the configuration stage one adopted (``--switches``: that
configuration's switches) and is adopted iff it beats that configuration's own arm by more
than the margin. ``exact_prior`` needs ``exact_features``, so it cannot be a stage-one arm."""
ARMS = ("baseline", *SWITCH_VALUES, "combined")
RETIRED_ARMS = ("untrained_cosine", "comparison_only", "ranking_pair_weight", "exact_scores")
"""Stage-one arms the rule rejected and whose switches are gone: recorded, never retrained."""


def protocol() -> dict:
    """The ``protocol`` block of the experiment, without resolving its interpolations."""
    raw = OmegaConf.load(EXPERIMENT)
    return OmegaConf.to_container(raw.protocol, resolve=False)


def train_arm(
    arm: str, switches: list[str], out: Path, steps: int, python: str, data_dir: str
) -> dict:
    """Train one arm with ``train.py`` on ``data_dir`` and return its metrics
    (``metrics.json``)."""
    folder = out / arm
    if (folder / "metrics.json").is_file():
        print(f"{arm}: already trained ({folder}/metrics.json)")
        return json.loads((folder / "metrics.json").read_text("utf-8"))
    overrides = [
        f"model.{name}={SWITCH_VALUES[name] if name in switches else OFF_VALUES[name]}"
        for name in SWITCH_VALUES
    ]
    command = [
        python, "train.py", "+experiment=zeroshot_cpu", f"trainer.max_steps={steps}",
        "trainer.epochs=1", "trainer.save_every_steps=null", "trainer.progress=false",
        f"output_dir={folder}", f"data.dir={data_dir}", f"data.dirs=[{data_dir}]", *overrides,
    ]  # fmt: skip
    print("$", " ".join(command), flush=True)
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=True)
    metrics = json.loads((folder / "metrics.json").read_text("utf-8"))
    metrics["switches"] = switches
    metrics["train_seconds"] = round(time.perf_counter() - start, 1)
    (folder / "metrics.json").write_text(json.dumps(metrics, indent=2), "utf-8")
    return metrics


def table(out: Path) -> str:
    """The ablation table with the pre-registered rule's verdict per arm."""
    rule = protocol()
    metric, margin = f"best/{rule['selection_metric']}", float(rule["adopt_margin"])
    runs = {
        arm: json.loads((out / arm / "metrics.json").read_text("utf-8"))
        for arm in (*ARMS[:-1], *RETIRED_ARMS, ARMS[-1])
        if (out / arm / "metrics.json").is_file()
    }
    if "baseline" not in runs:
        raise SystemExit("error: the baseline arm has not run; run --arm baseline first")
    base = runs["baseline"][metric]
    singles = {
        arm: m[metric] - base
        for arm, m in runs.items()
        if arm not in ("baseline", "combined", *STAGE_TWO)
    }
    lines = [
        f"| arm | dev {rule['selection_metric']} | Δ | dev example_kendall | "
        "dev corpus ρ | dev Exec AUROC | train s | adopted? |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for arm, m in runs.items():
        delta = m[metric] - base
        if arm in STAGE_TWO:
            on_top = _arm_with(runs, [s for s in m.get("switches", []) if s != arm])
            delta = m[metric] - runs[on_top][metric] if on_top else float("nan")
            verdict = f"**yes** (vs {on_top})" if delta > margin else f"no (vs {on_top})"
        elif arm == "baseline":
            verdict = "—"
        elif arm == "combined":
            best_single = max((d for d in singles.values() if d > margin), default=None)
            kept = best_single is not None and delta >= best_single - margin
            verdict = "kept" if kept else "not kept (best single only)"
        else:
            verdict = "**yes**" if delta > margin else "no"
        name = arm if arm != "combined" else "combined: " + "+".join(m.get("switches", []))
        if arm in STAGE_TWO:
            name = "+".join(m.get("switches", []))
        lines.append(
            f"| {name} | {m[metric]:.3f} | {delta:+.3f} | {m['best/example_kendall']:.3f} | "
            f"{m['best/spearman']:.3f} | {m['best/exec_auroc']:.3f} | "
            f"{m.get('train_seconds', float('nan')):.0f} | {verdict} |"
        )
    return "\n".join(lines) + (
        f"\n\nrule: adopt iff Δ > {margin} ({rule['selection_metric']}); Δ is against the "
        "baseline, for a stage-two arm against the arm it trains on top of"
    )


def _arm_with(runs: dict[str, dict], switches: list[str]) -> str | None:
    """The arm that trained exactly ``switches`` (a stage-two arm's reference), if it ran."""
    for arm, m in runs.items():
        if arm in STAGE_TWO:
            continue
        trained = set(m.get("switches", [] if arm == "baseline" else [arm]))
        if trained == set(switches):
            return arm
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arm", choices=ARMS)
    parser.add_argument("--switches", default="", help="combined arm: comma-separated switches")
    parser.add_argument("--table", action="store_true", help="print the table and verdicts")
    parser.add_argument("--out", type=Path, default=Path("runs/ablation"))
    parser.add_argument("--steps", type=int, default=None, help="default: protocol")
    parser.add_argument("--data-dir", default="data/mbpp-real")
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    steps = args.steps or int(protocol()["ablation_steps"])
    if args.arm:
        if args.arm == "combined":
            switches = [s for s in args.switches.split(",") if s]
            unknown = sorted(set(switches) - set(SWITCH_VALUES))
            if len(switches) < 2 or unknown:
                parser.error(f"--switches needs two or more of {', '.join(SWITCH_VALUES)}")
        elif args.arm in STAGE_TWO:
            on_top = [s for s in args.switches.split(",") if s]
            if "exact_features" not in on_top or set(on_top) - set(SWITCH_VALUES):
                parser.error(
                    f"--arm {args.arm} trains on top of stage one's adopted switches; "
                    "give them with --switches (they must include exact_features)"
                )
            switches = [*on_top, args.arm]
        else:
            switches = [] if args.arm == "baseline" else [args.arm]
        metrics = train_arm(args.arm, switches, args.out, steps, args.python, args.data_dir)
        print(json.dumps(metrics, indent=2))
    if args.table:
        print(table(args.out))
    if not (args.arm or args.table):
        parser.error("give --arm NAME and/or --table")


if __name__ == "__main__":
    main()
