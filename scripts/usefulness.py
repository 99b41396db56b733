"""`make usefulness`'s stages (scripts/usefulness.sh runs them in order; each one resumes).

    python scripts/usefulness.py folds    # outputs/usefulness/folds/<k>/data/{train,dev,test}.jsonl
    python scripts/usefulness.py train    # every arm that runs x every outer fold; inner-dev figure
    python scripts/usefulness.py choose   # the pre-registered rule -> outputs/usefulness/arms.json
    python scripts/usefulness.py score    # the chosen arm's fold models -> outputs/usefulness/scores.jsonl
    python scripts/usefulness.py evaluate # evaluate.py label=usefulness with every baseline + those scores
    python scripts/usefulness.py report   # outputs/usefulness/report.{md,json}
    python scripts/usefulness.py cost --arm CE   # stage three's cost gate (fold 0, timed)

The protocol (folds, arms, the rule) is configs/experiment/usefulness.yaml's, written before any
run; docs/usefulness.md has the figures. Environment: ZS_CKPT (the PassRatio-trained checkpoint,
default runs/zeroshot_cpu/best: its zero-shot columns and arm P), LEVERS=1 (train every arm and
apply the rule; else only protocol.adopted, or A), LEVERS=2 (stage two: its arms on top of C,
judged against C by the same rule -> levers2.json), LEVERS=3 (stage three: CodeBERTScore as
inputs, -> levers3.json), USEFULNESS_FINETUNE=1 (arm E; stage three's CE once `cost` passed),
ICE_BASE_URL/ICE_MODEL (an ICE-Score usefulness column from an OpenAI-compatible judge).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from data_builders.errors import UserError  # noqa: E402
from data_builders.jsonl import iter_jsonl, write_jsonl  # noqa: E402
from unice.usefulness.folds import write_fold_data  # noqa: E402
from unice.usefulness.selection import arm_metric, choose_arm  # noqa: E402

CONFIG = ROOT / "configs/experiment/usefulness.yaml"
HUMAN_COLUMN = "CodeScore (human-trained)"


def protocol() -> dict[str, Any]:
    """The pre-registered ``protocol`` block (read as YAML: no interpolation needed)."""
    return yaml.safe_load(CONFIG.read_text(encoding="utf-8"))["protocol"]


def zs_checkpoint() -> Path | None:
    """The PassRatio-trained checkpoint when it exists (ZS_CKPT, default make quality's)."""
    path = Path(os.environ.get("ZS_CKPT") or "runs/zeroshot_cpu/best")
    return path if (path / "config.json").is_file() else None


def levers_run() -> bool:
    """LEVERS=1: train every arm and apply the rule; else only the adopted arm (A if none)."""
    return os.environ.get("LEVERS") == "1"


LATER_STAGES: dict[str, tuple[str, str]] = {
    "2": ("stage_two", "levers2.json"),
    "3": ("stage_three", "levers3.json"),
}
"""LEVERS value -> the protocol block of a later stage (its arms on top of its incumbent) and
the record its rule writes (arms.json stays the adopted arm's)."""


def later_stage() -> tuple[str, str] | None:
    """LEVERS=2 / LEVERS=3: (protocol block, record file) of the stage to train and judge."""
    return LATER_STAGES.get(os.environ.get("LEVERS", ""))


def all_arms(proto: dict[str, Any]) -> dict[str, list[str]]:
    """Every arm of every stage by name (a later stage's names never repeat earlier ones)."""
    out = dict(proto["arms"])
    for block, _ in LATER_STAGES.values():
        out.update((proto.get(block) or {}).get("arms", {}))
    return out


def finetune_gate(arm: str) -> str | None:
    """Why an arm that fine-tunes the encoder does not run here, or None when it may:
    USEFULNESS_FINETUNE=1 is set (by hand, for stage three's CE once its cost gate passed:
    `python scripts/usefulness.py cost --arm CE`)."""
    if os.environ.get("USEFULNESS_FINETUNE") == "1":
        return None
    return f"not run: set USEFULNESS_FINETUNE=1 (arm {arm} does not fit the 30-minute budget)"


def adopted_arm(proto: dict[str, Any]) -> str:
    return str(proto.get("adopted") or proto["incumbent"])


def arms_to_run(proto: dict[str, Any]) -> dict[str, list[str] | str]:
    """Arm -> its overrides, or the reason it does not run (optional arms; without LEVERS=1
    every arm but the adopted one)."""
    out: dict[str, list[str] | str] = {}
    stage = later_stage()
    if stage:  # a later stage: its incumbent (already trained in stage one) + its arms
        block = proto[stage[0]]
        out[block["incumbent"]] = list(proto["arms"][block["incumbent"]])
        for arm, overrides in block["arms"].items():
            gate = (block.get("optional_arms") or {}).get(arm)
            out[arm] = (finetune_gate(arm) if gate else None) or list(overrides)
        return out
    arms = dict(proto["arms"])  # stage one's arms, and the adopted arm when stage two's
    arms.setdefault(adopted_arm(proto), all_arms(proto)[adopted_arm(proto)])
    for arm, overrides in arms.items():
        if not levers_run() and arm != adopted_arm(proto):
            out[arm] = "not trained by this run (LEVERS=1 make usefulness trains every arm)"
            continue
        gate = (proto.get("optional_arms") or {}).get(arm)
        if gate == "USEFULNESS_FINETUNE" and finetune_gate(arm):
            out[arm] = str(finetune_gate(arm))
            continue
        if gate == "ZS_CKPT":
            ckpt = zs_checkpoint()
            if ckpt is None:
                out[arm] = (
                    "not run: no PassRatio-trained checkpoint (make quality's "
                    "runs/zeroshot_cpu/best, or ZS_CKPT=DIR)"
                )
                continue
            overrides = [o.replace("ZS_CKPT", str(ckpt)) for o in overrides]
        out[arm] = list(overrides)
    return out


def read_rows(data: Path) -> list[dict[str, Any]]:
    path = data / "test.jsonl"
    if not path.is_file():
        raise UserError(
            f"{path} not found: build it with `python -m data_builders build conala --source "
            "${SHARED:-../shared/data}/conala_usefulness --out data/conala`"
        )
    return [row for _, row in iter_jsonl(path, required=("id", "usefulness", "fold"))]


def stage_folds(args: argparse.Namespace) -> None:
    rows = read_rows(args.data)
    n = int(protocol()["outer_folds"])
    for k in range(n):
        counts = write_fold_data(rows, k, n, args.out / "folds" / str(k) / "data")
        print(f"fold {k}: " + ", ".join(f"{s} {c}" for s, c in counts.items()))


def _score(ckpt: Path, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    import unice

    model = unice.load_model(ckpt, device="cpu")
    return model.score(
        generated=[r["generated"] for r in rows],
        references=[r.get("reference") or None for r in rows],
        nls=[r.get("nl") or None for r in rows],
        languages=["python"] * len(rows),
        batch_size=64,
        progress=False,
    )


def _read_split(folder: Path, split: str) -> list[dict[str, Any]]:
    return [row for _, row in iter_jsonl(folder / f"{split}.jsonl")]


def train_command(folder: Path, run_dir: Path, overrides: list[str]) -> list[str]:
    """``train.py`` on one outer fold's rows (``folder/data``) into ``run_dir``, quietly."""
    return [
        sys.executable,
        "train.py",
        "+experiment=usefulness",
        f"data.dir={folder / 'data'}",
        f"output_dir={run_dir}",
        "trainer.progress=false",
        *overrides,
    ]


def _train_one(args: argparse.Namespace, arm: str, k: int, overrides: list[str]) -> str:
    """Train one (arm, outer fold) run and record its inner-dev figure; returns a summary."""
    folder = args.out / "folds" / str(k)
    done = folder / arm / "inner_dev.json"
    if done.is_file():
        return f"arm {arm} fold {k}: done ({json.loads(done.read_text())['metric']:.4f})"
    run_dir = folder / arm / "run"
    threads = ["trainer.num_threads=1"] if args.jobs > 1 else []
    command = train_command(folder, run_dir, [*threads, *overrides])
    start = time.perf_counter()
    log = folder / arm / "train.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as handle:
        status = subprocess.run(command, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT)
    if status.returncode != 0:
        tail = log.read_text(encoding="utf-8").splitlines()[-15:]
        raise UserError(
            f"training arm {arm} fold {k} failed (exit {status.returncode}); log {log}: "
            + " | ".join(tail)
        )
    seconds = time.perf_counter() - start
    dev = _read_split(folder / "data", "dev")
    scored = _score(run_dir / "best", dev)
    values = [s.get("codescore_ref_nl") for s in scored]
    metric = arm_metric(
        [float("nan") if v is None else v for v in values],
        [r["usefulness"] for r in dev],
        [r["task_id"] for r in dev],
    )
    record = {
        "arm": arm,
        "fold": k,
        "metric": metric,
        "overrides": overrides,
        "train_seconds": round(seconds, 1),
        "dev_intents": len({r["task_id"] for r in dev}),
    }
    done.write_text(json.dumps(record, indent=2) + "\n")
    return f"arm {arm} fold {k}: inner-dev tau {metric:.4f} ({seconds:.0f} s)"


def stage_train(args: argparse.Namespace) -> None:
    """Every (arm, fold) run not finished yet, ``--jobs`` at a time (each one torch thread
    when several run), the first fold alone first so that it fills the frozen encoder's
    feature cache the others read."""
    from concurrent.futures import ThreadPoolExecutor

    proto = protocol()
    n = int(proto["outer_folds"])
    runs = []
    for arm, overrides in arms_to_run(proto).items():
        if isinstance(overrides, str):
            print(f"arm {arm}: {overrides}")
            continue
        runs += [(arm, k, overrides) for k in range(n)]
    # the adopted arm's folds first (the result needs them), then the levers fold by fold
    first = adopted_arm(proto)
    runs.sort(key=lambda run: (run[0] != first, run[1], run[0]))
    if not runs:
        return
    if any(CODEBERTSCORE_SWITCH in overrides for _, _, overrides in runs):
        _prefill_codebertscore(args)  # once, before runs that would each score the pairs
    print(_train_one(args, *runs[0]), flush=True)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for line in pool.map(lambda run: _train_one(args, *run), runs[1:]):
            print(line, flush=True)


CODEBERTSCORE_SWITCH = "model.codebertscore_features=true"


def _prefill_codebertscore(args: argparse.Namespace) -> None:
    """Every snippet's CodeBERTScore against its reference into the store the fold runs read
    (unice/data/codebertscore_features.py), in one process: two runs started together would
    otherwise both score the same pairs."""
    from unice.data.codebertscore_features import CodeBertScoreFeatures

    rows = read_rows(args.data)
    CodeBertScoreFeatures.open().prefill((r["generated"], r.get("reference")) for r in rows)


def stage_cost(args: argparse.Namespace) -> None:
    """Stage three's cost gate of a fine-tuned arm (CE): train its outer fold 0 alone, timed,
    into outputs/usefulness/cost/<arm>/ (never a fold's own folder), compute no inner-dev
    figure, and say whether it passes (<= --limit seconds); the training log is not shown."""
    proto = protocol()
    arm = args.arm
    overrides = all_arms(proto)[arm]
    folder = args.out / "folds" / "0"
    run_dir = args.out / "cost" / arm / "run"
    # trainer.num_threads=1: as make usefulness runs each fold, two at a time
    command = train_command(folder, run_dir, ["trainer.num_threads=1", *overrides])
    log = run_dir.parent / "train.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    with log.open("w", encoding="utf-8") as handle:
        status = subprocess.run(command, cwd=ROOT, stdout=handle, stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - start
    if status.returncode != 0:
        raise UserError(f"arm {arm} fold 0 failed (exit {status.returncode}); log {log}")
    record = {
        "arm": arm,
        "fold": 0,
        "seconds": round(seconds, 1),
        "limit": args.limit,
        "passed": seconds <= args.limit,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
    }
    (run_dir.parent / "cost.json").write_text(json.dumps(record, indent=2) + "\n")
    verdict = "passes" if record["passed"] else "fails"
    print(f"arm {arm} fold 0: {seconds:.0f} s of training ({verdict} the {args.limit:.0f} s gate)")


def stage_choose(args: argparse.Namespace) -> None:
    proto = protocol()
    n = int(proto["outer_folds"])
    figures: dict[str, Any] = {}
    means: dict[str, float] = {}
    for arm, overrides in arms_to_run(proto).items():
        if isinstance(overrides, str):
            figures[arm] = {"ran": False, "why": overrides}
            continue
        per_fold = []
        for k in range(n):
            path = args.out / "folds" / str(k) / arm / "inner_dev.json"
            if not path.is_file():
                raise UserError(f"{path} missing: run `python scripts/usefulness.py train` first")
            per_fold.append(json.loads(path.read_text()))
        means[arm] = sum(f["metric"] for f in per_fold) / n
        figures[arm] = {
            "ran": True,
            "overrides": overrides,
            "per_fold": [f["metric"] for f in per_fold],
            "train_seconds": sum(f["train_seconds"] for f in per_fold),
        }
    stage = later_stage()
    if levers_run() or stage:
        incumbent = proto[stage[0]]["incumbent"] if stage else proto["incumbent"]
        winner, verdicts = choose_arm(means, incumbent, float(proto["adopt_margin"]))
        for arm, verdict in verdicts.items():
            figures[arm].update(verdict)
        result = {"chosen": winner, "margin": proto["adopt_margin"], "arms": figures}
        if stage:  # a record of its own: arms.json stays the adopted arm's
            (args.out / stage[1]).write_text(json.dumps(result, indent=2) + "\n")
            print_arms(figures)
            print(f"{stage[0].replace('_', ' ')} chosen: {winner}")
            return
        (args.out / "levers.json").write_text(json.dumps(result, indent=2) + "\n")
    else:  # the adopted arm only; the levers' figures come from the levers run when it is here
        winner = adopted_arm(proto)
        figures[winner].update({"mean": means[winner], "gain": None, "verdict": "adopted"})
        levers = args.out / "levers.json"
        result = {
            "chosen": winner,
            "margin": proto["adopt_margin"],
            "arms": figures,
            "levers": json.loads(levers.read_text()) if levers.is_file() else None,
        }
        for _, record in LATER_STAGES.values():
            path = args.out / record
            if path.is_file():
                result[record.removesuffix(".json")] = json.loads(path.read_text())
    (args.out / "arms.json").write_text(json.dumps(result, indent=2) + "\n")
    print_arms(figures)
    print(f"chosen: {winner}")


def print_arms(figures: dict[str, dict]) -> None:
    """One line per arm: its inner-dev mean and verdict, or why it did not run."""
    for arm, f in figures.items():
        if f["ran"]:
            print(f"arm {arm}: inner-dev mean tau {f['mean']:.4f} ({f['verdict']})")
        else:
            print(f"arm {arm}: {f['why']}")


def stage_score(args: argparse.Namespace) -> None:
    proto = protocol()
    n = int(proto["outer_folds"])
    arms = json.loads((args.out / "arms.json").read_text())
    arm = arms["chosen"]
    lines = []
    for k in range(n):
        folder = args.out / "folds" / str(k)
        test = _read_split(folder / "data", "test")
        scored = _score(folder / arm / "run" / "best", test)
        for row, s in zip(test, scored, strict=True):
            lines.append(
                {
                    "id": row["id"],
                    "task_id": row["task_id"],
                    "generator": row["generator"],
                    "codescore": s.get("codescore_ref_nl"),
                    "fold": k,
                    "arm": arm,
                    "checkpoint": str(folder / arm / "run" / "best"),
                }
            )
    order = {r["id"]: i for i, r in enumerate(read_rows(args.data))}
    lines.sort(key=lambda r: order[r["id"]])
    if len(lines) != len(order):
        raise UserError(f"{len(lines)} scored snippets for {len(order)} rows: rerun `folds`")
    write_jsonl(args.out / "scores.jsonl", lines)
    column = [{"id": r["id"], HUMAN_COLUMN: r["codescore"]} for r in lines]
    write_jsonl(args.out / "inputs" / "human.jsonl", column)
    print(f"{len(lines)} snippets scored by arm {arm}'s fold models -> {args.out / 'scores.jsonl'}")


def stage_evaluate(args: argparse.Namespace) -> None:
    from unice.usefulness.study import write_study_scores

    rows = read_rows(args.data)
    study = write_study_scores(rows, args.out / "inputs" / "study.jsonl")
    scores = [str(args.out / "inputs" / "human.jsonl"), str(study)]
    command = [
        sys.executable,
        "evaluate.py",
        f"data={args.data}",
        "label=usefulness",
        "baselines=all",
        "baselines.codebertscore.source_context=true",
        f"scores=[{','.join(scores)}]",
        f"paired_ours=[{json.dumps(HUMAN_COLUMN)}]",
        "paired_exclude=[ExactMatch," + ",".join(json.dumps(c) for c in study_columns()) + "]",
        f"output_dir={args.out / 'evaluation'}",
        "progress=false",
    ]
    ckpt = zs_checkpoint()
    if ckpt is not None:
        command.append(f"ckpt_path={ckpt}")
    if os.environ.get("ICE_BASE_URL") and os.environ.get("ICE_MODEL"):
        command += [
            "+ice_score=default",
            "ice_score.aspect=usefulness",
            f"ice_score.base_url={os.environ['ICE_BASE_URL']}",
            f"ice_score.model={os.environ['ICE_MODEL']}",
        ]
    print(" ".join(command), flush=True)
    status = subprocess.run(command, cwd=ROOT)
    if status.returncode != 0:
        raise UserError(f"evaluate.py failed (exit {status.returncode})")


def study_columns() -> list[str]:
    from unice.usefulness.study import STUDY_COLUMNS

    return [f"study {name}" for name in STUDY_COLUMNS.values()]


def stage_report(args: argparse.Namespace) -> None:
    from unice.usefulness.report import write_usefulness_report

    paths = write_usefulness_report(args.out, args.data, zs_checkpoint())
    print(f"report: {paths['md']} and {paths['json']}")


STAGES = {
    "folds": stage_folds,
    "train": stage_train,
    "choose": stage_choose,
    "score": stage_score,
    "evaluate": stage_evaluate,
    "report": stage_report,
    "cost": stage_cost,
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage", choices=list(STAGES))
    parser.add_argument("--data", type=Path, default=Path("data/conala"))
    parser.add_argument("--out", type=Path, default=Path("outputs/usefulness"))
    parser.add_argument(
        "--jobs",
        type=int,
        default=int(os.environ.get("USEFULNESS_JOBS", "2")),
        help="training runs at a time (default USEFULNESS_JOBS or 2: one per core)",
    )
    parser.add_argument("--arm", default="CE", help="cost: the fine-tuned arm to time")
    parser.add_argument("--limit", type=float, default=300.0, help="cost: the gate in seconds")
    args = parser.parse_args(argv)
    try:
        STAGES[args.stage](args)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
