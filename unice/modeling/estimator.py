"""``EstimatorModel``: each segment encoded alone and compared in the head (COMET's estimator).

Why a class of its own: a sentence encoder like MiniLM was trained to compare texts it encoded
apart, so the estimator encodes g, r and n each alone and feeds the head COMET's comparisons
of them; a problem's reference and NL are encoded once for all its candidates. Only this variant
reads the exact features of g against r (``exact_features``) and the priors fitted on them
(``exact_prior``, ``exec_prior``): the cross-encoder never sees g and r apart.
"""

from __future__ import annotations

import math
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from unice.data.codebertscore_features import CODEBERTSCORE_FEATURES
from unice.data.features import FEATURE_NAMES
from unice.modeling.configuration import UniCEConfig
from unice.modeling.model import UniCEModel, UniCEOutput


def compare_segments(
    segments: torch.Tensor,
    generated_index: torch.Tensor,
    reference_index: torch.Tensor | None,
    nl_index: torch.Tensor | None,
) -> torch.Tensor:
    """COMET's estimator features of each row: ``[g; r; g*r; |g-r|; cos(g,r); n; g*n; |g-n|;
    cos(g,n)]``, with the reference or NL block zero where the row's format lacks it.

    Args:
        segments: ``(segments, hidden)`` one vector per distinct text of the batch.
        generated_index, reference_index, nl_index: ``(rows,)`` indices into ``segments``
            (``-1`` = absent; ``None`` = absent for every row).
    """
    generated = segments[generated_index]
    features = [generated]
    for index in (reference_index, nl_index):
        if index is None:
            index = torch.full_like(generated_index, -1)
        present = (index >= 0).unsqueeze(-1).to(generated.dtype)
        other = segments[index.clamp(min=0)] * present
        cosine = F.cosine_similarity(generated, other, dim=-1, eps=1e-6).unsqueeze(-1)
        features += [other, generated * other, (generated - other).abs() * present]
        features.append(cosine * present)
    return torch.cat(features, dim=-1)


def feature_prior(exact_features: torch.Tensor, name: str) -> torch.Tensor:
    """``(rows,)`` ``logit(feature)`` of the exact feature ``name`` (``exact_prior``), zero for
    rows without a reference (their overlap features are all 0, not a low similarity). A
    CodeBERTScore feature is one of the row's last columns (``codebertscore_features``)."""
    if name in CODEBERTSCORE_FEATURES:
        column = exact_features.shape[1] - len(CODEBERTSCORE_FEATURES)
        value = exact_features[:, column + CODEBERTSCORE_FEATURES.index(name)]
    else:
        value = exact_features[:, FEATURE_NAMES.index(name)]
    has_reference = exact_features[:, FEATURE_NAMES.index("has_reference")]
    return torch.logit(value.clamp(PRIOR_EPS, 1 - PRIOR_EPS)) * has_reference


def head_features(exact_features: torch.Tensor, config: UniCEConfig) -> torch.Tensor:
    """The columns of a row's feature vector the head reads: the plain exact features, then
    CodeBERTScore F1/F3 with ``codebertscore_features``. The vector is laid out plain,
    structure facts (with ``structure_features``: the Exec prior's only), CodeBERTScore
    (:class:`~unice.data.encoding.InputEncoder`), so the Exec prior's columns stay a prefix."""
    plain = exact_features[:, : len(FEATURE_NAMES)]
    if not getattr(config, "codebertscore_features", False):
        return plain
    return torch.cat([plain, exact_features[:, -len(CODEBERTSCORE_FEATURES) :]], dim=-1)


def ensemble_logit(first: torch.Tensor, second: torch.Tensor) -> torch.Tensor:
    """The logit of ``(sigmoid(first) + sigmoid(second)) / 2``, computed in log space so that
    neither probability rounds to 0 or 1 (where the logit would be infinite)."""
    log_half = math.log(0.5)
    log_p = torch.logaddexp(F.logsigmoid(first), F.logsigmoid(second)) + log_half
    log_q = torch.logaddexp(F.logsigmoid(-first), F.logsigmoid(-second)) + log_half
    return log_p - log_q


