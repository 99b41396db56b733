"""Test programs for the multilingual harness checks: canonical solutions and simple mutants.

From a HumanEval-X file, writes samples (``task_id`` + ``completion``): each task's canonical
solution and up to ``--mutants`` textual mutants of it (a comparison, an arithmetic operator, a
boolean or a constant changed at a seeded position), so some pass and some fail or do not
compile. With ``--format multipl-e`` it also writes MultiPL-E rows built from the same
problems, in MultiPL-E's conventions (the completion is cut at MultiPL-E's stop tokens for the
language and the tests close the function, as MultiPL-E's own C++/Java tests do; JavaScript's
``console.assert`` becomes ``node:assert``'s ``assert.ok`` so a failed assertion fails), and
samples whose ``task_id`` is the row's ``name``. These are programs we generate for checking
agreement between harnesses; nothing here comes from MultiPL-E's data (never train on MultiPL-E).

    python benchmarks/make_multilingual_programs.py --problems-file ../shared/data/humaneval_x/humaneval_cpp.jsonl.gz \\
        --language cpp --max-problems 20 --mutants 3 --out-samples /tmp/cpp_samples.jsonl

``--wrong next-task`` writes the ``executor_x`` mix instead of mutants: each task's canonical
solution and the NEXT task's canonical solution as a wrong program (the last task takes the
first's), which often does not compile or fails at once, as a wrong program in real output does
(issue 45 item 5's speed mix for ``label_vs_plain_harness.py``).

The mutants and rows are ``data_builders.problems.multipl_e_rows``'s. ``--smoke``: a JavaScript
task made here, as MultiPL-E rows, written to a scratch folder (no toolchain needed).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import _harness

from data_builders.errors import UserError
from data_builders.jsonl import write_jsonl
from data_builders.problems.multipl_e_rows import STOP_TOKENS, multipl_e_row, mutants


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems-file", type=Path, help="HumanEval-X .jsonl[.gz]; required")
    parser.add_argument("--language", choices=sorted(STOP_TOKENS), help="required")
    parser.add_argument("--format", default="humaneval-x", choices=("humaneval-x", "multipl-e"))
    parser.add_argument("--max-problems", type=int, default=None)
    parser.add_argument("--mutants", type=int, default=3, help="mutants per task")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--wrong",
        default="mutants",
        choices=("mutants", "next-task"),
        help="wrong programs: --mutants mutants per task, or the next task's canonical solution",
    )
    parser.add_argument("--out-samples", type=Path, help="required")
    parser.add_argument(
        "--out-problems", type=Path, help="MultiPL-E rows (with --format multipl-e)"
    )
    args = _harness.parse_args(parser, argv)
    if args.smoke:
        folder = _harness.scratch()
        args.problems_file = _harness.tiny_humaneval_x(folder)
        args.language, args.format = "js", "multipl-e"
        args.out_samples, args.out_problems = folder / "samples.jsonl", folder / "rows.jsonl"
    for flag in ("--problems-file", "--language", "--out-samples"):
        _harness.require(flag, getattr(args, flag[2:].replace("-", "_")), parser)
    with _harness.Report(__file__, args) as report:
        return benchmark(args, report)


def benchmark(args: argparse.Namespace, report: _harness.Report) -> int:
    try:
        from data_builders.problems.humaneval_x import canonical_solution, load_humaneval_x_file

        if args.format == "multipl-e" and args.out_problems is None:
            raise UserError("--format multipl-e writes problems too: pass --out-problems PATH")
        problems = [
            p for p in load_humaneval_x_file(args.problems_file).values()
            if p.metadata["language"] == args.language
        ][: args.max_problems]  # fmt: skip
        if not problems:
            raise UserError(f"{args.problems_file}: no {args.language} tasks")
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    rows, samples, skipped = [], [], []
    for index, problem in enumerate(problems):
        number = problem.task_id.split("/")[1]
        task_id = problem.task_id
        if args.format == "multipl-e":
            task_id = f"HumanEval_{number}_{args.language}"
            row = multipl_e_row(problem, args.language, task_id)
            if row is None:
                skipped.append(problem.task_id)
                continue
            rows.append(row)
        canonical = canonical_solution(problem)
        if args.wrong == "next-task":
            wrong = [canonical_solution(problems[(index + 1) % len(problems)])]
        else:
            wrong = mutants(canonical, args.mutants, rng)
        for completion in [canonical, *wrong]:
            samples.append({"task_id": task_id, "completion": completion})
    write_jsonl(args.out_samples, samples)
    if rows:
        write_jsonl(args.out_problems, rows)
    counts = {
        "tasks": len(problems),
        "samples": len(samples),
        "problems_rows": len(rows),
        "skipped": skipped,
    }
    report.figures.update(counts)
    print(json.dumps(counts))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
