"""The paired bootstrap of CodeScore minus a baseline, and the one common problem set."""

from __future__ import annotations

import numpy as np
import pytest

from unice.evaluation.paired import interval_verdict, paired_kendall, paired_report


def _problems(n_problems: int = 30, per: int = 8, seed: int = 1):
    rng = np.random.default_rng(seed)
    gold = rng.random(n_problems * per)
    groups = np.repeat(np.arange(n_problems), per)
    return gold, groups, rng


def test_identical_metrics_give_an_interval_around_zero() -> None:
    gold, groups, rng = _problems()
    noisy = gold + rng.normal(0, 0.3, gold.size)
    draws = paired_kendall({"a": noisy, "b": noisy.copy()}, gold, groups, n_resamples=200)
    for level in draws.difference("a", "b").values():
        assert level["difference"] == 0.0
        assert level["low"] <= 0.0 <= level["high"]
        assert level["verdict"] == "undecided"


def test_a_dominating_metric_gives_a_positive_interval() -> None:
    gold, groups, rng = _problems()
    good = gold + rng.normal(0, 0.05, gold.size)
    bad = gold + rng.normal(0, 1.0, gold.size)
    draws = paired_kendall({"good": good, "bad": bad}, gold, groups, n_resamples=200)
    diff = draws.difference("good", "bad")
    for level in diff.values():
        assert level["low"] > 0 and level["verdict"] == "above"
    assert draws.difference("bad", "good")["corpus_kendall"]["verdict"] == "below"


def test_example_level_uses_one_common_problem_set() -> None:
    gold, groups, rng = _problems(n_problems=10, per=5)
    a = gold + rng.normal(0, 0.2, gold.size)
    b = a.copy()
    b[groups == 0] = 0.5  # constant within problem 0: b's tau is undefined there
    draws = paired_kendall({"a": a, "b": b}, gold, groups, n_resamples=0)
    assert draws.n_problems == 10 and draws.n_common_problems == 9
    # on the common set the two metrics are the same scores, so their means agree exactly
    assert draws.example[0] == pytest.approx(draws.example[1])
    report = paired_report(draws, ["a"], ["b"])
    assert report["common"]["a"]["example_kendall"] == pytest.approx(draws.example[0])
    assert report["differences"]["a"]["b"]["example_kendall"]["verdict"] == "n/a"  # no resamples


def test_interval_verdicts() -> None:
    assert interval_verdict(0.01, 0.2) == "above"
    assert interval_verdict(-0.2, -0.01) == "below"
    assert interval_verdict(-0.1, 0.1) == "undecided"
    assert interval_verdict(float("nan"), 0.1) == "n/a"


def test_no_interval_from_a_single_problem() -> None:
    gold, groups, rng = _problems(n_problems=1, per=10)
    draws = paired_kendall({"a": gold, "b": rng.random(10)}, gold, groups, n_resamples=50)
    for level in draws.difference("a", "b").values():
        assert level["difference"] > 0 and level["verdict"] == "n/a"