def add_to_column(logits: torch.Tensor, column: int, values: torch.Tensor) -> torch.Tensor:
    """``logits`` with ``values`` added to one output's column (PassRatio 0, Exec 1), out of
    place so autograd sees every term."""
    shift = torch.zeros_like(logits)
    shift[:, column] = values
    return logits + shift


PRIOR_EPS = 1e-4
"""An exact prior's feature is clipped to [1e-4, 1 - 1e-4] before its logit (logits within
+-9.2)."""


class EstimatorModel(UniCEModel):
    """``architecture=estimator``: g, r and n encoded alone, compared, scored by the head."""

    architecture = "estimator"

    def __init__(self, config: UniCEConfig):
        super().__init__(config)
        if config.exact_prior:
            self.prior_scale = nn.Parameter(torch.ones(()))
        if config.exec_prior:
            # filled by unice.training.exec_prior before training; saved with the weights.
            # Buffers draw nothing from the seeded generator, so every weight and every
            # dropout draw is the run without the prior's.
            self.register_buffer("exec_prior_weight", torch.zeros(config.exec_prior_width))
            self.register_buffer("exec_prior_bias", torch.zeros(()))
        self.post_init()
        if config.exact_prior:  # the untrained PassRatio logit is the exact prior alone
            last = self.head.net[-1]
            with torch.no_grad():
                last.weight[0].zero_()
                last.bias[0].zero_()

    def exec_prior_logit(self, exact_features: torch.Tensor) -> torch.Tensor:
        """``(rows,)`` the fitted Exec prior's logit: its linear model on the features it was
        fitted on (the first ``config.exec_prior_width`` exact features)."""
        width = self.config.exec_prior_width
        weight = self.exec_prior_weight
        return exact_features[:, :width].to(weight.dtype) @ weight + self.exec_prior_bias

    def forward(
        self,
        segment_input_ids: torch.Tensor | None = None,
        segment_attention_mask: torch.Tensor | None = None,
        generated_index: torch.Tensor | None = None,
        reference_index: torch.Tensor | None = None,
        nl_index: torch.Tensor | None = None,
        exact_features: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
        **_: Any,
    ) -> UniCEOutput:
        """Score a batch of rows (any mix of input formats) from its distinct segments.

        Args:
            segment_input_ids: ``(segments, seq)`` each distinct text of the batch alone.
            segment_attention_mask: ``(segments, seq)``, 1 for real tokens.
            generated_index: ``(batch,)`` row -> its generated code's segment.
            reference_index: ``(batch,)`` row -> its reference's segment, or -1.
            nl_index: ``(batch,)`` row -> its NL's segment, or -1.
            exact_features: ``(batch, F)`` :func:`unice.data.features.exact_features` of each
                row (with ``exact_features``).
            labels: optional ``(batch, 3)`` PassRatio, Executability, Passability in [0, 1].
        """
        if segment_input_ids is None or generated_index is None:
            raise ValueError("an estimator model takes segment_input_ids and generated_index")
        segments = self._embed(segment_input_ids, segment_attention_mask)
        features = compare_segments(segments, generated_index, reference_index, nl_index)
        if self.config.exact_features:
            if exact_features is None:
                raise ValueError("this model was built with exact_features; pass them")
            exact = head_features(exact_features, self.config)  # structure facts: prior only
            features = torch.cat([features, exact.to(features.dtype)], dim=-1)
        trained = self.head(features)
        if self.config.exact_prior:
            prior = feature_prior(exact_features, self.config.exact_prior)
            trained = add_to_column(trained, 0, self.prior_scale * prior.to(trained.dtype))
        logits = trained
        if self.config.exec_prior:  # the ensemble votes; the loss reads the network's logits
            prior = self.exec_prior_logit(exact_features).to(trained.dtype)
            columns = list(trained.unbind(dim=1))
            columns[1] = ensemble_logit(columns[1], prior)
            logits = torch.stack(columns, dim=1)
        return self._output(features, logits, trained, labels)
