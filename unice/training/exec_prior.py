"""Fit the Exec prior of ``model.exec_prior`` before the first training step.

The prior is a logistic regression of each training row's Executability label on the row's
exact features (``unice.data.features``: overlaps with the reference, static facts of g, and the
AST structure facts with ``structure_features``). The model's Exec output is the average of its
probability and the network's own (the network trains as if the prior were not there), so two
views of the same facts vote.

Why fit it instead of letting the head learn it: the demo trains a few hundred steps at the
head's learning rate, which moves a zero-initialised linear term on these facts very little
(stage four of issue 18), while a convex fit on the same rows needs no steps. The fit reads the
rows exactly as training does (``InputEncoder.encode_segments``: every format a sample has, the
cleaned code), and only the training split.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from unice.data.dataset import Sample
from unice.data.encoding import InputEncoder

CHUNK = 256
"""Samples encoded at a time while collecting the rows (bounds the padded segment matrix)."""


@dataclass(frozen=True)
class ExecPriorFit:
    """What the fit saw: how many rows, how many of them executable, and its training AUROC
    (``nan`` when every row has the same label and no fit was made)."""

    rows: int
    features: int
    executable: int
    train_auroc: float

    def describe(self) -> str:
        """One line for the training log."""
        if math.isnan(self.train_auroc):
            return (
                f"exec prior: all {self.rows} training rows have the same Exec label; "
                "the prior stays zero"
            )
        return (
            f"exec prior: logistic regression on {self.rows} training rows x {self.features} "
            f"features ({self.executable} executable), training AUROC {self.train_auroc:.3f}"
        )


def exec_prior_rows(
    encoder: InputEncoder, samples: Sequence[Sample], formats: Sequence[str]
) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, F)`` exact features and ``(rows,)`` Exec labels of every row that training sends
    through the model for ``samples`` (one per format each sample has)."""
    features: list[list[float]] = []
    labels: list[float] = []
    for start in range(0, len(samples), CHUNK):
        chunk = samples[start : start + CHUNK]
        encoded = encoder.encode_segments(
            [s.generated for s in chunk], [s.reference for s in chunk], [s.nl for s in chunk],
            formats, [s.language for s in chunk],
        )  # fmt: skip
        features += encoded["exact_features"]
        labels += [float(chunk[i].executable) for i in encoded["sample_index"]]
    return np.asarray(features, dtype=np.float64), np.asarray(labels, dtype=np.float64)


@torch.no_grad()
def fit_exec_prior(
    model: torch.nn.Module,
    encoder: InputEncoder,
    samples: Sequence[Sample],
    formats: Sequence[str],
) -> ExecPriorFit:
    """Fit the prior on ``samples`` (the training split) and write it into ``model``'s
    ``exec_prior_weight`` / ``exec_prior_bias`` buffers."""
    width = int(model.config.exec_prior_width)
    features, labels = exec_prior_rows(encoder, samples, formats)
    features = features[:, :width]
    executable = int(labels.sum())
    if executable in (0, len(labels)):
        model.exec_prior_weight.zero_()
        model.exec_prior_bias.zero_()
        return ExecPriorFit(len(labels), width, executable, float("nan"))
    regression = LogisticRegression(max_iter=2000).fit(features, labels)
    model.exec_prior_weight.copy_(torch.as_tensor(regression.coef_[0], dtype=torch.float32))
    model.exec_prior_bias.fill_(float(regression.intercept_[0]))
    auroc = roc_auc_score(labels, regression.decision_function(features))
    return ExecPriorFit(len(labels), width, executable, float(auroc))
