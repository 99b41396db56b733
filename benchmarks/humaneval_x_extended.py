"""HE-Eval's extended tests translated into each HumanEval-X language, run on that
language's canonical solution.

Item 5 of issue 19 in numbers: per language, how many tasks and tests translate (the
``multilingual-data`` translation: ``data_builders/test_translation/``) and how many of the
translated tests the language's own canonical solution passes through the sandboxed runner
(one status per assertion). A translated test the canonical solution fails is one whose
expected value (from the Python reference) the language's solution does not reproduce:
those are the tests an HE-Eval-X build would drop or recompute.

    python benchmarks/humaneval_x_extended.py --data ../shared/data/humaneval_x \
        [--languages js,cpp,java,go,rust] [--max-problems N] [--workers 2]

``--smoke``: HumanEval/0 only, in JavaScript (a task made here; needs ``node``).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections import Counter
from pathlib import Path

import _harness

from data_builders.dataset.humaneval_suites import humaneval_suites
from data_builders.execution.compiled.languages import get_language
from data_builders.execution.executor import Executor
from data_builders.execution.types import Program, TestCode
from data_builders.problems.humaneval_x import (
    canonical_solution,
    load_humaneval_x_file,
    program_and_test,
)
from data_builders.test_translation.coverage import load_rows, translate_task
from data_builders.test_translation.suites import extended_test


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/humaneval_x"))
    parser.add_argument("--languages", default="js,cpp,java,go,rust")
    parser.add_argument("--max-problems", type=int, default=None)
    parser.add_argument("--workers", type=int, default=2)
    args = _harness.parse_args(parser)
    if args.smoke:
        args.data, args.languages, args.max_problems = _harness.scratch(), "js", 1
        _harness.tiny_humaneval_x(args.data)
    with _harness.Report(__file__, args) as report:
        benchmark(args, report)


def benchmark(args: argparse.Namespace, report: _harness.Report) -> None:
    if args.smoke and get_language("js").missing_toolchain():
        raise _harness.Skipped(get_language("js").missing_toolchain())
    suites, entries = humaneval_suites(args.max_problems, args.workers, None)
    print(f"HE-Eval extended cases: {sum(len(c) for c in suites.values())} in {len(suites)} tasks")
    for language in args.languages.split(","):
        missing = get_language(language).missing_toolchain()
        if missing:
            print(f"{language}: skipped ({missing})")
            continue
        file = args.data / f"humaneval_{language}.jsonl.gz"
        problems = {int(t.split("/")[1]): p for t, p in load_humaneval_x_file(file).items()}
        rows = {int(r["task_id"].split("/")[1]): r for r in load_rows(args.data, language)}
        jobs, reasons = [], Counter()
        for index, cases in sorted(suites.items()):
            if not cases or index not in problems:
                continue
            done, why = translate_task(rows[index], cases, entries.get(index))
            reasons.update(why)
            if not done:
                continue
            problem = problems[index]
            source, _ = program_and_test(problem, canonical_solution(problem))
            header = ""
            if language == "go":
                header = program_and_test(
                    dataclasses.replace(problem, test=""), canonical_solution(problem)
                )[1]
            jobs.append(
                (
                    index,
                    len(cases),
                    Program(
                        source, TestCode(extended_test(language, done, header)), language=language
                    ),
                )
            )
        started = time.monotonic()
        with Executor(language, workers=args.workers) as ex:
            results = list(ex.map(p for _, _, p in jobs))
        wall = time.monotonic() - started
        tests = sum(r.n_tests for r in results)
        passing = sum(r.status_counts["pass"] for r in results)
        statuses = Counter()
        for r in results:
            statuses.update({k: v for k, v in r.status_counts.items() if v and k != "pass"})
        all_pass = sum(r.passed for r in results)
        report.figures[language] = {
            "tasks_translated": len(jobs),
            "tests": tests,
            "canonical_passing_tests": passing,
            "tasks_all_passing": all_pass,
            "other_statuses": dict(statuses),
            "wall_s": round(wall, 1),
        }
        print(
            f"{language}: {len(jobs)} of {len(suites)} tasks translate, {tests} tests"
            f" ({tests / max(len(jobs), 1):.1f} per task); the canonical solution passes {passing}"
            f" ({passing / max(tests, 1):.1%}), all of them on {all_pass} tasks; other statuses"
            f" {dict(statuses)}; {wall:.0f} s"
        )
        for reason, count in reasons.most_common(4):
            print(f"      not translated {count:6d}  {reason}")
        worst = sorted(zip(jobs, results, strict=True), key=lambda jr: jr[1].pass_ratio)[:5]
        for (index, _, _), result in worst:
            if result.passed:
                continue
            bad = next(o for o in result.outcomes if o.status != "pass")
            print(
                f"      task {index}: pass_ratio {result.pass_ratio:.2f} {bad.status} {' '.join(bad.detail.split())[:120]}"
            )


if __name__ == "__main__":
    main()
