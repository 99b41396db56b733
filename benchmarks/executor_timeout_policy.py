"""What the after-timeout policy costs and changes, on real generations.

Runs the first ``--real`` CodeGen-16B samples per HumanEval problem (``../shared/data/
humaneval_codegen16b_samples.jsonl``) with ``label``'s calibrated per-test limits under
each policy for programs that keep timing out: no cap, ``after_timeout`` = the floor,
``after_timeout`` = 0.01 s (the default in ``configs/build/limits.yaml``), and
``--max-timeouts 1`` (stop and count the rest as timeouts). Prints CPU seconds, timed-out
tests, and how many samples' ``pass_ratio`` / verdict differ from running every test under
its full limit. The zygotes are warmed first, so the runs differ only in their timeouts.

    python benchmarks/executor_timeout_policy.py [--real 10] [--workers 2] [--smoke]
                                                 [--json-out PATH]

``--smoke``: 3 canonical solutions, one wrong and one that loops (the policies' case).
"""

from __future__ import annotations

import argparse
import sys
import time

import _harness
from _harness import REAL_SAMPLES, cpu_seconds
from executor_vs_humaneval import sample_sets

from data_builders.execution import ExecutionLimits, Executor
from data_builders.execution.calibrate import ReferenceTimes, load_policy
from data_builders.label import calibrated_limits
from data_builders.problems.humaneval import load_humaneval, make_program


def smoke_samples() -> list[tuple[str, str]]:
    """3 canonical solutions, one wrong (the next task's body) and one endless loop."""
    sets = sample_sets(0, 1, limit=4)
    canonical, wrong = (next(v for k, v in sets.items() if k.startswith(w)) for w in "cw")
    return [*canonical[:3], wrong[0], (canonical[3][0], "    while True:\n        pass\n")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", type=int, default=10, help="samples per problem")
    parser.add_argument("--workers", type=int, default=2)
    args = _harness.parse_args(parser)
    if not args.smoke and not REAL_SAMPLES.is_file():
        sys.exit(f"error: {REAL_SAMPLES} not found (the shared data folder is needed)")
    with _harness.Report(__file__, args) as report:
        benchmark(args, report)


def benchmark(args: argparse.Namespace, report: _harness.Report) -> None:
    problems = load_humaneval()
    if args.smoke:
        samples = smoke_samples()
    else:
        samples = next(iter(v for k, v in sample_sets(args.real, 1).items() if "codegen" in k))
    policy = load_policy()
    cache = ReferenceTimes(None)
    policies = {
        "no cap": dict(after_timeout=None, max_timeouts=None),
        f"after_timeout={policy.floor}": dict(after_timeout=policy.floor, max_timeouts=None),
        f"after_timeout={policy.after_timeout}": dict(
            after_timeout=policy.after_timeout, max_timeouts=None
        ),
        "max_timeouts=1": dict(after_timeout=None, max_timeouts=1),
    }
    baseline = None
    print(f"{len(samples)} samples, {args.workers} workers; CPU seconds include the workers")
    for name, options in policies.items():
        limits = ExecutionLimits(timeout=policy.load, **options)
        with Executor(workers=args.workers, limits=limits) as executor:
            tasks = {task for task, _ in samples}
            per_test = calibrated_limits(problems, tasks, executor, policy, cache)
            programs = []
            for task, completion in samples:
                program = make_program(problems[task], completion)
                program.test_timeouts = per_test[task]
                programs.append(program)
            list(executor.map(programs[:300]))  # warm each worker's import zygote
            cpu, start = cpu_seconds(), time.perf_counter()
            results = list(executor.map(programs))
            cpu, wall = cpu_seconds() - cpu, time.perf_counter() - start
        ratios = [r.pass_ratio for r in results]
        verdicts = [r.passed for r in results]
        baseline = baseline or (ratios, verdicts)
        timeouts = sum(o.status == "timeout" for r in results for o in r.outcomes)
        changed = sum(a != b for a, b in zip(ratios, baseline[0], strict=True))
        flipped = sum(a != b for a, b in zip(verdicts, baseline[1], strict=True))
        report.figures[name] = {
            "cpu_s": round(cpu, 3),
            "wall_s": round(wall, 3),
            "timed_out_tests": timeouts,
            "pass_ratio_changed": changed,
            "verdicts_changed": flipped,
        }
        print(f"{name:<20} {cpu:6.2f} CPU s {wall:6.2f} s wall  timed-out tests {timeouts:3d}  "
              f"pass_ratio changed {changed}  verdicts changed {flipped}")  # fmt: skip


if __name__ == "__main__":
    main()
