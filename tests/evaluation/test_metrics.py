"""Correlation, example-level, classification, bootstrap and best-of-n metrics on known data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from unice.metrics import (
    auroc,
    best_of_n,
    binary_metrics,
    bootstrap_correlations,
    corpus_correlations,
    example_level_correlations,
    passability_agreement,
)


def test_corpus_correlations_match_scipy_with_ties() -> None:
    rng = np.random.default_rng(0)
    labels = rng.choice([0.0, 0.25, 0.5, 1.0], size=200)  # heavy ties, like PassRatio
    preds = labels + rng.normal(0, 0.3, size=200)
    result = corpus_correlations(preds, labels)
    assert result["kendall"] == pytest.approx(stats.kendalltau(preds, labels).statistic)
    assert result["spearman"] == pytest.approx(stats.spearmanr(preds, labels).statistic)
    assert result["pearson"] == pytest.approx(stats.pearsonr(preds, labels).statistic)
    assert 0.3 < result["kendall"] < result["spearman"]


@pytest.mark.parametrize(
    ("preds", "labels"),
    [([0.1, 0.2, 0.3], [1.0, 1.0, 1.0]), ([0.5, 0.5, 0.5], [0.0, 0.5, 1.0]), ([0.3], [1.0])],
)
def test_corpus_correlations_undefined_is_nan_not_zero(preds, labels) -> None:
    assert all(math.isnan(v) for v in corpus_correlations(preds, labels).values())


HAND_PREDS = [1, 2, 3, 1, 3, 2, 0.1, 0.2, 0.3, 0.5, 0.5, 0.9]
HAND_GOLD = [1, 2, 3, 1, 2, 3, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0]
HAND_GROUPS = ["A"] * 3 + ["B"] * 3 + ["C"] * 3 + ["D"] * 2 + ["E"]


def test_example_level_on_hand_made_table() -> None:
    # A: perfect (1, 1, 1). B: pred (1,3,2) vs gold (1,2,3): tau 1/3, rho 0.5, r 0.5.
    # C: constant labels; D: constant scores; E: one sample -> three undefined problems.
    result = example_level_correlations(HAND_PREDS, HAND_GOLD, HAND_GROUPS)
    assert result.n_problems == 5
    assert result.n_undefined == 3
    assert result.reasons == {"constant_label": 1, "constant_score": 1, "single_sample": 1}
    assert result.skipped["kendall"] == pytest.approx((1 + 1 / 3) / 2)
    assert result.skipped["spearman"] == pytest.approx(0.75)
    assert result.skipped["pearson"] == pytest.approx(0.75)
    assert result.as_zero["kendall"] == pytest.approx((1 + 1 / 3) / 5)
    assert result.as_zero["spearman"] == pytest.approx(1.5 / 5)
    assert result.as_zero["pearson"] == pytest.approx(1.5 / 5)
    np.testing.assert_allclose(result.per_problem["pearson"][:2], [1.0, 0.5])


def test_example_level_drops_unscored_samples_and_matches_scipy_per_problem() -> None:
    rng = np.random.default_rng(1)
    groups = np.repeat(np.arange(10), 8)
    gold = rng.random(80)
    preds = gold + rng.normal(0, 0.5, 80)
    preds[::7] = np.nan  # unscored samples are dropped, not zeroed
    result = example_level_correlations(preds, gold, list(groups))
    expected = []
    for g in range(10):
        mask = (groups == g) & np.isfinite(preds)
        expected.append(stats.spearmanr(preds[mask], gold[mask]).statistic)
    assert result.skipped["spearman"] == pytest.approx(np.mean(expected))
    assert result.n_undefined == 0


def test_binary_metrics_and_auroc() -> None:
    probs = [0.9, 0.8, 0.3, 0.6, 0.1, 0.2]
    labels = [True, True, True, False, False, False]
    result = binary_metrics(probs, labels, threshold=0.5)
    # predicted positive: 0.9, 0.8, 0.6 -> TP 2, FP 1, FN 1
    assert result["precision"] == pytest.approx(2 / 3)
    assert result["recall"] == pytest.approx(2 / 3)
    assert result["f1"] == pytest.approx(2 / 3)
    assert result["accuracy"] == pytest.approx(4 / 6)
    assert result["auroc"] == pytest.approx(8 / 9)  # one inverted pair (0.3 vs 0.6) of nine
    assert math.isnan(auroc([0.1, 0.9], [True, True]))
    assert math.isnan(binary_metrics([0.1, 0.2], [True, False])["precision"])  # nothing predicted


def test_passability_agreement_reports_kappa() -> None:
    result = passability_agreement([0.9, 0.2, 0.7, 0.1], [True, False, False, False])
    assert result["agreement"] == pytest.approx(0.75)
    assert result["kappa"] == pytest.approx(0.5)


def test_best_of_n_ties_count_as_random_pick() -> None:
    groups = ["a", "a", "a", "b", "b"]
    passed = [0.0, 1.0, 0.0, 1.0, 0.0]
    good = best_of_n([0.1, 0.9, 0.2, 0.8, 0.3], passed, groups)
    assert good == {
        "selected": 1.0,
        "random": pytest.approx((1 / 3 + 0.5) / 2),
        "oracle": 1.0,
        "n_problems": 2,
    }
    flat = best_of_n([0.5] * 5, passed, groups)  # constant metric == random choice exactly
    assert flat["selected"] == pytest.approx(flat["random"])


def test_fast_correlations_match_corpus_correlations_with_ties() -> None:
    from unice.metrics.bootstrap import fast_correlations

    rng = np.random.default_rng(4)
    gold = rng.choice([0.0, 0.5, 1.0], size=300)
    pred = np.round(gold + rng.normal(0, 0.4, 300), 1)  # ties on both sides
    expected = corpus_correlations(pred, gold)
    assert fast_correlations(pred, gold) == pytest.approx(
        [expected[c] for c in ("kendall", "spearman", "pearson")]
    )
    assert all(math.isnan(v) for v in fast_correlations(np.ones(5), gold[:5]))


def test_bootstrap_intervals_resample_problems() -> None:
    rng = np.random.default_rng(2)
    groups = list(np.repeat(np.arange(15), 6))
    gold = rng.random(90)
    columns = {"perfect": gold * 2, "noisy": gold + rng.normal(0, 0.3, 90)}
    first = bootstrap_correlations(columns, gold, groups, n_resamples=200, seed=3)
    again = bootstrap_correlations(columns, gold, groups, n_resamples=200, seed=3)
    assert first == again  # seeded: reports are reproducible
    assert first["perfect"]["corpus"]["pearson"] == pytest.approx((1.0, 1.0))
    assert first["perfect"]["example"]["kendall"] == pytest.approx((1.0, 1.0))
    point = corpus_correlations(columns["noisy"], gold)["spearman"]
    low, high = first["noisy"]["corpus"]["spearman"]
    assert low < point < high < 1.0
    with pytest.raises(ValueError, match="confidence"):
        bootstrap_correlations(columns, gold, groups, n_resamples=5, confidence=1.5)
