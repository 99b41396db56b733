"""JavaScript programs/s with the Node runner (a worker thread per program in one long-lived
Node) against one Node process per program, on the same HumanEval-X programs, side by side.

Both modes run inside the same sandbox with the same limits and give the same statuses
(``tests/languages/test_node_runner.py``); only the start-up differs. Alternates the modes
``--repeats`` times so a change in machine load hits both.

    python benchmarks/js_runner_vs_process.py --problems-file ../shared/data/humaneval_x/humaneval_js.jsonl.gz \\
        [--max-problems 40] [--workers 1] [--repeats 2]

``--smoke``: one task made here, two copies, one repeat (needs ``node``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import _harness

from data_builders.errors import UserError
from data_builders.execution.executor import Executor
from data_builders.execution.types import Program, TestCode


def canonical_programs(problems_file: Path, limit: int) -> list[Program]:
    """Each task's canonical solution with its own test (``label``'s program and test)."""
    from data_builders.problems.humaneval_x import (
        canonical_solution,
        load_humaneval_x_file,
        program_and_test,
    )

    problems = list(load_humaneval_x_file(problems_file).values())[:limit]
    out = []
    for problem in problems:
        source, test = program_and_test(problem, canonical_solution(problem))
        out.append(Program(source, TestCode(test), language="js"))
    return out


def timed(programs: list[Program], workers: int, runners: bool) -> tuple[float, int]:
    """Programs/s and how many passed every assertion (a first program warms each worker)."""
    with Executor("js", workers=workers, runners=runners) as executor:
        list(executor.map(programs[:workers]))
        started = time.monotonic()
        results = list(executor.map(programs))
        seconds = time.monotonic() - started
    return len(programs) / seconds, sum(r.passed for r in results)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems-file", type=Path, help="required")
    parser.add_argument("--max-problems", type=int, default=40)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=2)
    args = _harness.parse_args(parser, argv)
    if args.smoke:
        args.problems_file = _harness.tiny_humaneval_x(_harness.scratch())
        args.repeats = 1
    _harness.require("--problems-file", args.problems_file, parser)
    try:
        programs = canonical_programs(args.problems_file, args.max_problems)
        if not programs:
            raise UserError(f"{args.problems_file}: no problems")
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.smoke:
        programs *= 2
    with _harness.Report(__file__, args) as report:
        benchmark(args, programs, report)
    return 0


def benchmark(args: argparse.Namespace, programs: list[Program], report) -> None:
    if args.smoke:
        _harness.need_tools("node")
    rates: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.repeats):
        for runners in (True, False):
            rate, passed = timed(programs, args.workers, runners)
            rates[runners].append(rate)
            mode = "runner " if runners else "process"
            print(f"{mode}: {rate:6.2f} programs/s ({passed}/{len(programs)} passed)")
    runner, process = (sum(rates[m]) / len(rates[m]) for m in (True, False))
    report.figures.update(
        runner_programs_per_s=round(runner, 3),
        process_programs_per_s=round(process, 3),
        runner_over_process=round(runner / process, 3),
    )
    print(
        f"runner / process per program: {runner / process:.2f}x"
        f" ({len(programs)} programs, {args.workers} worker(s), mean of {args.repeats})"
    )


if __name__ == "__main__":
    raise SystemExit(main())
