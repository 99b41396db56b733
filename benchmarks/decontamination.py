"""What the decontamination step drops from a problem set, and what it costs.

    python benchmarks/decontamination.py --dataset mbpp \
        --source ../shared/data/mbpp_sanitized_humaneval_format.jsonl [--workers 2]

Prints how many (task, benchmark task) pairs each filter leaves (all pairs; entry-point
arity; arity and argument types), the closest pair by text, the wall time of the step on every task (all splits, so
the list shows test-split matches too), and each matching task with its split under the
dataset's build config and whether a build drops it (train/dev) or keeps it (test).

``--smoke``: two MBPP-shaped tasks made here, one a rewritten HumanEval ``flip_case``.
"""

from __future__ import annotations

import argparse
import time

import _harness

from data_builders.dataset.config import load_config
from data_builders.dataset.decontaminate import (
    arity,
    call_shapes,
    describe,
    find_duplicates,
    jaccard,
    load_benchmarks,
    ngrams,
    text_tokens,
)
from data_builders.dataset.pipeline import load_problems
from data_builders.dataset.splits import assign_splits
from data_builders.execution import ExecutionLimits, Executor

SMOKE_TASKS = [  # MBPP in HumanEval's shape: HumanEval/27 reworded and rewritten, and another
    {
        "task_id": "MbppEval/901",
        "prompt": 'def flip_case(string: str) -> str:\n    """\n    Write a function to flip '
        'lowercase characters to uppercase and uppercase to lowercase.\n    """\n',
        "canonical_solution": "    return ''.join(c.lower() if c.isupper() else c.upper() "
        "for c in string)\n",
        "entry_point": "flip_case",
        "test": "def check(candidate):\n    assert flip_case('aB') == 'Ab'\n",
    },
    {
        "task_id": "MbppEval/902",
        "prompt": 'def sum_digits(n):\n    """\n    Write a function to get the sum of the '
        'digits of a non-negative integer.\n    """\n',
        "canonical_solution": "    return sum(int(d) for d in str(n))\n",
        "entry_point": "sum_digits",
        "test": "def check(candidate):\n    assert sum_digits(345) == 12\n",
    },
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="mbpp", choices=("mbpp", "apps", "humaneval"))
    parser.add_argument("--source", help="problem file, as for `build --source`")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--no-execute", action="store_true", help="pair counts and text overlap only (cheap)"
    )
    args = _harness.parse_args(parser)
    if args.smoke:
        args.dataset = "mbpp"
        args.source = str(_harness.write_jsonl(_harness.scratch() / "mbpp.jsonl", SMOKE_TASKS))
    with _harness.Report(__file__, args) as report:
        return benchmark(args, report)


def benchmark(args: argparse.Namespace, report: _harness.Report) -> int:
    config = load_config(args.dataset)
    settings = config.decontamination
    problems = load_problems(args.dataset, args.source)
    split_of = assign_splits([p.task_id for p in problems], config.split_ratios, config.seed)
    benchmarks = load_benchmarks(settings.benchmarks, settings.ngram, skip=args.dataset)
    tasks = [(p, p.reference) for p in problems]
    by_arity = by_shape = 0
    for problem, reference in tasks:
        accepted = arity(problem, reference)
        if accepted is None:
            continue
        shapes = call_shapes(problem)
        for bench in benchmarks:
            if bench.arg_counts and all(accepted.accepts(c) for c in bench.arg_counts):
                by_arity += 1
                by_shape += bench.could_match(accepted, shapes)
    print(
        f"{len(tasks)} tasks x {len(benchmarks)} benchmark tasks = {len(tasks) * len(benchmarks)}"
        f" pairs; arity can match: {by_arity}; arity and argument types: {by_shape}"
    )
    closest = max(
        (jaccard(ngrams(text_tokens(p), settings.ngram), b.grams), p.task_id, b.problem.task_id)
        for p, _ in tasks
        for b in benchmarks
    )
    report.figures.update(
        pairs=len(tasks) * len(benchmarks), arity_can_match=by_arity, arity_and_types=by_shape
    )
    report.figures["closest_text_jaccard"] = round(closest[0], 4)
    print(
        f"closest text: {closest[1]} vs {closest[2]}, word {settings.ngram}-gram Jaccard "
        f"{closest[0]:.3f} (threshold {settings.text_threshold})"
    )
    if args.no_execute:
        return 0
    started = time.perf_counter()
    limits = ExecutionLimits(timeout=config.limits.reference_limit)
    with Executor(workers=args.workers, limits=limits) as executor:
        found = find_duplicates(tasks, benchmarks, settings, executor)
    seconds = time.perf_counter() - started
    print(f"step on all {len(tasks)} tasks: {seconds:.1f} s wall, {args.workers} workers")
    dropped = [t for t in found if split_of[t] in settings.splits]
    report.figures.update(step_seconds=round(seconds, 2), matches=len(found), dropped=len(dropped))
    print(f"matches: {len(found)}; dropped by a build (train/dev): {len(dropped)}")
    for task_id, matches in found.items():
        verdict = "dropped" if task_id in dropped else "kept (test split)"
        print(f"  {task_id} [{split_of[task_id]}, {verdict}]: {describe(matches)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
