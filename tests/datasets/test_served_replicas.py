"""``--generate openai:URL1,URL2:MODEL``: several replicas on 127.0.0.1, one dying mid-run,
all dying, and the rerun that resumes from the reply cache on other ports."""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import yaml

from data_builders.candidates.generate import SamplingSettings
from data_builders.candidates.served import parse_endpoints, served_candidates
from data_builders.errors import UserError
from data_builders.problems.base import Problem
from unice.testing_http import JSONHandler, LocalJSONServer, serving

REPLY = "```python\ndef add(a, b):\n    return a + b\n```\n"
PROBLEMS = [
    Problem(f"T/{i}", 'def add(a, b):\n    """Add."""\n', f"Add ({i}).", "", "add")
    for i in range(6)
]
SETTINGS = SamplingSettings(
    n=4,
    temperature=0.7,
    top_p=0.9,
    max_new_tokens=32,
    seed=3,
    prompt="chat",
    instruction="{nl}\n{prompt}",
    max_retries=1,
    timeout=5.0,
    concurrency=4,
)
REPO = Path(__file__).resolve().parents[2]
TOTAL = len(PROBLEMS) * SETTINGS.n  # 24 requests in a cold run


class Tally:
    """What every replica of one test saw: requests in flight now and at most, over all."""

    def __init__(self) -> None:
        self.in_flight = 0
        self.most = 0


class Replica(LocalJSONServer):
    """Answers REPLY after ``delay`` seconds; the request after the first ``die_after`` shuts
    the server down and hangs up without a reply, like a replica that crashed (the ones already
    started are still answered)."""

    def __init__(self, tally: Tally, delay: float = 0.03, die_after: int | None = None) -> None:
        super().__init__(_Handler)
        self.tally, self.delay, self.die_after = tally, delay, die_after
        self.started = 0
        self.answered: list[int] = []  # the seeds this replica answered
        self.in_flight = self.most = 0
        self.dead = False

    def handle_error(self, request, client_address) -> None:  # noqa: ANN001
        """A hung-up client mid-reply is expected here."""


class _Handler(JSONHandler):
    server: Replica

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        srv = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with srv.lock:
            dying = srv.die_after is not None and srv.started >= srv.die_after
            srv.started += not dying
            if dying and not srv.dead:
                srv.dead = True
                srv.shutdown()  # from this handler thread: stops serve_forever
                srv.server_close()  # new connections are now refused
        if dying:
            self.close_connection = True
            return None
        with srv.lock:
            srv.in_flight += 1
            srv.tally.in_flight += 1
            srv.most = max(srv.most, srv.in_flight)
            srv.tally.most = max(srv.tally.most, srv.tally.in_flight)
        time.sleep(srv.delay)
        with srv.lock:
            srv.in_flight -= 1
            srv.tally.in_flight -= 1
            srv.answered.append(body["seed"])
        choice = {"index": 0, "message": {"role": "assistant", "content": REPLY}}
        return self.send_json(200, {"choices": [choice], "usage": {"completion_tokens": 5}})


@pytest.fixture(autouse=True)
def _no_proxies(direct_localhost: None) -> None:
    """Every test here talks to local fake servers."""


@pytest.fixture
def replicas() -> Iterator[callable]:
    """``replicas(n, **kwargs)`` starts n replicas sharing one Tally (per-replica kwargs lists)."""
    with ExitStack() as stack:

        def start(count: int, die_after: tuple[int | None, ...] | None = None) -> list[Replica]:
            tally = Tally()
            deaths = die_after or (None,) * count
            return [stack.enter_context(serving(Replica(tally, die_after=d))) for d in deaths]

        yield start


def _spec(servers: list[Replica]) -> str:
    return "openai:" + ",".join(s.url for s in servers) + ":coder"


def _run(spec: str, cache: Path) -> list:
    return list(served_candidates(PROBLEMS, spec, SETTINGS, cache, progress=False))


def test_spec_lists_endpoints_with_commas() -> None:
    spec = "openai:http://127.0.0.1:8000/v1,http://127.0.0.1:8001/v1/:qwen2.5-coder:1.5b"
    assert parse_endpoints(spec) == (
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"),
        "qwen2.5-coder:1.5b",
    )
    assert parse_endpoints("openai:http://h:1/v1:m") == (("http://h:1/v1",), "m")
    with pytest.raises(UserError, match="joined by commas"):
        parse_endpoints("openai:http://h:1/v1, http://h:2/v1:m")


