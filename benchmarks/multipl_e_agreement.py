"""Pass/fail of ``label --problems multipl-e`` against MultiPL-E's own evaluator, per language.

The reference is MultiPL-E's evaluation code itself: its per-language ``eval_script`` functions
(``eval_cpp``, ``eval_java``, ``eval_javascript``, ``eval_go``, ``eval_rust`` and
``safe_subprocess``), as the BigCode evaluation harness ships them in the PyPI wheel
``nvidia-bigcode-eval`` (``bigcode_eval/tasks/custom_metrics/multiple_metrics``). Nothing is
installed: the wheel is only read (``pip download --no-deps nvidia-bigcode-eval==26.3 -d DIR``,
then ``--evaluator-wheel DIR/nvidia_bigcode_eval-26.3-py3-none-any.whl``), its evaluator
package is unpacked to a temporary folder and loaded under a private name (the wheel's
``bigcode_eval.tasks`` package would import the whole harness and its dependencies). A program
passes when the evaluator's status is ``OK``, as MultiPL-E counts pass@k.

Two adaptations to this machine, both as MultiPL-E's upstream repository (nuprl/MultiPL-E,
``evaluation/src``) has them: Java's javatuples jar is Debian's
(``/usr/share/java/javatuples.jar``) instead of the container's ``/usr/multiple/...``, and it is
on the run's class path too (upstream ``eval_java`` passes it with ``-cp``; the wheel's copy
leaves it out, so a program using ``Pair`` at run time would fail there); Go programs are
written to a ``*_test.go`` file, as upstream's ``containerized_eval`` does for the language
``go_test.go`` (the wheel's copy maps ``go`` to a plain ``.go`` file, which ``go test`` finds
no tests in). The reference's ``node`` gets the ``NODE_PATH`` that ``label``'s gives
(global npm modules such as ``js-md5``; ``--bare-node`` to leave it out). With ``--reference plain`` the plain harness of
``data_builders.execution.compiled.plain_harness`` (the same rules, written there) is the reference.

The program is ``prompt + completion cut at the first stop token + "\\n" + tests`` (MultiPL-E
cuts at generation time; ``data_builders.problems.multipl_e.stop_at_stop_token``). Prints, per
language: programs, passes by each side, agreement and every disagreement with both sides'
statuses and the first lines of the reference's stderr.

    python benchmarks/multipl_e_agreement.py --problems P.jsonl --samples S.jsonl \\
        --evaluator-wheel W.whl [--workers 2] [--details D.jsonl]

``--smoke``: ``--reference plain`` (no wheel) on a JavaScript row made here and two samples
(needs ``node``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import tempfile
import time
import zipfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Any

import _harness

from data_builders.errors import UserError
from data_builders.languages import TABLE

EVALUATOR_PACKAGE = "bigcode_eval/tasks/custom_metrics/multiple_metrics/"
PRIVATE_NAME = "_multipl_e_evaluator"
DEBIAN_JAVATUPLES = "/usr/share/java/javatuples.jar"
CONTAINER_JAVATUPLES = "/usr/multiple/javatuples-1.2.jar"
# MultiPL-E's language field -> (evaluator module, file suffix), as upstream's containerized_eval.
EVALUATORS = {
    "cpp": ("eval_cpp", ".cpp"),
    "java": ("eval_java", ".java"),
    "js": ("eval_javascript", ".js"),
    "go_test.go": ("eval_go", "_test.go"),
    "rs": ("eval_rust", ".rs"),
}


def load_evaluator(wheel: Path, folder: Path) -> ModuleType:
    """MultiPL-E's evaluator package from the wheel, unpacked into ``folder`` and imported."""
    if not wheel.is_file():
        raise UserError(
            f"{wheel}: no such wheel; `pip download --no-deps nvidia-bigcode-eval==26.3 -d DIR`"
        )
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if n.startswith(EVALUATOR_PACKAGE)]
        if not names:
            raise UserError(f"{wheel}: no {EVALUATOR_PACKAGE} in it (not nvidia-bigcode-eval?)")
        for name in names:
            target = folder / PRIVATE_NAME / name[len(EVALUATOR_PACKAGE) :]
            if name.endswith("/"):
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(name))
    spec = importlib.util.spec_from_file_location(
        PRIVATE_NAME,
        folder / PRIVATE_NAME / "__init__.py",
        submodule_search_locations=[str(folder / PRIVATE_NAME)],
    )
    package = importlib.util.module_from_spec(spec)
    sys.modules[PRIVATE_NAME] = package
    spec.loader.exec_module(package)
    for module, _ in EVALUATORS.values():
        importlib.import_module(f"{PRIVATE_NAME}.{module}")
    _patch_java(sys.modules[f"{PRIVATE_NAME}.eval_java"])
    return package


