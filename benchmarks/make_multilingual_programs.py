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
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from data_builders.errors import UserError  # noqa: E402
from data_builders.jsonl import write_jsonl  # noqa: E402

# MultiPL-E's stop tokens for these languages (its dataset rows carry them per problem).
STOP_TOKENS = {
    "cpp": ["\n}"],
    "java": ["\n    }\n"],
    "js": ["\nfunction ", "\n/*", "\n//", "\nconsole.log"],
}
# What the tests must start with once the completion is cut before the function's end.
TEST_OPENERS = {"cpp": "}\n", "java": "    }\n}\n", "js": ""}
OPERATORS = [
    (r"(?<![<>=!])==(?!=)", "!="),
    (r"!=", "=="),
    (r"<=", "<"),
    (r">=", ">"),
    (r"(?<![<>=-])>(?![>=])", ">="),
    (r"(?<![<])<(?![<=])", "<="),
    (r"(?<![+])\+(?![+=])", "-"),
    (r"\btrue\b", "false"),
    (r"\bfalse\b", "true"),
    (r"\b0\b", "1"),
    (r"\b1\b", "2"),
    (r"&&", "||"),
]


def mutants(code: str, count: int, rng: random.Random) -> list[str]:
    """Up to ``count`` distinct one-edit mutants of ``code`` (operator and site chosen by ``rng``)."""
    if count <= 0:
        return []
    sites = [
        (m.start(), m.end(), new) for pattern, new in OPERATORS for m in re.finditer(pattern, code)
    ]
    rng.shuffle(sites)
    out: list[str] = []
    for start, end, new in sites:
        mutant = code[:start] + new + code[end:]
        if mutant != code and mutant not in out:
            out.append(mutant)
        if len(out) == count:
            break
    return out


def multipl_e_row(problem, language: str, name: str) -> dict:
    """A MultiPL-E row for a HumanEval-X problem (prompt as the program's head, tests closing it)."""
    from data_builders.problems.humaneval_x import program_and_test

    prompt, test = program_and_test(problem, "")
    if language == "js":
        test = "const assert = require('node:assert');\n" + test.replace(
            "console.assert(", "assert.ok("
        )
    return {
        "name": name,
        "language": language,
        "prompt": prompt,
        "tests": TEST_OPENERS[language] + test,
        "stop_tokens": STOP_TOKENS[language],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems-file", required=True, type=Path, help="HumanEval-X .jsonl[.gz]")
    parser.add_argument("--language", required=True, choices=sorted(STOP_TOKENS))
    parser.add_argument("--format", default="humaneval-x", choices=("humaneval-x", "multipl-e"))
    parser.add_argument("--max-problems", type=int, default=None)
    parser.add_argument("--mutants", type=int, default=3, help="mutants per task")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-samples", required=True, type=Path)
    parser.add_argument(
        "--out-problems", type=Path, help="MultiPL-E rows (with --format multipl-e)"
    )
    args = parser.parse_args(argv)
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
    rows, samples = [], []
    for problem in problems:
        number = problem.task_id.split("/")[1]
        task_id = problem.task_id
        if args.format == "multipl-e":
            task_id = f"HumanEval_{number}_{args.language}"
            rows.append(multipl_e_row(problem, args.language, task_id))
        canonical = canonical_solution(problem)
        for completion in [canonical, *mutants(canonical, args.mutants, rng)]:
            samples.append({"task_id": task_id, "completion": completion})
    write_jsonl(args.out_samples, samples)
    if rows:
        write_jsonl(args.out_problems, rows)
    print(json.dumps({"tasks": len(problems), "samples": len(samples), "problems_rows": len(rows)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