def test_same_endpoint_twice_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="listed twice") as info:
        _run("openai:http://127.0.0.1:9/v1,http://127.0.0.1:9/v1/:coder", tmp_path)
    assert "\n" not in str(info.value)


def test_requests_spread_over_replicas_within_the_concurrency_limit(
    replicas, tmp_path: Path
) -> None:
    servers = replicas(2)
    got = _run(_spec(servers), tmp_path / "c")
    assert len(got) == TOTAL and {c.source for c in got} == {"generate:openai:coder"}
    counts = [len(s.answered) for s in servers]
    assert sum(counts) == TOTAL and min(counts) >= TOTAL // 4, counts
    tally = servers[0].tally
    assert 1 < tally.most <= SETTINGS.concurrency  # several in flight, never more than allowed
    assert max(s.most for s in servers) <= SETTINGS.concurrency // 2  # fewest-in-flight first
    # the cache answers a rerun, whatever endpoints it is given
    assert [c.program for c in _run(_spec(servers[:1]), tmp_path / "c")] == [c.program for c in got]
    assert sum(len(s.answered) for s in servers) == TOTAL


def test_a_replica_dying_mid_run_hands_its_requests_to_the_others(
    replicas, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    alive, dying = replicas(2, die_after=(None, 3))
    got = _run(_spec([alive, dying]), tmp_path / "c")
    assert [c.id for c in got] == [f"T/{i}::generate::{j}" for i in range(6) for j in range(4)]
    assert len(dying.answered) == 3 and dying.dead
    assert len(alive.answered) == TOTAL - 3
    assert not set(alive.answered) & set(dying.answered)  # nothing asked twice
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert warnings == [
        f"warning: cannot reach {dying.url} (ConnectError); its requests go to the other 1 "
        "endpoint for the rest of this run"
    ]


def test_all_replicas_dead_is_one_line_error_and_a_rerun_resumes_from_the_cache(
    replicas, tmp_path: Path
) -> None:
    first = replicas(2, die_after=(2, 3))
    with pytest.raises(UserError, match="cannot reach any of the 2 endpoints") as info:
        _run(_spec(first), tmp_path / "c")
    assert "\n" not in str(info.value)
    answered = Counter(seed for s in first for seed in s.answered)
    assert sum(answered.values()) == 5
    # the rerun, on two other ports: only what is missing is asked
    second = replicas(2)
    got = _run(_spec(second), tmp_path / "c")
    assert len(got) == TOTAL
    asked_again = [seed for s in second for seed in s.answered]
    assert len(asked_again) == TOTAL - 5 and not set(asked_again) & set(answered)


def test_a_stopped_build_resumes_with_other_replicas(
    replicas, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The build's manifest records ``openai:<model>``, not the URLs: a build stopped by dead
    replicas resumes on new ones, which are asked only for the samples not yet cached."""
    from data_builders.__main__ import main

    monkeypatch.setenv("UNICE_CACHE_DIR", str(tmp_path / "cache"))
    raw = yaml.safe_load((REPO / "configs" / "build" / "humaneval.yaml").read_text())
    raw["generation"]["max_retries"] = 1  # the dead replica costs one 1 s backoff, not 15 s
    config = tmp_path / "humaneval.yaml"
    config.write_text(yaml.safe_dump(raw))
    out = tmp_path / "he"
    argv = ["build", "humaneval", "--out", str(out), "--n", "4", "--max-problems", "1"]
    argv += ["--split-ratios", "0,0,1", "--config", str(config), "--generate"]
    (dying,) = replicas(1, die_after=(3,))
    assert main([*argv, _spec([dying]), "--concurrency", "1"]) == 2  # one-line error
    assert len(dying.answered) == 3 and dying.tally.most == 1
    fresh = replicas(2)
    assert main([*argv, _spec(fresh), "--concurrency", "0"]) == 2
    assert "--concurrency must be >= 1" in capsys.readouterr().err
    assert main([*argv, _spec(fresh), "--concurrency", "3"]) == 0  # other endpoints and limit
    assert sum(len(s.answered) for s in fresh) == 1  # only the sample the first run lacked
    rows = [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == [f"HumanEval/0::generate::{i}" for i in range(4)]
    info = json.loads((out / "build_info.json").read_text())
    assert info["manifest"]["generate"][0] == "openai:coder"
