"""Coder/reviewer likelihoods as reference-free baseline columns (``unice.evaluation.likelihoods``,
``scripts/likelihood_scores.py``). The scores must be what the LM says (checked against
``transformers``' own loss), computed once per distinct row and LM, and shared through the
on-disk store."""

from __future__ import annotations

import json

import pytest
import torch

from unice.evaluation.external import load_external_scores
from unice.evaluation.likelihoods import LikelihoodScorer, coder_pair, reviewer_pair
from unice.testing import load_script, make_fixture_dataset, save_tiny_causal_lm

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
    values = first.scores(GOOD, NL, "python")
    assert all(v < 0 for v in values)
    first.scores(GOOD, NL, "python")
    assert first.scored == 1
    assert first.scores(BAD, NL, "python") != values
    assert first.scores(GOOD, NL, "cpp") != values  # the language is part of the prompt
    assert first.scored == 3
    second = LikelihoodScorer.open(str(tiny_lm), max_length=64)  # another process, later
    assert second.scores(GOOD, NL, "python") == values and second.scored == 0
    assert list(cache_dir.glob("likelihoods/*.sqlite"))
    other_length = LikelihoodScorer.open(str(tiny_lm), max_length=8)  # cut differently
    other_length.scores(GOOD, NL, "python")
    assert other_length.scored == 1


def test_prefill_scores_each_distinct_row_with_an_nl_once(tiny_lm):
    scorer = LikelihoodScorer.open(str(tiny_lm), max_length=64, cache=None)
    triples = [
        (GOOD, NL, "python"),
        (GOOD, NL, "python"),
        (BAD, NL, "python"),
        (GOOD, "", "python"),
    ]
    report = scorer.prefill(triples, progress=False, say=lambda _: None)
    assert report["scored"] == 2 and report["from_cache"] == 0 and scorer.scored == 2


def test_the_scores_script_writes_reference_free_columns(tiny_lm, tmp_path, cache_dir):
    data = make_fixture_dataset(tmp_path / "data")
    script = load_script("likelihood_scores")
    out = tmp_path / "scores.jsonl"
    args = ["--data", str(data), "--split", "test", "--out", str(out)]
    assert (
        script.main([*args, "--model", str(tiny_lm), "--label", "tiny", "--max-length", "32"]) == 0
    )
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    rows = [json.loads(line) for line in (data / "test.jsonl").read_text().splitlines()]
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
