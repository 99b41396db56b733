"""How far each exact feature (``unice.data.features``) ranks a split's candidates alone.

A yardstick for ``model.exact_features`` like ``cosine_probe.py`` is for the encoder: the
within-problem Spearman of each feature against PassRatio (the dev monitor's convention:
problems whose labels vary, a constant score counting 0). No model, a few CPU-seconds; it
decides nothing (the switch is adopted or rejected by the protocol's dev arms).

    python scripts/feature_probe.py data/mbpp-real dev [--clean]
    python scripts/feature_probe.py data/he-eval-demo dev --exec --structure

``--exec`` reports each feature's AUROC for Executability instead, and the AUROC on the split
of a logistic regression fitted on the train split's features (static facts alone, and with
``--structure`` the AST node-kind counts against the reference as well).
"""

from __future__ import annotations

import argparse

import numpy as np

from unice.data.dataset import read_split
from unice.data.features import (
    FEATURE_NAMES,
    STATIC_FEATURES,
    STRUCTURE_FEATURES,
    clean_generated,
    exact_features,
)
from unice.metrics.example_level import within_problem_score


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="a dataset folder, e.g. data/mbpp-real")
    parser.add_argument("split", nargs="?", default="dev")
    parser.add_argument("--clean", action="store_true", help="clean g first (clean_generated)")
    parser.add_argument("--exec", action="store_true", help="AUROC for Executability instead")
    parser.add_argument("--structure", action="store_true", help="add structure_features")
    args = parser.parse_args()
    samples = read_split(args.folder, args.split)
    features, cleaned = feature_matrix(samples, args.clean, args.structure)
    names = FEATURE_NAMES + (STRUCTURE_FEATURES if args.structure else ())
    tasks = [s.task_id for s in samples]
    print(f"{len(samples)} programs of {len(set(tasks))} problems ({args.folder} {args.split}); "
          f"clean_generated changes {cleaned}")  # fmt: skip
    if args.exec:
        exec_probe(args, samples, features, names)
        return
    labels = np.array([s.pass_ratio for s in samples])
    print("| feature | within-problem ρ | mean |")
    print("| --- | --- | --- |")
    for column, name in enumerate(names):
        rho = within_problem_score(features[:, column], labels, tasks, "spearman")
        print(f"| {name} | {rho:+.3f} | {features[:, column].mean():.3f} |")


def feature_matrix(samples, clean: bool, structure: bool) -> tuple[np.ndarray, int]:
    """The exact features of every sample (cleaned first with ``clean``), and how many
    samples cleaning changes."""
    rows, cleaned = [], 0
    for s in samples:
        clean_text = clean_generated(s.generated, s.nl or None)
        cleaned += clean_text != s.generated
        generated = clean_text if clean else s.generated
        rows.append(exact_features(generated, s.reference or None, s.nl or None, structure))
    return np.array(rows), cleaned


def exec_probe(args, samples, features: np.ndarray, names: tuple[str, ...]) -> None:
    """Each feature's Exec AUROC on the split, then a logistic regression's: fitted on the train
    split's static facts (and structure facts), scored on this split."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score

    labels = np.array([float(s.executable) for s in samples])
    print("| feature | Exec AUROC | mean |")
    print("| --- | --- | --- |")
    for column, name in enumerate(names):
        print(f"| {name} | {roc_auc_score(labels, features[:, column]):.3f} | "
              f"{features[:, column].mean():.3f} |")  # fmt: skip
    train = read_split(args.folder, "train")
    train_features, _ = feature_matrix(train, args.clean, args.structure)
    train_labels = np.array([float(s.executable) for s in train])
    groups = {"static facts": [names.index(n) for n in STATIC_FEATURES]}
    if args.structure:
        groups["structure facts"] = [names.index(n) for n in STRUCTURE_FEATURES]
        groups["both"] = groups["static facts"] + groups["structure facts"]
    for group, columns in groups.items():
        fit = LogisticRegression(max_iter=2000).fit(train_features[:, columns], train_labels)
        auroc = roc_auc_score(labels, fit.predict_proba(features[:, columns])[:, 1])
        print(f"logistic regression on train's {group}: Exec AUROC on {args.split} {auroc:.3f}")


if __name__ == "__main__":
    main()
