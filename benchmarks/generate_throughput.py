"""Local LM sampling throughput on CPU: programs per second for ``--generate`` (SmolLM2 by default).

    python benchmarks/generate_throughput.py --dataset mbpp \
        --source ../shared/data/mbpp_sanitized_humaneval_format.jsonl --problems 8 --n 4

Uses the dataset's configs/build sampling settings (prompt mode, instruction, stops), so the
figure is what ``python -m data_builders build ... --generate smollm2`` spends on sampling.
Model loading is timed apart. Prints programs/s and the share of programs that
compile. ``--threads`` sets torch's CPU threads: on a machine shared with other jobs, one
thread per process was ~12x faster than two (threads spin waiting for each other).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import _harness


def tiny_causal_lm(folder: Path) -> str:
    """A random 1-layer Llama with ``unice.testing``'s tiny tokenizer, saved to ``folder``."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from unice.testing import build_tiny_tokenizer

    tokenizer = build_tiny_tokenizer()
    config = LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=2048,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )  # fmt: skip
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return str(folder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="smollm2", help="model folder or smollm2")
    parser.add_argument("--dataset", default="mbpp", choices=("humaneval", "mbpp", "apps"))
    parser.add_argument("--source", help="problem file (MBPP, APPS)")
    parser.add_argument("--problems", type=int, default=8)
    parser.add_argument("--n", type=int, default=4)
    parser.add_argument("--max-new-tokens", type=int)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    args = _harness.parse_args(parser)
    if args.smoke:
        args.model = tiny_causal_lm(_harness.scratch() / "tiny-lm")
        args.dataset, args.source, args.problems, args.n, args.max_new_tokens = (
            "humaneval", None, 2, 1, 8
        )  # fmt: skip
    with _harness.Report(__file__, args) as report:
        benchmark(args, report)


def benchmark(args: argparse.Namespace, report: _harness.Report) -> None:
    import torch

    from data_builders.candidates.generate import (
        SamplingSettings,
        generate_candidates,
        load_model,
        model_folder,
    )
    from data_builders.dataset.config import load_config
    from data_builders.dataset.pipeline import load_problems
    from data_builders.problems.base import compiles

    torch.set_num_threads(args.threads)
    config = load_config(args.dataset)
    settings = SamplingSettings.from_config(
        config.generation,
        config.seed,
        whole_program=args.dataset == "apps",
        n=args.n,
        max_new_tokens=args.max_new_tokens,
    )
    problems = load_problems(args.dataset, args.source)[: args.problems]
    folder = model_folder(args.model)
    started = time.perf_counter()
    load_model(folder)  # warms the file cache; timed as loading
    load_seconds = time.perf_counter() - started
    started = time.perf_counter()
    programs = list(generate_candidates(problems, folder, settings, progress=True))
    seconds = time.perf_counter() - started
    result = {
        "model": Path(folder).name,
        "dataset": args.dataset,
        "problems": len(problems),
        "programs": len(programs),
        "threads": args.threads,
        "max_new_tokens": settings.max_new_tokens,
        "load_seconds": round(load_seconds, 1),
        "sample_seconds": round(seconds, 1),
        "programs_per_s": round(len(programs) / seconds, 3),
        "compile_rate": round(sum(compiles(c.program) for c in programs) / len(programs), 3),
    }
    report.figures.update(result)
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:>22}: {value}")


if __name__ == "__main__":
    main()
