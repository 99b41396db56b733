"""Standard-input throughput: tests per second per core for stdin/stdout programs.

Programs read standard input and print (APPS style); each runs as ``__main__`` once per
test with fresh globals inside one forked child, stdout compared in the host. Measured with
1 worker and with ``--workers`` workers; target >= 4,000 tests/s per core. Also prints tests
per CPU-second of all processes involved, which hardly depends on machine load.

    python benchmarks/executor_stdio.py [--samples 50] [--tests 20] [--workers 2] [--smoke]
                                        [--json-out PATH]

``--smoke``: 8 programs of 5 tests.
"""

from __future__ import annotations

import argparse
import random
import time

import _harness
from _harness import cpu_seconds

from data_builders.execution import Executor, Program, StdioTest

PROGRAMS = [
    "import sys\na, b = map(int, sys.stdin.readline().split())\nprint(a + b)\n",
    "n, m = map(int, input().split())\nprint(max(n, m) - min(n, m))\n",
    "def main():\n    a, b = map(int, input().split())\n    print(a * b % 1000003)\n\n"
    "if __name__ == '__main__':\n    main()\n",
    "import sys\ndata = sys.stdin.buffer.read().split()\nprint(sum(map(int, data)))\n",
]
ANSWERS = [
    lambda a, b: a + b,
    lambda a, b: abs(a - b),
    lambda a, b: a * b % 1000003,
    lambda a, b: a + b,
]


def make_programs(samples: int, tests: int, seed: int = 0) -> list[Program]:
    rng = random.Random(seed)
    programs = []
    for i in range(samples):
        kind = i % len(PROGRAMS)
        cases = []
        for _ in range(tests):
            a, b = rng.randint(0, 10**6), rng.randint(0, 10**6)
            cases.append(StdioTest(f"{a} {b}\n", f"{ANSWERS[kind](a, b)}\n"))
        programs.append(Program(PROGRAMS[kind], cases))
    return programs


def measure(programs: list[Program], workers: int, report: _harness.Report) -> float:
    with Executor(workers=workers) as executor:
        list(executor.map(programs[:4]))  # warm up
        cpu, start = cpu_seconds(), time.perf_counter()
        results = list(executor.map(programs))
        elapsed, cpu = time.perf_counter() - start, cpu_seconds() - cpu
        isolation = executor.isolation
    n_tests = sum(r.n_tests for r in results)
    if not all(r.passed for r in results):
        raise RuntimeError("a reference stdin program failed")
    rate = n_tests / elapsed
    print(f"{workers} worker(s), {isolation}: {n_tests} tests in {elapsed:.2f}s = "
          f"{rate:,.0f} tests/s ({rate / workers:,.0f} per core); "
          f"{n_tests / cpu:,.0f} tests per CPU-second (host + workers)")  # fmt: skip
    report.figures[f"workers_{workers}"] = {
        "isolation": isolation,
        "tests": n_tests,
        "tests_per_s": round(rate, 1),
        "tests_per_s_per_core": round(rate / workers, 1),
        "tests_per_cpu_s": round(n_tests / cpu, 1),
    }
    return rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--tests", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    args = _harness.parse_args(parser)
    if args.smoke:
        args.samples, args.tests = 8, 5
    with _harness.Report(__file__, args) as report:
        programs = make_programs(args.samples, args.tests)
        measure(programs, 1, report)
        if args.workers > 1:
            measure(programs, args.workers, report)


if __name__ == "__main__":
    main()
