"""What the after-timeout policy costs and changes, on real generations.

Runs the first ``--real`` CodeGen-16B samples per HumanEval problem (``../shared/data/
humaneval_codegen16b_samples.jsonl``) with ``label``'s calibrated per-test limits under
each policy for programs that keep timing out: no cap, ``after_timeout`` = the floor,
``after_timeout`` = 0.01 s (the default in ``configs/build/limits.yaml``), and
``--max-timeouts 1`` (stop and count the rest as timeouts). Prints CPU seconds, timed-out
tests, and how many samples' ``pass_ratio`` / verdict differ from running every test under
its full limit. The zygotes are warmed first, so the runs differ only in their timeouts.

    python benchmarks/executor_timeout_policy.py [--real 10] [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from executor_vs_humaneval import REAL_SAMPLES, cpu_seconds, sample_sets  # noqa: E402

from data_builders.execution import ExecutionLimits, Executor  # noqa: E402
from data_builders.execution.calibrate import ReferenceTimes, load_policy  # noqa: E402
from data_builders.label import calibrated_limits  # noqa: E402
from data_builders.problems.humaneval import load_humaneval, make_program  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--real", type=int, default=10, help="samples per problem")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    if not REAL_SAMPLES.is_file():
        sys.exit(f"error: {REAL_SAMPLES} not found (the shared data folder is needed)")
    problems = load_humaneval()
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
        print(f"{name:<20} {cpu:6.2f} CPU s {wall:6.2f} s wall  timed-out tests {timeouts:3d}  "
              f"pass_ratio changed {changed}  verdicts changed {flipped}")  # fmt: skip


if __name__ == "__main__":
    main()
