"""Each baseline on a pair of snippets; missing resources give a reasoned skip, never zeros."""

from __future__ import annotations

import math

import numpy as np
import pytest

from unice.evaluation.baselines import (
    BASELINES,
    build_baseline,
    run_baseline,
    run_baselines,
    strip_shared_prefix,
)
from unice.evaluation.errors import BaselineUnavailable, EvaluationError

REFERENCE = "def add(a, b):\n    total = a + b\n    return total\n"
CLOSE = "def add(a, b):\n    total = b + a\n    return total\n"
FAR = "import os\nprint(os.listdir('.'))\n"
# CrystalBLEU's shared n-grams come from the scored texts; k=3 ignores only the commonest ones.
OPTIONS = {"crystalbleu": {"k": 3}}


def _require(name: str) -> None:
    try:
        build_baseline(name, OPTIONS.get(name)).check()
    except BaselineUnavailable as exc:
        pytest.skip(f"{name} unavailable here: {exc}")


@pytest.mark.parametrize("name", sorted(BASELINES))
def test_baseline_ranks_close_code_above_unrelated_code(name: str) -> None:
    _require(name)
    run = run_baseline(
        name, build_baseline(name, OPTIONS.get(name)), [REFERENCE, CLOSE, FAR], [REFERENCE] * 3
    )
    assert run.skipped is None
    assert run.seconds is not None and run.seconds >= 0
    assert run.columns, "a baseline must produce at least one column"
    for column, scores in run.columns.items():
        identical, close, far = scores
        assert identical == pytest.approx(1.0, abs=0.02), column
        if name == "exact_match":
            assert close == far == 0.0
        else:
            assert 0.0 <= far < close <= identical <= 1.0 + 1e-6, column  # float32 cosine
            assert close > 0.3, column  # a one-token swap keeps most of the overlap


def test_exact_match_ignores_layout_only() -> None:
    run = run_baseline(
        "em", build_baseline("exact_match"), [REFERENCE + "\n\n  ", CLOSE], [REFERENCE] * 2
    )
    assert run.columns["ExactMatch"].tolist() == [1.0, 0.0]


def test_samples_without_reference_are_nan_not_zero() -> None:
    run = run_baseline("sacrebleu", build_baseline("sacrebleu"), [CLOSE, CLOSE], [REFERENCE, ""])
    assert run.columns["BLEU"][0] > 0
    assert math.isnan(run.columns["BLEU"][1])


def test_missing_encoder_is_skipped_with_reason(tmp_path) -> None:
    missing = tmp_path / "no-such-encoder"
    run = run_baseline(
        "codebertscore",
        build_baseline("codebertscore", {"model": str(missing)}),
        [CLOSE],
        [REFERENCE],
    )
    assert run.columns == {}
    assert (
        run.skipped
        and "not found" in run.skipped
        and "baselines.codebertscore.model" in run.skipped
    )


def test_missing_wordnet_is_skipped_with_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    from nltk.corpus import wordnet

    def no_wordnet() -> None:
        raise LookupError("Resource wordnet not found.")

    monkeypatch.setattr(wordnet, "ensure_loaded", no_wordnet)
    run = run_baseline("meteor", build_baseline("meteor"), [CLOSE], [REFERENCE])
    assert run.columns == {} and "setup_nltk_wordnet.py" in run.skipped


def test_run_baselines_honours_enabled_and_rejects_unknown_names() -> None:
    runs = run_baselines(
        {"exact_match": {}, "sacrebleu": {"enabled": False}}, [CLOSE], [REFERENCE], progress=False
    )
    assert [r.name for r in runs] == ["exact_match"]
    np.testing.assert_array_equal(runs[0].columns["ExactMatch"], [0.0])
    with pytest.raises(EvaluationError, match="unknown baseline 'bleurt'"):
        run_baselines({"bleurt": {}}, [CLOSE], [REFERENCE], progress=False)
    with pytest.raises(EvaluationError, match="bad options for baseline 'sacrebleu'"):
        build_baseline("sacrebleu", {"tokenise": "13a"})


def test_strip_shared_prefix_keeps_only_the_completions() -> None:
    prompt = 'def add(a, b):\n    """Add."""\n'
    cand, ref = strip_shared_prefix(prompt + "    return b + a\n", prompt + "    return a + b\n")
    assert (cand, ref) == ("return b + a\n", "return a + b\n")
    same = prompt + "    return a + b\n"
    assert strip_shared_prefix(same, same) == (same, same)  # nothing left: compare whole programs
    unrelated = strip_shared_prefix("x = 1\n", "y = 2\n")
    assert unrelated == ("x = 1\n", "y = 2\n")


def test_prompt_stripping_lowers_overlap_of_different_bodies() -> None:
    prompt = 'def f(xs):\n    """Return the largest element of xs, or None when xs is empty."""\n'
    cand, ref = prompt + "    return min(xs)\n", prompt + "    return max(xs) if xs else None\n"
    baseline = build_baseline("sacrebleu")
    full = run_baseline("b", baseline, [cand], [ref]).columns["BLEU"][0]
    body = run_baseline("b", baseline, [cand], [ref], strip_prompt=True).columns["BLEU"][0]
    assert body < full
