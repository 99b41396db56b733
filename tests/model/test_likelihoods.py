"""``model.likelihood_features``: the head reads coder/reviewer likelihoods of a frozen causal
LM (issue 27 arm M). The scores must be what the LM says (checked against ``transformers``'
own loss), computed once per distinct row and LM, shared through the on-disk store, and fed to
the head only where the row's format has an NL."""

from __future__ import annotations

import json

import pytest
import torch

import unice
from unice.data.dataset import Collator, Sample
from unice.data.encoding import InputEncoder
from unice.data.features import FEATURE_NAMES
from unice.data.likelihoods import (
    LIKELIHOOD_FEATURES,
    LikelihoodScorer,
    coder_pair,
    reviewer_pair,
)
from unice.errors import ModelConfigError
from unice.modeling.configuration import UniCEConfig
from unice.testing import build_tiny_model, save_tiny_causal_lm
from unice.training.loop import train
from unice.training.state import run_fingerprint

from .conftest import compose, tiny_overrides

NL = "Return the sum of a and b."
GOOD = "def add(a, b):\n    return a + b\n"
BAD = "def add(a, b):\n    return a - b\n"


@pytest.fixture(scope="module")
def tiny_lm(tmp_path_factory: pytest.TempPathFactory):
    return save_tiny_causal_lm(tmp_path_factory.mktemp("lm") / "tiny-llama", "llama", seed=5)


