"""``python -m data_builders build {humaneval,mbpp,apps} --out DIR [options]``.

Builds HE-Eval, MBPP-Eval or APPS-Eval: extended tests, candidates (samples file, AST mutants,
LM generations), execution labels, splits by problem, ``stats.json`` and a dataset card.
Rerunning the same command after an interruption continues where it stopped.
``build humaneval-x --language cpp|java|js|go|rust [--problems-file F] --samples S`` builds
HE-Eval-X, the same dataset in another language (data_builders/dataset/humaneval_x.py); every
dataset is built by one pipeline (data_builders/dataset/pipeline.py).
``build conala --source DIR --out DIR`` reshapes CoNaLa's human usefulness grades (nothing is
executed; data_builders/dataset/conala.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from data_builders.dataset.config import DATASETS, check_shard, load_config, parse_ratios
from data_builders.errors import UserError
from data_builders.execution import add_executor_arguments, settings_from_args
from data_builders.languages import HUMANEVAL_X


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``build`` subcommand to the ``python -m data_builders`` parser."""
    parser = subparsers.add_parser(
        "build",
        help="build a labelled dataset (HE-Eval, MBPP-Eval, APPS-Eval)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("dataset", help=f"one of {', '.join(DATASETS)}, conala")
    parser.add_argument("--out", required=True, type=Path, help="output folder")
    parser.add_argument("--source", help="local problem file/folder (MBPP, APPS; HumanEval-shaped)")
    parser.add_argument(
        "--language",
        choices=HUMANEVAL_X,
        help="humaneval-x: the language of HE-Eval-X to build",
    )
    parser.add_argument(
        "--problems-file",
        help="humaneval-x: a THUDM/humaneval-x file, e.g. humaneval_cpp.jsonl.gz (default: "
        "the hub; same as --source)",
    )
    parser.add_argument(
        "--samples", type=Path, help="samples .jsonl[.gz]: task_id + completion|solution"
    )
    parser.add_argument(
        "--samples-per-task",
        type=int,
        metavar="N",
        help="keep only the first N samples of each task from --samples (a fixed subsample)",
    )
    parser.add_argument(
        "--mutants",
        type=int,
        default=0,
        metavar="K",
        help="AST mutants per task (per sample with --mutants-of samples)",
    )
    parser.add_argument(
        "--mutants-of",
        choices=("reference", "samples"),
        default="reference",
        help="mutate each task's reference solution (default) or each of its --samples "
        "programs (one-edit neighbours of real generations)",
    )
    parser.add_argument(
        "--mutant-splits",
        metavar="SPLITS",
        help="comma-separated splits whose tasks get mutants (e.g. train: dev and test keep "
        "only the real candidates); default every split",
    )
    parser.add_argument(
        "--generate",
        metavar="MODEL",
        help="sample candidates from a causal LM: a local model folder, 'smollm2' (offline "
        "SmolLM2-135M-Instruct), a hub name (online), or openai:<base_url>:<model> for any "
        "OpenAI-compatible server (vLLM, llama.cpp, Ollama, TGI); replicas: "
        "openai:<url1>,<url2>,...:<model>; 'local' samples the SmolLM2 GGUF with llama.cpp "
        "in process (faster on CPU; local:PATH.gguf for another GGUF)",
    )
    parser.add_argument(
        "--n", type=int, help="generations per task (default: the config's generation.n)"
    )
    parser.add_argument("--temperature", type=float, help="default: generation.temperature")
    parser.add_argument("--top-p", type=float, help="default: generation.top_p")
    parser.add_argument(
        "--concurrency",
        type=int,
        metavar="N",
        help="served generation: requests in flight over all endpoints (default: "
        "generation.concurrency; may change when resuming)",
    )
    parser.add_argument(
        "--reference-samples",
        choices=("keep", "flag", "exclude"),
        default="keep",
        help="samples that are a copy of their problem's reference solution: keep them, flag "
        "them (row field is_reference) or exclude them",
    )
    parser.add_argument("--workers", type=int, help="executor workers (default: one per core)")
    parser.add_argument("--max-problems", type=int, metavar="N", help="first N problems only")
    parser.add_argument("--num-shards", type=int, default=1, metavar="K")
    parser.add_argument("--shard-index", type=int, default=0, metavar="I")
    parser.add_argument("--seed", type=int, help="override the config's seed")
    parser.add_argument("--split-ratios", help="train,dev,test (e.g. 0,0,1 for a test-only set)")
    parser.add_argument(
        "--held-out-from",
        type=int,
        metavar="N",
        help="fixed test split: tasks numbered N and above (HumanEval/N, CPP/N, ...) are test, "
        "the rest train/dev by --split-ratios' train:dev share (default: the config's "
        "held_out_from; humaneval-x: 82, the multilingual model's split)",
    )
    parser.add_argument(
        "--config", type=Path, help="builder YAML (default configs/build/<dataset>.yaml)"
    )
    parser.add_argument(
        "--limits",
        type=Path,
        help="the limits file: candidates' per-test time limits, every language's (default "
        "configs/build/limits.yaml, as label)",
    )
    parser.add_argument(
        "--cache-dir", type=Path, help="extended-test cache (default ~/.cache/unice/extension)"
    )
    parser.add_argument(
        "--chunk-size",
        type=int,
        default=256,
        metavar="N",
        help="candidates labelled per batch; finished rows reach disk after each batch",
    )
    add_executor_arguments(parser)
    parser.add_argument(
        "--check",
        action="store_true",
        help="build nothing; say whether --out holds this build: exit 0 complete with these "
        "settings, 1 absent or unfinished with them (a build resumes it), 2 built with other "
        "settings (a build refuses it: remove the folder)",
    )
    parser.set_defaults(func=run)


def _validate(args: argparse.Namespace) -> None:
    """Every check of the command line that reads no file: the common ones here, the
    dataset's own (its options: e.g. a language) from its module's ``check_options``."""
    from data_builders.dataset.datasets import dataset_named

    if args.dataset not in DATASETS:
        raise UserError(f"unknown dataset {args.dataset!r}; choose one of {', '.join(DATASETS)}")
    dataset_named(args.dataset).check_options(args)
    if args.problems_file and args.source and args.problems_file != args.source:
        raise UserError("pass the problem file once: --problems-file or --source")
    if not (args.samples or args.mutants or args.generate):
        raise UserError("no candidates: pass --samples FILE, --mutants K and/or --generate MODEL")
    if args.mutants < 0 or (args.n is not None and args.n < 1):
        raise UserError("--mutants must be >= 0 and --n >= 1")
    if args.mutants_of == "samples" and not (args.samples and args.mutants):
        raise UserError(
            "--mutants-of samples mutates --samples programs: pass --samples and --mutants K"
        )
    if args.mutant_splits is not None:
        splits = [s.strip() for s in args.mutant_splits.split(",") if s.strip()]
        unknown = sorted(set(splits) - {"train", "dev", "test"})
        if not splits or unknown:
            raise UserError(
                f"--mutant-splits {args.mutant_splits!r}: give a comma-separated subset of "
                "train,dev,test"
            )
    if args.temperature is not None and args.temperature < 0:
        raise UserError("--temperature must be >= 0")
    if args.top_p is not None and not 0 < args.top_p <= 1:
        raise UserError("--top-p must be in (0, 1]")
    if args.max_problems is not None and args.max_problems < 1:
        raise UserError("--max-problems must be >= 1")
    if args.concurrency is not None and args.concurrency < 1:
        raise UserError(f"--concurrency must be >= 1, got {args.concurrency}")
    check_shard(args.num_shards, args.shard_index)
    if args.samples_per_task is not None and args.samples_per_task < 1:
        raise UserError("--samples-per-task must be >= 1")
    if args.chunk_size < 1:
        raise UserError("--chunk-size must be >= 1")
    if args.workers is not None and args.workers < 1:
        raise UserError("--workers must be >= 1")
    if args.samples and not args.samples.is_file():
        raise UserError(f"--samples {args.samples}: no such file")


def _build_conala(args: argparse.Namespace) -> int:
    """``build conala``: human grades, no candidates to execute (only --source and --out)."""
    from data_builders.dataset.conala import build_conala

    if not args.source:
        raise UserError(
            "build conala needs --source DIR: the folder holding conala-all-grades.json "
            "(e.g. ../shared/data/conala_usefulness)"
        )
    stats = build_conala(Path(args.source), args.out)
    print(
        f"dataset: {stats['rows']} rows for {stats['tasks']} tasks (test {stats['rows']}) in {args.out}"
    )
    return 0


def run(args: argparse.Namespace) -> int:
    """Entry point of the subcommand; returns the exit status."""
    import dataclasses

    from data_builders.dataset.pipeline import BuildRequest, run_build

    if args.dataset == "conala":
        return _build_conala(args)
    _validate(args)
    backend = settings_from_args(args)
    config = load_config(args.dataset, args.config, args.limits)
    if args.seed is not None:
        config = dataclasses.replace(config, seed=args.seed)
    if args.split_ratios:
        config = dataclasses.replace(config, split_ratios=parse_ratios(args.split_ratios))
    if args.held_out_from is not None:
        if args.held_out_from < 0:
            raise UserError(f"--held-out-from {args.held_out_from} must be >= 0")
        config = dataclasses.replace(config, held_out_from=args.held_out_from)
    request = BuildRequest(
        dataset=args.dataset,
        out=args.out,
        config=config,
        source=args.problems_file or args.source,
        samples=args.samples,
        mutants=args.mutants,
        mutants_of=args.mutants_of,
        mutant_splits=tuple(s.strip() for s in args.mutant_splits.split(",") if s.strip())
        if args.mutant_splits
        else None,
        generate=args.generate,
        n=args.n,
        temperature=args.temperature,
        top_p=args.top_p,
        concurrency=args.concurrency,
        reference_samples=args.reference_samples,
        workers=args.workers,
        max_problems=args.max_problems,
        num_shards=args.num_shards,
        shard_index=args.shard_index,
        cache_dir=args.cache_dir,
        chunk_size=args.chunk_size,
        samples_per_task=args.samples_per_task,
        executor=backend,
        language=args.language,
        limits_file=args.limits,
    )
    if args.check:
        from data_builders.dataset.pipeline import build_state

        state, detail = build_state(request)
        print(f"{args.out}: {detail}")
        return {"complete": 0, "resumable": 1, "absent": 1, "differs": 2}[state]
    summary = run_build(request)
    what = f"shard {args.shard_index}/{args.num_shards}" if args.num_shards > 1 else "dataset"
    splits = summary.get("splits")
    detail = (
        f" (train {splits['train']} / dev {splits['dev']} / test {splits['test']})"
        if splits
        else ""
    )
    print(
        f"{what}: {summary['rows']} rows for {summary['tasks']} tasks{detail} in {args.out}, "
        f"{summary['seconds']} s"
    )
    return 0