def _patch_java(eval_java: ModuleType) -> None:
    """Debian's javatuples jar, on the compile and the run class path (as upstream MultiPL-E)."""
    original = eval_java.run

    def run(args: list[Any], *rest: Any, env: dict | None = None, **kw: Any) -> Any:
        args = [str(a) for a in args]
        if env is not None and env.get("CLASSPATH") == CONTAINER_JAVATUPLES:
            env = {**env, "CLASSPATH": DEBIAN_JAVATUPLES}
        if args[:1] == ["java"] and "-cp" in args:
            at = args.index("-cp") + 1
            if DEBIAN_JAVATUPLES not in args[at]:
                args[at] = f"{args[at]}:{DEBIAN_JAVATUPLES}"
        return original(args, *rest, env=env, **kw)

    eval_java.run = run


def evaluate(package: ModuleType, language: str, program: str) -> dict[str, Any]:
    """MultiPL-E's verdict on one program: ``eval_script`` on a temporary file of its suffix."""
    module, suffix = EVALUATORS[language]
    eval_script = sys.modules[f"{PRIVATE_NAME}.{module}"].eval_script
    with tempfile.TemporaryDirectory(prefix="multipl-e-") as folder:
        path = Path(folder) / f"program{suffix}"
        path.write_text(program, encoding="utf-8")
        result = eval_script(path)
    stderr = result.get("stderr") or ""
    stdout = result.get("stdout") or ""
    if isinstance(stderr, bytes):
        stderr = stderr.decode("utf-8", "ignore")
    if isinstance(stdout, bytes):
        stdout = stdout.decode("utf-8", "ignore")
    return {
        "status": result["status"],
        "passed": result["status"] == "OK",
        "exit_code": result.get("exit_code"),
        "stderr": (stderr or stdout)[:600],
    }


def plain_verdict(language: str, program: str) -> dict[str, Any]:
    """The plain harness's verdict (``plain_harness.run_plain``) in the same shape."""
    from data_builders.execution.compiled.plain_harness import run_plain

    verdict = run_plain(PLAIN_NAMES[language], program)
    return {"status": verdict.stage, "passed": verdict.passed, "exit_code": None, "stderr": ""}


# MultiPL-E's language field -> the project's name (the language table's).
PLAIN_NAMES = {info.multipl_e: info.name for info in TABLE if info.multipl_e}


def run_label(problems: Path, samples: Path, workers: int) -> tuple[list[dict], float]:
    """``python -m data_builders label --problems multipl-e`` on the samples: its rows, seconds."""
    from label_vs_plain_harness import label_rows

    return label_rows("multipl-e", problems, samples, workers)


def same_environment() -> None:
    """Give MultiPL-E's evaluator the global Node modules ``label`` sees (``js.py`` sets
    ``NODE_PATH``): HumanEval-X's ``stringToMd5`` needs the npm package ``js-md5``, which
    ``make system-deps`` installs globally, and a bare ``node`` does not look there. This is
    the machine's set-up, not a rule; ``--bare-node`` leaves it out."""
    from data_builders.execution.compiled.languages.js import JavaScript

    env = JavaScript().run_spec(1024).env or {}
    if "NODE_PATH" in env:
        os.environ["NODE_PATH"] = env["NODE_PATH"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=Path, help="MultiPL-E rows (.jsonl); required")
    parser.add_argument("--samples", type=Path, help="task_id + completion; required")
    parser.add_argument("--reference", default="multipl-e", choices=("multipl-e", "plain"))
    parser.add_argument("--evaluator-wheel", type=Path, help="nvidia-bigcode-eval's wheel")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--details", type=Path, help="write one JSON line per program here")
    parser.add_argument("--label-rows", type=Path, help="reuse label's output instead of running")
    parser.add_argument(
        "--bare-node", action="store_true", help="no NODE_PATH for the reference's node"
    )
    args = _harness.parse_args(parser, argv)
    if args.smoke:
        smoke_inputs(args)
    for flag in ("--problems", "--samples"):
        _harness.require(flag, getattr(args, flag[2:]), parser)
    if not args.bare_node:
        same_environment()
    try:
        with _harness.Report(__file__, args) as report:
            benchmark(args, report)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def smoke_inputs(args: argparse.Namespace) -> None:
    """A MultiPL-E row from the harness's JavaScript task, its solution and one mutant."""
    from data_builders.problems.humaneval_x import canonical_solution, load_humaneval_x_file
    from data_builders.problems.multipl_e_rows import multipl_e_row

    folder = _harness.scratch()
    problem = next(iter(load_humaneval_x_file(_harness.tiny_humaneval_x(folder)).values()))
    row = multipl_e_row(problem, "js", "HumanEval_0_js")
    solution = canonical_solution(problem)
    samples = [solution, solution.replace("< threshold", ">= threshold")]
    args.problems = _harness.write_jsonl(folder / "rows.jsonl", [row])
    args.samples = _harness.write_jsonl(
        folder / "samples.jsonl", [{"task_id": row["name"], "completion": c} for c in samples]
    )
    args.reference = "plain"


