"""HumanEval-X's canonical solutions through the sandboxed runner, per language.

For each language: tasks, assertions per task (after splitting), how many canonical
solutions pass every assertion, and each one that does not with its statuses and the first
failure's detail; plus wall time, compiles and their wall time. The numbers of the table in
docs/languages.md and the README come from this script.

    python benchmarks/humaneval_x_canonical.py --data ../shared/data/humaneval_x \
        [--languages cpp,java,js,go,rust] [--workers 2] [--max-problems N] [--no-compile-servers]
        [--tasks Go/50,Go/95 --repeat 10]   # a flakiness check: each task N times

Each language's line ``per-assertion CPU s`` gives the passing assertions' CPU times (the
sandboxed process tree, counted in clock ticks as the limits are): median, p99, p99.9 and
the max with its task, over every repeat; ``--floor-multiple K`` adds the floor K x that max
would give. This is the check behind a language's own ``calibrated_floor`` (its section of
``configs/build/limits.yaml``): run it with ``--repeat`` on a loaded machine.

``--smoke``: JavaScript only, one task made here (needs ``node``).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import _harness

from data_builders.execution.compiled.languages import get_language
from data_builders.execution.executor import Executor
from data_builders.execution.types import Program, TestCode
from data_builders.languages import HUMANEVAL_X
from data_builders.problems.humaneval_x import (
    canonical_solution,
    load_humaneval_x_file,
    program_and_test,
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/humaneval_x"))
    parser.add_argument("--languages", default=",".join(HUMANEVAL_X))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--max-problems", type=int, default=None)
    parser.add_argument(
        "--tasks", default=None, help="only these task ids, comma-separated (e.g. Go/50,Go/95)"
    )
    parser.add_argument(
        "--repeat", type=int, default=1, help="run each task N times (flakiness checks)"
    )
    parser.add_argument(
        "--floor-multiple",
        type=float,
        default=None,
        help="also print the floor this multiple of the slowest passing assertion would give",
    )
    parser.add_argument(
        "--no-compile-servers",
        action="store_true",
        help="compile every program with the command line (Java: javac per program)",
    )
    args = _harness.parse_args(parser)
    if args.smoke:
        args.data, args.languages = _harness.scratch(), "js"
        _harness.tiny_humaneval_x(args.data)
    with _harness.Report(__file__, args) as report:
        benchmark(args, report)


def benchmark(args: argparse.Namespace, report: _harness.Report) -> None:
    rows = []
    for language in args.languages.split(","):
        missing = get_language(language).missing_toolchain()
        if missing and args.smoke:
            raise _harness.Skipped(missing)
        if missing:
            print(f"{language}: skipped ({missing})")
            continue
        problems = list(
            load_humaneval_x_file(args.data / f"humaneval_{language}.jsonl.gz").values()
        )
        if args.tasks:
            wanted = set(args.tasks.split(","))
            problems = [p for p in problems if p.task_id in wanted]
        problems = [p for p in problems[: args.max_problems] for _ in range(args.repeat)]
        programs = []
        for problem in problems:
            source, test = program_and_test(problem, canonical_solution(problem))
            programs.append(Program(source, TestCode(test), language=language))
        started = time.monotonic()
        with Executor(
            language, workers=args.workers, compile_servers=not args.no_compile_servers
        ) as ex:
            results = list(ex.map(programs))
            compiles, compile_wall = ex.pool.compiles, ex.pool.compile_seconds
        wall = time.monotonic() - started
        counts = [r.n_tests for r in results]
        passed = sum(r.passed for r in results)
        print(
            f"{language}: {len(problems)} tasks, assertions per task mean {statistics.mean(counts):.1f}"
            f" (min {min(counts)}, max {max(counts)}), canonical passed {passed}/{len(problems)};"
            f" {wall:.0f} s wall, {compiles} compiles ({compile_wall:.0f} s wall in compiles),"
            f" isolation {results[0].isolation if results else '?'}"
        )
        for problem, result in zip(problems, results, strict=True):
            if not result.passed:
                bad = [o for o in result.outcomes if o.status != "pass"]
                shown = {k: v for k, v in result.status_counts.items() if v}
                detail = (
                    " ".join(bad[0].detail.split())[:160] if bad else "no assertion in its test"
                )
                print(f"  {problem.task_id}: {shown} {detail}")
        timing = assertion_times(problems, results, args.floor_multiple)
        rows.append((language, len(problems), statistics.mean(counts), passed))
        report.figures[language] = {
            "tasks": len(problems),
            "assertions_per_task": round(statistics.mean(counts), 2),
            "canonical_passed": passed,
            "wall_s": round(wall, 1),
            "compiles": compiles,
            "compile_wall_s": round(compile_wall, 1),
            **timing,
        }
    print("\n| language | tasks | assertions per task | canonical solutions passing |")
    print("| --- | --- | --- | --- |")
    for language, tasks, mean, passed in rows:
        print(f"| {language} | {tasks} | {mean:.1f} | {passed}/{tasks} |")


def assertion_times(problems: list, results: list, multiple: float | None) -> dict[str, float]:
    """Print and return the passing assertions' CPU times (median, p99, p99.9, max)."""
    times = sorted(
        (o.time, problem.task_id)
        for problem, result in zip(problems, results, strict=True)
        for o in result.outcomes
        if o.status == "pass"
    )
    if not times:
        return {}

    def quantile(q: float) -> float:
        return times[min(len(times) - 1, int(q * len(times)))][0]

    slowest, task = times[-1]
    figures = {
        "assertions_timed": len(times),
        "assertion_cpu_median_s": quantile(0.5),
        "assertion_cpu_p99_s": quantile(0.99),
        "assertion_cpu_p999_s": quantile(0.999),
        "assertion_cpu_max_s": slowest,
    }
    line = (
        f"  per-assertion CPU s ({len(times)} passing): median {quantile(0.5):.3f},"
        f" p99 {quantile(0.99):.3f}, p99.9 {quantile(0.999):.3f}, max {slowest:.3f} ({task})"
    )
    if multiple is not None:
        figures["floor_at_multiple_s"] = round(multiple * slowest, 3)
        line += f"; {multiple:g} x max = {multiple * slowest:.3f} s"
    print(line)
    return figures


if __name__ == "__main__":
    main()
