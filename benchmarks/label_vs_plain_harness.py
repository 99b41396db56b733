"""Programs/s of ``label`` (per-assertion verdicts, sandboxed) against a plain harness that runs
each program once as MultiPL-E's evaluator does, on the same programs, 2 workers each.

The plain harness writes the whole program to a scratch folder, compiles it once and runs it
once with MultiPL-E's per-language commands, timeouts and pass rules (``run_plain``; C++, Java,
JavaScript, Go, Rust), one verdict per program, no sandbox. ``benchmarks/multipl_e_agreement.py``
checks it against MultiPL-E's own evaluation code. For HumanEval-X programs ``console.assert`` is made to throw (in Node it
only prints, so every JavaScript program would "pass"), so both harnesses judge the same thing.

Problems: ``--problems-format humaneval-x`` (a THUDM/humaneval-x file; the program is what
``label --problems humaneval-x`` runs: ``program_and_test``) or ``multipl-e`` (MultiPL-E rows;
the program is ``prompt + cut completion + "\\n" + tests``). When the tree's ``label`` accepts
that problem set, it is timed on the same samples and the pass/fail agreement is printed.

    python benchmarks/label_vs_plain_harness.py --language cpp \\
        --problems-file ../shared/data/humaneval_x/humaneval_cpp.jsonl.gz --samples S.jsonl

``label`` runs as a user runs it: per-assertion limits calibrated from each task's canonical
solution (HumanEval-X; MultiPL-E has no reference, so a flat 3 s), the canonical solutions
timed within the measured time. The plain harness gives a program MultiPL-E's whole-program
timeouts (5-30 s).

Timings are wall-clock on whatever else the machine is doing: compare the two figures of one run.
``--smoke``: JavaScript (needs ``node``), one HumanEval-X task made here, three samples.
The harness itself is ``data_builders.execution.compiled.plain_harness``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import _harness

from data_builders.errors import UserError
from data_builders.execution.compiled.plain_harness import TOOLS, javatuples_jar, run_plain
from data_builders.jsonl import read_jsonl
from data_builders.problems.plain_programs import build_programs


def label_problem_sets() -> list[str]:
    """The ``--problems`` choices of this tree's ``label`` (empty when it has none)."""
    from data_builders import label

    return list(getattr(label, "PROBLEM_SETS", ()))


def label_rows(
    fmt: str, problems_file: Path, samples: Path, workers: int, cache: Path | None = None
) -> tuple[list[dict], float]:
    """Time ``python -m data_builders label --problems FMT`` on the samples: its rows, seconds.

    HumanEval-X: per-assertion limits are calibrated from the canonical solutions, whose times
    ``cache`` keeps (``None``: timed afresh within the measured time)."""
    with tempfile.TemporaryDirectory(prefix="label-bench-") as folder:
        out = Path(folder) / "labels.jsonl"
        cmd = [
            sys.executable, "-m", "data_builders", "label", "--problems", fmt,
            "--problems-file", str(problems_file), "--samples", str(samples),
            "--out", str(out), "--workers", str(workers),
            "--reference-cache", str(cache) if cache is not None else "none",
        ]  # fmt: skip
        env = {**os.environ, "PYTHONPATH": str(_harness.REPO)}
        started = time.monotonic()
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        seconds = time.monotonic() - started
        if done.returncode != 0:
            raise UserError(f"label failed: {done.stderr.strip().splitlines()[-1:]}")
        return list(read_jsonl(out)), seconds