def benchmark(args: argparse.Namespace, report: _harness.Report) -> None:
    if args.smoke:
        _harness.need_tools("node")
    from data_builders.problems.multipl_e import load_multipl_e_file, match_samples

    problems = load_multipl_e_file(args.problems)
    languages = {p.task_id: p.language for p in problems}
    unknown = sorted(set(languages.values()) - set(EVALUATORS))
    if unknown:
        raise UserError(f"{args.problems}: languages {unknown} not checked here")
    programs = match_samples(problems, args.samples)
    with tempfile.TemporaryDirectory(prefix="multipl-e-eval-") as folder:
        if args.reference == "multipl-e":
            if args.evaluator_wheel is None:
                raise UserError("--reference multipl-e needs --evaluator-wheel PATH")
            package = load_evaluator(args.evaluator_wheel, Path(folder))

            def judge(item: tuple[str, int, str]) -> dict[str, Any]:
                return evaluate(package, languages[item[0]], item[2])
        else:

            def judge(item: tuple[str, int, str]) -> dict[str, Any]:
                return plain_verdict(languages[item[0]], item[2])

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=args.workers) as pool:
            reference = list(pool.map(judge, programs))
        reference_seconds = time.monotonic() - started
    if args.label_rows:
        from data_builders.jsonl import read_jsonl

        labels, label_seconds = list(read_jsonl(args.label_rows)), float("nan")
    else:
        labels, label_seconds = run_label(args.problems, args.samples, args.workers)
    if len(labels) != len(programs):
        raise UserError(f"label wrote {len(labels)} rows for {len(programs)} samples")
    counts = report_agreement(
        args, programs, languages, reference, labels, reference_seconds, label_seconds
    )
    report.figures.update(reference_seconds=reference_seconds, label_seconds=label_seconds)
    report.figures["by_language"] = counts


def report_agreement(
    args: argparse.Namespace,
    programs: list[tuple[str, int, str]],
    languages: dict[str, str],
    reference: list[dict[str, Any]],
    labels: list[dict[str, Any]],
    reference_seconds: float,
    label_seconds: float,
) -> dict[str, dict[str, int]]:
    """Per-language counts, agreement and each disagreement (printed and returned);
    ``--details`` gets every program."""
    by_language: dict[str, Counter] = {}
    disagreements = []
    details = []
    for (name, index, _), ref, lab in zip(programs, reference, labels, strict=True):
        if lab.get("task_id") != name:
            raise UserError(f"label row for {lab.get('task_id')!r} where {name!r} was expected")
        counts = by_language.setdefault(languages[name], Counter())
        counts["programs"] += 1
        counts["reference_pass"] += ref["passed"]
        counts["label_pass"] += bool(lab["passed"])
        agree = ref["passed"] == bool(lab["passed"])
        counts["agree"] += agree
        row = {
            "task_id": name,
            "index": index,
            "language": languages[name],
            "reference_status": ref["status"],
            "reference_passed": ref["passed"],
            "label_passed": bool(lab["passed"]),
            "label_status_counts": lab.get("status_counts"),
            "agree": agree,
        }
        details.append({**row, "reference_stderr": ref["stderr"]})
        if not agree:
            disagreements.append((row, ref["stderr"]))
    print(
        f"reference {args.reference}: {len(programs)} programs in {reference_seconds:.1f} s; "
        f"label: {label_seconds:.1f} s ({args.workers} workers each, shared machine)"
    )
    print("| language | programs | reference passes | label passes | agreement |")
    print("| --- | --- | --- | --- | --- |")
    for language, c in sorted(by_language.items()):
        share = 100 * c["agree"] / c["programs"]
        print(
            f"| {language} | {c['programs']} | {c['reference_pass']} | {c['label_pass']} | "
            f"{c['agree']}/{c['programs']} = {share:.1f}% |"
        )
    for row, stderr in disagreements:
        print(
            f"DISAGREE {row['task_id']}#{row['index']}: reference {row['reference_status']},"
            f" label {row['label_status_counts']}; {' '.join(stderr.split())[:300]}"
        )
    if args.details:
        args.details.write_text("".join(json.dumps(d) + "\n" for d in details))
    return {language: dict(c) for language, c in sorted(by_language.items())}


if __name__ == "__main__":
    raise SystemExit(main())
