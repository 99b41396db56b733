"""What each part of the Exec ensemble (``model.exec_prior``) says alone.

A checkpoint trained with the ensemble reports one Exec probability: the average of its
network's and its fitted prior's. This prints the split's Exec AUROC of that average next to
the network alone and the prior alone, each aggregated over formats as ``exec_prob`` is (the
mean of the per-format probabilities). It decides nothing (issue 18's stage six is decided on
the ensemble's dev AUROC); it shows where a change came from, and, since the network trains
exactly as the run without the prior, whether "network alone" reproduces that run's figure.

    python scripts/exec_parts.py runs/demo_stage6/seed12/best data/he-eval-demo dev
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

import unice
from unice.data.dataset import read_split
from unice.data.encoding import InputEncoder
from unice.metrics.classification import auroc
from unice.training.evaluation import predict
from unice.training.exec_prior import exec_prior_rows


def prior_alone(model, samples) -> np.ndarray:
    """Each sample's mean over its formats of ``sigmoid(fitted prior logit)``."""
    encoder = InputEncoder.from_config(model.tokenizer, model.config)
    probs = np.zeros(len(samples))
    for index, sample in enumerate(samples):  # one at a time: rows map to their sample
        features, _ = exec_prior_rows(encoder, [sample], model.config.formats)
        with torch.no_grad():
            logit = model.exec_prior_logit(torch.as_tensor(features, dtype=torch.float32))
        probs[index] = float(torch.sigmoid(logit).mean())
    return probs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="a checkpoint folder trained with exec_prior=true")
    parser.add_argument("folder", help="its dataset folder, e.g. data/he-eval-demo")
    parser.add_argument("split", nargs="?", default="dev")
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    model = unice.load_model(args.checkpoint, device="cpu")
    if not model.config.exec_prior:
        parser.error(f"{args.checkpoint} was trained without exec_prior: it has no parts")
    samples = read_split(args.folder, args.split)
    executable = np.array([s.executable for s in samples])
    output = predict(model, samples, model.tokenizer, args.batch_size)["exec_prob"]
    prior = prior_alone(model, samples)
    model.config.exec_prior = False  # forward now skips the prior: the network's own logits
    network = predict(model, samples, model.tokenizer, args.batch_size)["exec_prob"]
    print(f"{args.checkpoint} on {args.folder} {args.split} ({len(samples)} programs)")
    print("| Exec probability | AUROC |")
    print("| --- | --- |")
    for name, probs in (("model output", output), ("network alone", network),
                        ("fitted prior alone", prior)):  # fmt: skip
        print(f"| {name} | {auroc(probs, executable):.4f} |")


if __name__ == "__main__":
    main()