@pytest.fixture()
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("UNICE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_mean_logp_is_the_lm_own_loss_on_the_continuation(tiny_lm):
    scorer = LikelihoodScorer.open(str(tiny_lm), max_length=64, cache=None)
    tok, model = scorer.tokenizer, scorer.model
    context, continuation = coder_pair(GOOD, NL, "python")
    ctx = [tok.bos_token_id, *tok(context, add_special_tokens=False)["input_ids"]]
    cont = [*tok(continuation, add_special_tokens=False)["input_ids"], tok.eos_token_id]
    labels = torch.tensor([[-100] * len(ctx) + cont])
    with torch.no_grad():
        loss = model(input_ids=torch.tensor([ctx + cont]), labels=labels).loss
    assert scorer.mean_logp(context, continuation) == pytest.approx(-float(loss), abs=1e-5)


def test_the_two_prompts_put_the_nl_on_opposite_sides():
    context, continuation = coder_pair(GOOD, NL, "python")
    assert context == f"# {NL}\n" and continuation == GOOD
    context, continuation = reviewer_pair(GOOD, "line one\nline two", "cpp")
    assert context.startswith(GOOD) and continuation == "// line one\n// line two\n"


def test_scores_are_computed_once_and_shared_through_the_store(tiny_lm, cache_dir):
    first = LikelihoodScorer.open(str(tiny_lm), max_length=64)
    values = first.features(GOOD, NL, "python")
    assert values[0] == 1.0 and all(v < 0 for v in values[1:])
    first.features(GOOD, NL, "python")
    assert first.scored == 1
    assert first.features(BAD, NL, "python") != values
    assert first.features(GOOD, NL, "cpp") != values  # the language is part of the prompt
    assert first.scored == 3
    second = LikelihoodScorer.open(str(tiny_lm), max_length=64)  # another process, later
    assert second.features(GOOD, NL, "python") == values and second.scored == 0
    assert list(cache_dir.glob("likelihoods/*.sqlite"))
    other_length = LikelihoodScorer.open(str(tiny_lm), max_length=8)  # cut differently
    other_length.features(GOOD, NL, "python")
    assert other_length.scored == 1


def test_a_row_without_nl_reads_zeros_and_flag_zero(tiny_lm):
    scorer = LikelihoodScorer.open(str(tiny_lm), max_length=64, cache=None)
    assert scorer.features(GOOD, None) == [0.0, 0.0, 0.0] and scorer.scored == 0


def test_the_switch_needs_exact_features():
    with pytest.raises(ModelConfigError, match="needs exact_features=true"):
        UniCEConfig(architecture="estimator", likelihood_features=True)


def _samples() -> list[Sample]:
    return [
        Sample(f"t/{i}", g, GOOD, NL, float(i == 0), True, i == 0, "t")
        for i, g in enumerate([GOOD, BAD, "def add(a, b):\n    return b + a\n"])
    ]


def test_the_head_reads_them_where_the_format_has_an_nl(tiny_lm, cache_dir):
    on = {"architecture": "estimator", "exact_features": True}
    model = build_tiny_model(seed=2, likelihood_features=True, likelihood_model=str(tiny_lm), **on)
    assert model.config.head_feature_width == len(FEATURE_NAMES) + len(LIKELIHOOD_FEATURES)
    encoder = InputEncoder.from_config(model.tokenizer, model.config)
    assert encoder.likelihoods is not None
    batch = Collator(encoder, model.config.formats, "estimator")(_samples())
    features = batch["exact_features"]
    assert features.shape[1] == len(FEATURE_NAMES) + len(LIKELIHOOD_FEATURES)
    has_nl = batch["nl_index"] >= 0
    assert torch.equal(features[:, len(FEATURE_NAMES)], has_nl.float())
    assert (features[~has_nl, len(FEATURE_NAMES) :] == 0).all()
    scores = model.score(
        generated=[s.generated for s in _samples()],
        references=[GOOD] * 3,
        nls=[NL] * 3,
        batch_size=2,
    )
    assert len(scores) == 3 and all(row["codescore_ref_nl"] is not None for row in scores)
    plain = build_tiny_model(seed=2, **on)
    assert InputEncoder.from_config(plain.tokenizer, plain.config).likelihoods is None


def test_training_prefills_them_once_and_the_checkpoint_scores_with_them(
    tiny_lm, tiny_backbone, fixture_data, tmp_path, cache_dir
):
    extra = {
        "model.architecture": "estimator",
        "model.exact_features": "true",
        "model.likelihood_features": "true",
        "model.likelihood_model": str(tiny_lm),
        "trainer.epochs": 1,
    }
    cfg = compose(tiny_overrides(tiny_backbone, fixture_data, tmp_path / "run", **extra))
    metrics = train(cfg)
    model = unice.load_model(metrics["best_checkpoint"], device="cpu")
    assert model.config.likelihood_features and model.config.likelihood_model == str(tiny_lm)
    scores = model.score(generated=[GOOD, BAD], references=[GOOD, GOOD], nls=[NL, NL])
    assert len(scores) == 2 and scores[0]["codescore_ref_nl"] != scores[1]["codescore_ref_nl"]


def test_the_switch_off_keeps_an_older_runs_fingerprint():
    base = {"model": {"exact_features": True}, "trainer": {}, "data": {}}
    old = run_fingerprint(base, [], [])
    new = {
        **base,
        "model": {**base["model"], "likelihood_features": False, "likelihood_model": "smollm2"},
    }
    on = {**base, "model": {**base["model"], "likelihood_features": True}}
    assert run_fingerprint(new, [], []) == old
    assert run_fingerprint(on, [], []) != old


def test_the_scores_script_writes_reference_free_columns(
    tiny_lm, fixture_data, tmp_path, cache_dir
):
    from unice.evaluation.external import load_external_scores
    from unice.testing import load_script

    script = load_script("likelihood_scores")
    out = tmp_path / "scores.jsonl"
    args = ["--data", str(fixture_data), "--split", "test", "--out", str(out)]
    assert (
        script.main([*args, "--model", str(tiny_lm), "--label", "tiny", "--max-length", "32"]) == 0
    )
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    rows = [json.loads(line) for line in (fixture_data / "test.jsonl").read_text().splitlines()]
    assert [line["id"] for line in lines] == [row["id"] for row in rows]
    for line, row in zip(lines, rows, strict=True):
        if row["nl"]:
            assert line["Coder+Reviewer (tiny)"] == pytest.approx(
                line["Coder (tiny)"] + line["Reviewer (tiny)"]
            )
        else:  # nothing to condition on: not scored, never a made-up value
            assert line["Coder (tiny)"] is None
    columns = load_external_scores([str(out)], [row["id"] for row in rows], [])
    assert [c.name for c in columns] == ["Coder (tiny)", "Reviewer (tiny)", "Coder+Reviewer (tiny)"]
    assert script.main(["--data", str(tmp_path / "missing"), "--out", str(out)]) == 2