def run_label(
    fmt: str, problems_file: Path, samples: Path, workers: int, cache: Path | None = None
) -> tuple[list[bool], float]:
    """Time ``python -m data_builders label`` on the samples; its per-sample ``passed``."""
    rows, seconds = label_rows(fmt, problems_file, samples, workers, cache)
    return [bool(row["passed"]) for row in rows], seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--language", choices=sorted(TOOLS), help="required")
    parser.add_argument("--problems-file", type=Path, help="required")
    parser.add_argument(
        "--problems-format", default="humaneval-x", choices=("humaneval-x", "multipl-e")
    )
    parser.add_argument("--samples", type=Path, help="task_id + completion per line; required")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds per compile and per run (default: MultiPL-E's per language)",
    )
    parser.add_argument("--no-label", action="store_true", help="time the plain harness only")
    parser.add_argument("--verdicts", type=Path, help="write per-program verdicts (JSONL) here")
    args = _harness.parse_args(parser, argv)
    if args.smoke:
        folder = _harness.scratch()
        args.language, args.problems_format = "js", "humaneval-x"
        args.problems_file = _harness.tiny_humaneval_x(folder)
        solution = _harness.JS_TASK["canonical_solution"]
        completions = [solution, solution.replace("< threshold", "> threshold"), "  return (\n}\n"]
        rows = [{"task_id": "JavaScript/0", "completion": c} for c in completions]
        args.samples = _harness.write_jsonl(folder / "samples.jsonl", rows)
    for flag in ("--language", "--problems-file", "--samples"):
        _harness.require(flag, getattr(args, flag[2:].replace("-", "_")), parser)
    try:
        with _harness.Report(__file__, args) as report:
            return benchmark(args, report)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def benchmark(args: argparse.Namespace, report: _harness.Report) -> int:
    missing = [t for t in TOOLS[args.language] if shutil.which(t) is None]
    if missing and args.smoke:
        raise _harness.Skipped(f"{', '.join(missing)} not on PATH")
    if missing:
        raise UserError(f"{args.language}: {', '.join(missing)} not on PATH; install the toolchain")
    if args.language == "java" and javatuples_jar() is None:
        print("note: javatuples not found (apt install libjavatuples-java or set JAVATUPLES_JAR)")
    programs = build_programs(args.problems_format, args.language, args.problems_file, args.samples)
    if not programs:
        raise UserError(f"{args.samples}: no samples")
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=args.workers) as pool:
        verdicts = list(pool.map(lambda p: run_plain(args.language, p[1], args.timeout), programs))
    plain_seconds = time.monotonic() - started
    n = len(programs)
    stages = {s: sum(v.stage == s for v in verdicts) for s in ("ok", "compile", "run", "timeout")}
    report.figures["plain_programs_per_s"] = round(n / plain_seconds, 3)
    report.figures["plain_stages"] = stages
    print(
        f"plain  {args.language}: {n} programs in {plain_seconds:.1f} s = {n / plain_seconds:.2f}"
        f" programs/s ({args.workers} workers); passed {stages['ok']}, compile errors"
        f" {stages['compile']}, run failures {stages['run']}, timeouts {stages['timeout']}"
    )
    if args.verdicts:
        rows = [
            {"task_id": t, "passed": v.passed, "stage": v.stage, "seconds": round(v.seconds, 3)}
            for (t, _), v in zip(programs, verdicts, strict=True)
        ]
        args.verdicts.write_text("".join(json.dumps(r) + "\n" for r in rows))
    if args.no_label:
        return 0
    if args.problems_format not in label_problem_sets():
        print(
            f"label: this tree's label has no --problems {args.problems_format}; plain figures only"
        )
        return 0
    with tempfile.TemporaryDirectory(prefix="label-bench-cache-") as folder:
        cache = Path(folder) / "reference_times.json"
        labelled, label_seconds = run_label(
            args.problems_format, args.problems_file, args.samples, args.workers, cache
        )
        if len(labelled) != n:
            raise UserError(f"label wrote {len(labelled)} rows for {n} samples")
        agree = sum(a == v.passed for a, v in zip(labelled, verdicts, strict=True))
        calibrated = args.problems_format == "humaneval-x"
        print(
            f"label  {args.language}: {n} programs in {label_seconds:.1f} s ="
            f" {n / label_seconds:.2f} programs/s ({args.workers} workers, per-assertion"
            f" verdicts{', canonical solutions timed within' if calibrated else ''});"
            f" passed {sum(labelled)}"
        )
        report.figures["label_programs_per_s"] = round(n / label_seconds, 3)
        report.figures["ratio_label_plain"] = round(plain_seconds / label_seconds, 3)
        report.figures["agreement"] = f"{agree}/{n}"
        print(
            f"ratio label/plain programs/s: {plain_seconds / label_seconds:.2f}x; pass/fail"
            f" agreement {agree}/{n} = {100 * agree / n:.1f}%"
        )
        if calibrated:  # a later run on the same problems reads the canonical times
            again, warm_seconds = run_label(
                args.problems_format, args.problems_file, args.samples, args.workers, cache
            )
            same = sum(a == b for a, b in zip(again, labelled, strict=True))
            report.figures["cached_label_programs_per_s"] = round(n / warm_seconds, 3)
            report.figures["cached_ratio_label_plain"] = round(plain_seconds / warm_seconds, 3)
            print(
                f"label  {args.language}, canonical times cached: {n / warm_seconds:.2f}"
                f" programs/s; ratio label/plain {plain_seconds / warm_seconds:.2f}x;"
                f" same pass/fail as the first label run {same}/{n}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
