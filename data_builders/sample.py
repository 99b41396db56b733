"""``python -m data_builders sample {humaneval,mbpp,apps} --out FILE [options]``.

Samples programs with the local llama.cpp engine (``--generate local``,
:mod:`data_builders.candidates.local`) into a samples file (``task_id``, ``solution``,
``generator``) for one split's problems, without labelling them; label it with
``python -m data_builders build ... --samples FILE``. The split is the builder's own (the
config's seed and ratios), so ``--split dev`` gives exactly a build's dev problems. Replies
are cached as they arrive: a killed run resumes; ``--cached-only`` generates nothing and
writes the problems whose samples are all cached. ``--num-shards K --shard-index I`` samples
every K-th problem: K processes of one thread each share the reply cache, then one
``--cached-only`` run without shards writes the whole file.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from data_builders.candidates.base import Candidate
from data_builders.candidates.generate import SamplingSettings
from data_builders.candidates.local import (
    PREFIX,
    EngineError,
    is_local,
    load_engine_settings,
    local_candidates,
)
from data_builders.errors import UserError


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``sample`` subcommand to the ``python -m data_builders`` parser."""
    parser = subparsers.add_parser(
        "sample",
        help="sample programs with the local llama.cpp engine into a samples file",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("dataset", choices=("humaneval", "mbpp", "apps"))
    parser.add_argument("--source", help="problem file (MBPP, APPS)")
    parser.add_argument("--out", required=True, type=Path, help="samples .jsonl to write")
    parser.add_argument("--config", type=Path, help="builder YAML (its generation and split)")
    parser.add_argument("--split", choices=("train", "dev", "test", "all"), default="all")
    parser.add_argument("--generate", default=PREFIX, help="local or local:PATH.gguf")
    parser.add_argument("--n", type=int, help="samples per problem (default generation.n)")
    parser.add_argument("--max-problems", type=int, metavar="N", help="first N of the split")
    parser.add_argument(
        "--num-shards",
        type=int,
        default=1,
        metavar="K",
        help="sample every K-th problem only (one process per core: K processes, same cache)",
    )
    parser.add_argument("--shard-index", type=int, default=0, metavar="I", help="which of K")
    parser.add_argument("--threads", type=int, help="override configs/generate/local.yaml")
    parser.add_argument("--parallel", type=int, help="override configs/generate/local.yaml")
    parser.add_argument("--cache-dir", type=Path, help="reply cache (default generate cache)")
    parser.add_argument(
        "--cached-only",
        action="store_true",
        help="generate nothing: write the problems whose samples are all cached",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write a samples file (``task_id``, ``solution``) of one split's problems."""
    from data_builders.dataset.config import check_shard, load_config
    from data_builders.dataset.pipeline import load_problems
    from data_builders.dataset.splits import split_problems
    from data_builders.jsonl import atomic_writer

    if not is_local(args.generate):
        raise UserError(f"--generate {args.generate!r}: expected local or local:PATH.gguf")
    config = load_config(args.dataset, args.config)
    settings = SamplingSettings.from_config(
        config.generation, config.seed, whole_program=args.dataset == "apps", n=args.n
    )
    problems = load_problems(args.dataset, args.source)
    if args.split != "all":
        problems = split_problems(
            problems, args.split, config.split_ratios, config.seed, config.held_out_from
        )
    problems = problems[: args.max_problems] if args.max_problems else problems
    check_shard(args.num_shards, args.shard_index)
    # A shard is the split's problems I, I+K, I+2K...: the same problems and seeds as one
    # process, so K shards then one --cached-only run write the unsharded file.
    problems = problems[args.shard_index :: args.num_shards]
    engine_settings = load_engine_settings(threads=args.threads, parallel=args.parallel)
    if args.cached_only:
        engine_settings = replace(engine_settings, parallel=1)
    candidates = list(
        local_candidates(
            problems,
            args.generate,
            settings,
            engine_settings,
            engine=_NoEngine() if args.cached_only else None,
            cache_root=args.cache_dir,
        )
    )
    by_task: dict[str, list[Candidate]] = {}
    for candidate in candidates:
        by_task.setdefault(candidate.task_id, []).append(candidate)
    complete = [p.task_id for p in problems if len(by_task.get(p.task_id, [])) == settings.n]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(args.out) as handle:
        for task_id in complete:
            for candidate in by_task[task_id]:
                record = {"task_id": task_id, "solution": candidate.program}
                record["generator"] = candidate.source.removeprefix("generate:")
                handle.write(json.dumps(record) + "\n")
    print(
        f"{args.out}: {len(complete)} of {len(problems)} problems x {settings.n} samples "
        f"({len(complete) * settings.n} programs)",
        file=sys.stderr,
    )
    return 0


class _NoEngine:
    """For ``--cached-only``: every uncached request fails, so nothing is generated."""

    name = "cached-only"

    def chat(self, messages: list[dict[str, str]], params: dict[str, Any]) -> dict[str, Any]:
        raise EngineError("not cached (--cached-only)")

    def close(self) -> None:
        return None
