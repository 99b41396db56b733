"""Real HTTP round trips against the fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import time

import pytest

from unice.ice_score import (
    AuthenticationError,
    IceScoreConfig,
    IceScoreInputError,
    ModelNotFoundError,
    ServerUnreachableError,
    score_records,
)

REPLIES = {
    "<<bare>>": "4",
    "<<colon>>": "Score: 2",
    "<<nospace>>": "Score:4",
    "<<fraction>>": "I would rate it 3 out of 4.",
    "<<cot>>": "Step 1: read it.\nStep 2: it handles all 3 cases.\nFunctional Correctness: 1",
    "<<junk>>": "The snippet looks fine to me.",
}


def _config(url: str, **overrides) -> IceScoreConfig:
    values = {
        "base_url": url,
        "model": "judge",
        "progress": False,
        "timeout": 5.0,
        "max_retries": 2,
        "backoff": 0.01,
        "concurrency": 4,
    }
    values.update(overrides)
    return IceScoreConfig(**values)


def test_round_trip_each_reply_shape(server, make_records):
    server.replies = dict(REPLIES)
    records = make_records(list(REPLIES))
    run = score_records(records, _config(server.url))
    assert run.scores == [4.0, 2.0, 4.0, 3.0, 1.0, None]
    assert run.statuses == ["parsed"] * 5 + ["unparsed"]
    assert run.replies == list(REPLIES.values())
    assert run.stats.requests == 6 and run.stats.cache_hits == 0
    assert run.stats.scored == 5 and run.stats.unparsed == 1 and run.stats.missing == 0
    assert run.stats.prompt_tokens > 0 and run.stats.completion_tokens > 0
    body = server.requests[0]["body"]
    assert body["temperature"] == 0.0 and body["model"] == "judge"
    assert body["max_tokens"] == 32
    assert body["messages"][0]["role"] == "user"
    assert "Functional Correctness (0-4)" in body["messages"][0]["content"]
    rows = run.annotate(records)
    assert rows[0]["id"] == "T/0" and rows[0]["ice_score"] == 4.0
    assert rows[5]["ice_score_status"] == "unparsed" and rows[5]["ice_score_parser"] == "robust"


def test_paper_parser_over_http(server, make_records):
    server.replies = dict(REPLIES)
    run = score_records(make_records(list(REPLIES)), _config(server.url, parser="paper"))
    # "Score:4" -> 1 and the unreadable reply -> 1, as Listing 1 does; the CoT reply names
    # "functional" lines, which the listing reads for this aspect.
    assert run.scores == [4.0, 2.0, 1.0, 1.0, 1.0, 1.0]
    assert run.stats.paper_fallbacks == 3 and run.stats.unparsed == 0
    assert "paper fallbacks 3" in run.stats.summary()


def test_cache_second_run_makes_zero_requests(server, make_records, tmp_path):
    server.replies = dict(REPLIES)
    records = make_records(list(REPLIES))
    config = _config(server.url, cache_dir=str(tmp_path / "cache"))
    first = score_records(records, config)
    assert len(server.requests) == 6
    second = score_records(records, config)
    assert len(server.requests) == 6  # nothing new reached the server
    assert second.stats.requests == 0 and second.stats.cache_hits == 6
    assert second.scores == first.scores and second.replies == first.replies
    # a different aspect is a different prompt: a miss, not a stale hit
    score_records(records, _config(server.url, cache_dir=config.cache_dir, aspect="usefulness"))
    assert len(server.requests) == 12
    # the paper parser reads cached replies without new requests
    paper = score_records(records, _config(server.url, cache_dir=config.cache_dir, parser="paper"))
    assert len(server.requests) == 12 and paper.scores[2] == 1.0


def test_identical_prompts_are_requested_once(server, make_records):
    records = make_records(["<<same>>"] * 3)
    for record in records:
        record["nl"] = "Same problem."
    run = score_records(records, _config(server.url))
    assert len(server.requests) == 1
    assert run.scores == [3.0, 3.0, 3.0] and run.stats.unique_prompts == 1


def test_429_then_success_is_retried(server, make_records):
    run = score_records(make_records(["<<a>>", "<<b>>"]), _config(server.url, model="flaky"))
    assert run.scores == [3.0, 3.0]
    assert len(server.requests) == 4 and run.stats.retries == 2


def test_reply_slower_than_timeout_is_recorded_missing(server, make_records):
    server.slow_seconds = 1.0
    config = _config(server.url, model="slow", timeout=0.2, max_retries=1)
    started = time.perf_counter()
    run = score_records(make_records(["<<a>>"]), config)
    assert time.perf_counter() - started < 2.0  # gave up after 2 x 0.2 s, did not wait 2 x 1 s
    assert run.scores == [None] and run.statuses == ["missing"]
    assert "no reply within --timeout 0.2s after 2 tries" in run.errors[0]
    assert run.stats.missing == 1 and run.stats.retries == 1 and run.error is None


def test_persistent_503_gives_up_per_record(server, make_records):
    run = score_records(make_records(["<<a>>", "<<b>>"]), _config(server.url, model="down"))
    assert run.statuses == ["missing", "missing"]
    assert "HTTP 503: overloaded" in run.errors[0]
    assert len(server.requests) == 6  # 3 tries each


def test_auth_error_is_fatal_and_names_the_env_var(server, make_records, monkeypatch):
    server.api_key = "right"
    monkeypatch.setenv("ICE_TEST_KEY", "wrong")
    config = _config(server.url, api_key_env="ICE_TEST_KEY")
    with pytest.raises(AuthenticationError, match=r"HTTP 401.*ICE_TEST_KEY") as info:
        score_records(make_records(["<<a>>", "<<b>>", "<<c>>"]), config)
    assert info.value.run.stats.missing == 3
    assert "3 of 3 records missing" in str(info.value)
    monkeypatch.setenv("ICE_TEST_KEY", "right")
    assert score_records(make_records(["<<a>>"]), config).scores == [3.0]
    assert server.requests[-1]["headers"]["Authorization"] == "Bearer right"


def test_unknown_model_is_fatal(server, make_records):
    with pytest.raises(ModelNotFoundError, match="does not serve model 'gpt-9'"):
        score_records(make_records(["<<a>>"]), _config(server.url, model="gpt-9"))
    assert len(server.requests) == 1  # not retried


def test_wrong_base_path_says_v1(server, make_records):
    url = server.url.removesuffix("/v1")
    with pytest.raises(ModelNotFoundError, match="usually ends in /v1"):
        score_records(make_records(["<<a>>"]), _config(url))


def test_dead_server_keeps_partial_results_in_cache(server, dead_url, make_records, tmp_path):
    cache = str(tmp_path / "cache")
    records = make_records(["<<a>>", "<<b>>", "<<c>>"])
    score_records(records[:2], _config(server.url, cache_dir=cache))  # two finished earlier
    with pytest.raises(ServerUnreachableError, match="cannot reach") as info:
        score_records(records, _config(dead_url, cache_dir=cache, max_retries=1))
    run = info.value.run
    assert run.scores == [3.0, 3.0, None] and run.stats.cache_hits == 2
    assert "1 of 3 records missing" in str(info.value) and "rerun to resume" in str(info.value)
    partial = score_records(
        records, _config(dead_url, cache_dir=cache, max_retries=0), raise_on_error=False
    )
    assert partial.error and partial.statuses[2] == "missing"


def test_input_errors_name_the_record(server, make_records):
    records = make_records(["<<a>>"], with_reference=False)
    with pytest.raises(IceScoreInputError, match=r"record 1 \(id 'T/0'\).*--with-reference"):
        score_records(records, _config(server.url, with_reference=True))
    with pytest.raises(IceScoreInputError, match="no 'generated'"):
        score_records([{"nl": "x"}], _config(server.url))
    with pytest.raises(IceScoreInputError, match="no problem text"):
        score_records([{"nl": "", "completion": "pass"}], _config(server.url))
    assert server.requests == []


def test_completion_field_and_reference_reach_the_prompt(server, make_records):
    record = {"nl": "Add numbers.", "completion": "return a + b  # <<c>>", "reference": "REF-CODE"}
    score_records([record], _config(server.url, with_reference=True, cot=True))
    prompt = server.requests[0]["body"]["messages"][0]["content"]
    assert "return a + b  # <<c>>" in prompt and "Reference Code:\n\nREF-CODE" in prompt
    assert prompt.rstrip().endswith("Step-by-step Evaluation:")
    assert server.requests[0]["body"]["max_tokens"] == 512


def test_hangup_fails_only_that_record(server, make_records):
    run = score_records(make_records(["<<a>>"]), _config(server.url, model="hangup"))
    assert run.error is None and run.statuses == ["missing"]
    assert "disconnected without sending a response. (after 3 tries)" in run.errors[0]


def test_reused_backend_counts_each_run_separately(server, make_records, dead_url):
    from unice.ice_score.backends import make_backend

    config = _config(server.url)
    backend = make_backend(config)
    first = score_records(make_records(["<<a>>", "<<b>>"]), config, backend=backend)
    second = score_records(make_records(["<<c>>"]), config, backend=backend)
    assert (first.stats.requests, second.stats.requests) == (2, 1)
    dead = make_backend(_config(dead_url, max_retries=0))
    with pytest.raises(ServerUnreachableError):
        score_records(make_records(["<<d>>"]), config, backend=dead)
    dead.url = server.url + "/chat/completions"  # the server is back: the stop flag is reset
    assert score_records(make_records(["<<d>>"]), config, backend=dead).scores == [3.0]
