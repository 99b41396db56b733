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
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from data_builders.errors import UserError  # noqa: E402
from data_builders.jsonl import iter_jsonl, read_jsonl  # noqa: E402

JAVATUPLES = ("/usr/share/java/javatuples.jar",)
JS_ASSERT_THROWS = "console.assert = (ok, ...m) => { if (!ok) throw new Error('Assertion failed: ' + m.join(' ')); };\n"
TOOLS = {
    "cpp": ("g++",),
    "java": ("javac", "java"),
    "js": ("node",),
    "go": ("go",),
    "rust": ("rustc",),
}


@dataclass
class Verdict:
    """One program's plain-harness outcome: passed (exit 0 everywhere) and why not."""

    passed: bool
    stage: str  # "ok", "compile", "run", "timeout"
    seconds: float


def javatuples_jar() -> str | None:
    """javatuples on this machine ($JAVATUPLES_JAR, else Debian's libjavatuples-java)."""
    for path in (os.environ.get("JAVATUPLES_JAR", ""), *JAVATUPLES):
        if path and Path(path).is_file():
            return path
    return None


def _java_main_class(source: str) -> tuple[str, str]:
    """(file stem, class to run): the public class names the file; main's class is run."""
    public = re.search(r"^\s*public\s+(?:final\s+)?class\s+(\w+)", source, re.M)
    classes = list(re.finditer(r"\bclass\s+(\w+)", source))
    runner = None
    for i, match in enumerate(classes):
        end = classes[i + 1].start() if i + 1 < len(classes) else len(source)
        if "static void main(" in source[match.end() : end]:
            runner = match.group(1)
    name = runner or (classes[-1].group(1) if classes else "Main")
    return (public.group(1) if public else name), name


# MultiPL-E's evaluator, per language (nuprl/MultiPL-E evaluation/src/eval_*.py and its
# safe_subprocess, whose default timeout is 15 s): the commands, the timeouts and the pass rule.
# (compile timeout or None, run timeout); a compile that fails is a "SyntaxError".
TIMEOUTS = {"cpp": (15, 15), "java": (15, 15), "js": (None, 5), "go": (None, 30), "rust": (15, 5)}
GOPATH = "/usr/share/gocode"  # Debian's testify, for HumanEval-X's Go tests only


def run_plain(language: str, program: str, timeout: float | None = None) -> Verdict:
    """Compile once and run once, with MultiPL-E's commands, timeouts and pass rule.

    C++ ``g++ F -o B -std=c++17`` then ``B``; Java ``javac -encoding UTF8 -d OUT F`` (javatuples
    in ``CLASSPATH``) then ``java -ea -cp OUT:javatuples <main class>``; JavaScript ``node F``;
    Rust ``rustc F -o B`` (rustc's default edition, a debug build) then ``B``: a pass is exit
    code 0 within the timeout. Go ``go test F_test.go`` (compile, vet and run in one step, 30 s):
    a pass is a stdout without ``[setup failed]``, ``[build failed]`` or ``FAIL``, whatever the
    exit code. ``timeout`` (seconds) replaces every step's limit. HumanEval-X programs (not
    MultiPL-E's shape) need two extras: Rust ``#[cfg(test)]`` tests build with ``--edition 2021
    --test`` (as Cargo), and Go's testify comes from Debian's GOPATH.
    """
    started = time.monotonic()
    compile_limit, run_limit = TIMEOUTS[language]
    if timeout is not None:
        compile_limit, run_limit = timeout, timeout
    with tempfile.TemporaryDirectory(prefix="plain-") as folder:

        def step(
            cmd: list[str], stage: str, limit: float, env: dict[str, str] | None = None
        ) -> tuple[Verdict | None, str]:
            try:
                done = subprocess.run(
                    cmd, cwd=folder, capture_output=True, timeout=limit, stdin=subprocess.DEVNULL,
                    env={**os.environ, **(env or {})}, start_new_session=True,
                )  # fmt: skip
            except subprocess.TimeoutExpired:
                return Verdict(False, "timeout", time.monotonic() - started), ""
            out = done.stdout.decode("utf-8", "ignore")
            if done.returncode != 0 and language != "go":
                return Verdict(False, stage, time.monotonic() - started), out
            return None, out

        failed: Verdict | None = None
        if language == "cpp":
            Path(folder, "main.cpp").write_text(program)
            failed = step(
                ["g++", "main.cpp", "-o", "main", "-std=c++17"], "compile", compile_limit
            )[0]
            failed = failed or step(["./main"], "run", run_limit)[0]
        elif language == "java":
            stem, runner = _java_main_class(program)
            Path(folder, f"{stem}.java").write_text(program)
            jar = javatuples_jar() or ""
            env = {"CLASSPATH": jar}
            failed = step(
                ["javac", "-encoding", "UTF8", "-d", "out", f"{stem}.java"], "compile",
                compile_limit, env,
            )[0]  # fmt: skip
            failed = (
                failed
                or step(
                    ["java", "-ea", "-cp", f"out:{jar}" if jar else "out", runner],
                    "run",
                    run_limit,
                    env,
                )[0]
            )
        elif language == "js":
            Path(folder, "main.js").write_text(program)
            failed = step(["node", "main.js"], "run", run_limit)[0]
        elif language == "go":
            Path(folder, "main_test.go").write_text(program)
            env = {"GOPATH": GOPATH, "GO111MODULE": "off"} if "testify" in program else {}
            failed, out = step(["go", "test", "main_test.go"], "run", run_limit, env)
            if failed is None and ("[setup failed]" in out or "[build failed]" in out):
                failed = Verdict(False, "compile", time.monotonic() - started)
            elif failed is None and "FAIL" in out:
                failed = Verdict(False, "run", time.monotonic() - started)
        else:
            Path(folder, "main.rs").write_text(program)
            harness = ["--edition", "2021", "--test"] if "#[cfg(test)]" in program else []
            failed = step(["rustc", *harness, "main.rs", "-o", "main"], "compile", compile_limit)[0]
            failed = failed or step(["./main"], "run", run_limit)[0]
    return failed or Verdict(True, "ok", time.monotonic() - started)


