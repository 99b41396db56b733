"""How far each exact feature (``unice.data.features``) ranks a split's candidates alone.

A yardstick for ``model.exact_features`` like ``cosine_probe.py`` is for the encoder: the
within-problem Spearman of each feature against PassRatio (the dev monitor's convention:
problems whose labels vary, a constant score counting 0). No model, a few CPU-seconds; it
decides nothing (the switch is adopted or rejected by the protocol's dev arms).

    python scripts/feature_probe.py data/mbpp-real dev [--clean]
"""

from __future__ import annotations

import argparse

import numpy as np

from unice.data.dataset import read_split
from unice.data.features import FEATURE_NAMES, clean_generated, exact_features
from unice.metrics.example_level import within_problem_score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="a dataset folder, e.g. data/mbpp-real")
    parser.add_argument("split", nargs="?", default="dev")
    parser.add_argument("--clean", action="store_true", help="clean g first (clean_generated)")
    args = parser.parse_args()
    samples = read_split(args.folder, args.split)
    rows, cleaned = [], 0
    for s in samples:
        clean = clean_generated(s.generated, s.nl or None)
        cleaned += clean != s.generated
        generated = clean if args.clean else s.generated
        rows.append(exact_features(generated, s.reference or None, s.nl or None))
    features = np.array(rows)
    labels = np.array([s.pass_ratio for s in samples])
    tasks = [s.task_id for s in samples]
    print(f"{len(samples)} programs of {len(set(tasks))} problems ({args.folder} {args.split}); "
          f"clean_generated changes {cleaned}")  # fmt: skip
    print("| feature | within-problem ρ | mean |")
    print("| --- | --- | --- |")
    for column, name in enumerate(FEATURE_NAMES):
        rho = within_problem_score(features[:, column], labels, tasks, "spearman")
        print(f"| {name} | {rho:+.3f} | {features[:, column].mean():.3f} |")


if __name__ == "__main__":
    main()