def build_programs(
    fmt: str, language: str, problems_file: Path, samples: Path
) -> list[tuple[str, str]]:
    """``(task_id, whole program)`` per sample, as the label path would assemble it."""
    if fmt == "multipl-e":
        from data_builders.execution.languages import ALIASES
        from data_builders.problems.multipl_e import load_multipl_e_file, match_samples

        problems = [
            p
            for p in load_multipl_e_file(problems_file)
            if ALIASES.get(p.language, p.language) == language
        ]
        if not problems:
            raise UserError(f"{problems_file}: no MultiPL-E rows in {language}")
        return [(name, program) for name, _, program in match_samples(problems, samples)]
    from data_builders.problems.humaneval_x import load_humaneval_x_file, program_and_test

    problems = load_humaneval_x_file(problems_file)
    out = []
    for line, sample in iter_jsonl(samples, required=("task_id", "completion"), what="sample"):
        problem = problems.get(sample["task_id"])
        if problem is None:
            raise UserError(f"{samples}:{line}: unknown task_id {sample['task_id']!r}")
        source, test = program_and_test(problem, sample["completion"])
        if language == "go":  # the test's package clause and imports must come first
            from data_builders.execution.languages.go import join_program

            program = join_program(source, test)
        else:
            program = source + "\n" + test
        out.append((sample["task_id"], JS_ASSERT_THROWS + program if language == "js" else program))
    return out


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
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
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
    parser.add_argument("--language", required=True, choices=sorted(TOOLS))
    parser.add_argument("--problems-file", required=True, type=Path)
    parser.add_argument(
        "--problems-format", default="humaneval-x", choices=("humaneval-x", "multipl-e")
    )
    parser.add_argument("--samples", required=True, type=Path, help="task_id + completion per line")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds per compile and per run (default: MultiPL-E's per language)",
    )
    parser.add_argument("--no-label", action="store_true", help="time the plain harness only")
    parser.add_argument("--verdicts", type=Path, help="write per-program verdicts (JSONL) here")
    args = parser.parse_args(argv)
    try:
        missing = [t for t in TOOLS[args.language] if shutil.which(t) is None]
        if missing:
            raise UserError(
                f"{args.language}: {', '.join(missing)} not on PATH; install the toolchain"
            )
        if args.language == "java" and javatuples_jar() is None:
            print(
                "note: javatuples not found (apt install libjavatuples-java or set JAVATUPLES_JAR)"
            )
        programs = build_programs(
            args.problems_format, args.language, args.problems_file, args.samples
        )
        if not programs:
            raise UserError(f"{args.samples}: no samples")
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=args.workers) as pool:
            verdicts = list(
                pool.map(lambda p: run_plain(args.language, p[1], args.timeout), programs)
            )
        plain_seconds = time.monotonic() - started
        n = len(programs)
        stages = {
            s: sum(v.stage == s for v in verdicts) for s in ("ok", "compile", "run", "timeout")
        }
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
            print(
                f"ratio label/plain programs/s: {plain_seconds / label_seconds:.2f}x; pass/fail"
                f" agreement {agree}/{n} = {100 * agree / n:.1f}%"
            )
            if calibrated:  # a later run on the same problems reads the canonical times
                again, warm_seconds = run_label(
                    args.problems_format, args.problems_file, args.samples, args.workers, cache
                )
                same = sum(a == b for a, b in zip(again, labelled, strict=True))
                print(
                    f"label  {args.language}, canonical times cached: {n / warm_seconds:.2f}"
                    f" programs/s; ratio label/plain {plain_seconds / warm_seconds:.2f}x;"
                    f" same pass/fail as the first label run {same}/{n}"
                )
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
