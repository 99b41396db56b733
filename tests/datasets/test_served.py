"""``--generate openai:URL:MODEL`` against a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.candidates.generate import SamplingSettings
from data_builders.candidates.served import parse_spec, served_candidates
from data_builders.errors import UserError
from data_builders.problems.base import Problem
from unice.testing_http import JSONHandler, LocalJSONServer, serving

REPLY = (
    "Sure! Here is a solution:\n\n```python\ndef add(a, b):\n    return a + b\n```\n\n"
    "It returns the sum. Example:\n```python\nprint(add(1, 2))\n```\n"
)
PROBLEMS = [
    Problem(f"T/{i}", 'def add(a, b):\n    """Add two numbers."""\n', "Add.", "", "add")
    for i in range(2)
]


class FakeServer(LocalJSONServer):
    """Chat completions; the model name picks the behaviour: ``coder`` answers REPLY,
    ``flaky`` answers 429 to the first request of each (prompt, seed), ``broken`` answers a
    body without choices to sample 1 of every task until ``healed`` is set."""

    def __init__(self) -> None:
        super().__init__(_Handler)
        self.bodies: list[dict] = []
        self.seen: Counter[tuple[str, int]] = Counter()
        self.healed = False


class _Handler(JSONHandler):
    server: FakeServer

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        srv = self.server
        key = (body["messages"][-1]["content"], body.get("seed"))
        with srv.lock:
            srv.bodies.append(body)
            srv.seen[key] += 1
            first = srv.seen[key] == 1
        if body["model"] == "flaky" and first:
            return self.send_json(429, {"error": {"message": "slow down"}}, {"Retry-After": "0"})
        sample_one = body["seed"] == SETTINGS.sample_seed(_task(body), 1)
        if body["model"] == "broken" and sample_one and not srv.healed:
            return self.send_json(200, {"object": "chat.completion", "choices": []})
        choice = {"index": 0, "message": {"role": "assistant", "content": REPLY}}
        return self.send_json(200, {"choices": [choice], "usage": {"completion_tokens": 9}})


def _task(body: dict) -> str:
    return "T/1" if "T/1" in body["messages"][-1]["content"] else "T/0"


SETTINGS = SamplingSettings(
    n=2,
    temperature=0.7,
    top_p=0.9,
    max_new_tokens=64,
    seed=3,
    prompt="chat",
    instruction="Task {entry_point} ({nl}):\n{prompt}",
    chat_stop=("\n```\n",),
    max_retries=2,
    timeout=5.0,
    concurrency=2,
)


@pytest.fixture(autouse=True)
def _no_proxies(direct_localhost: None) -> None:
    """Every test here talks to a local fake server."""


@pytest.fixture
def server() -> Iterator[FakeServer]:
    with serving(FakeServer()) as srv:
        yield srv


def _problems() -> list[Problem]:
    # the task id is in the instruction only through {nl}: make it differ per task
    return [
        Problem(p.task_id, p.prompt, f"Add ({p.task_id}).", "", p.entry_point) for p in PROBLEMS
    ]


def test_spec_keeps_colons_in_model_names() -> None:
    assert parse_spec("openai:http://localhost:11434/v1:qwen2.5-coder:1.5b") == (
        "http://localhost:11434/v1",
        "qwen2.5-coder:1.5b",
    )
    with pytest.raises(UserError, match="openai:<base_url>:<model>"):
        parse_spec("openai:localhost:8000:model")


def test_served_round_trip_extracts_code_and_seeds_each_sample(
    server: FakeServer, tmp_path: Path
) -> None:
    spec = f"openai:{server.url}:coder"
    got = list(served_candidates(_problems(), spec, SETTINGS, tmp_path / "c", progress=False))
    assert [c.id for c in got] == [
        "T/0::generate::0",
        "T/0::generate::1",
        "T/1::generate::0",
        "T/1::generate::1",
    ]
    assert {c.source for c in got} == {"generate:openai:coder"}
    program = got[0].program
    assert program.startswith(PROBLEMS[0].prompt.rstrip()) and "print(add" not in program
    scope: dict = {}
    exec(compile(program, "<candidate>", "exec"), scope)  # noqa: S102 - our own fixture code
    assert scope["add"](2, 3) == 5
    body = server.bodies[0]
    assert body["model"] == "coder" and body["temperature"] == 0.7 and body["top_p"] == 0.9
    assert body["max_tokens"] == 64 and body["messages"][-1]["role"] == "user"
    assert body["stop"] == ["\n```\n"]
    assert len({b["seed"] for b in server.bodies}) == 4  # one seed per sample
    # a second run is answered from the reply cache: no request reaches the server
    again = list(served_candidates(_problems(), spec, SETTINGS, tmp_path / "c", progress=False))
    assert [c.program for c in again] == [c.program for c in got] and len(server.bodies) == 4


def test_served_retries_a_429(server: FakeServer, tmp_path: Path) -> None:
    spec = f"openai:{server.url}:flaky"
    got = list(served_candidates(_problems(), spec, SETTINGS, tmp_path / "c", progress=False))
    assert len(got) == 4 and len(server.bodies) == 8  # each sample: a 429, then the reply


def test_malformed_reply_leaves_the_sample_out_until_a_rerun(
    server: FakeServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = f"openai:{server.url}:broken"
    got = list(served_candidates(_problems(), spec, SETTINGS, tmp_path / "c", progress=False))
    assert [c.id for c in got] == ["T/0::generate::0", "T/1::generate::0"]
    err = capsys.readouterr().err
    assert "2 of 4 generation requests failed" in err and "not an OpenAI chat completion" in err
    server.healed = True
    asked = len(server.bodies)
    again = list(served_candidates(_problems(), spec, SETTINGS, tmp_path / "c", progress=False))
    assert len(again) == 4 and len(server.bodies) == asked + 2  # only the two missing


def test_unreachable_server_is_one_line_error(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = SamplingSettings(**{**SETTINGS.__dict__, "max_retries": 0})
    spec = f"openai:http://127.0.0.1:{port}/v1:coder"
    with pytest.raises(UserError) as excinfo:
        list(served_candidates(_problems(), spec, settings, tmp_path / "c", progress=False))
    assert "cannot reach" in str(excinfo.value) and "\n" not in str(excinfo.value)


def test_build_with_served_generation(
    server: FakeServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UNICE_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "he"
    argv = ["build", "humaneval", "--out", str(out), "--generate", f"openai:{server.url}:coder"]
    argv += ["--n", "2", "--max-problems", "1", "--split-ratios", "0,0,1"]
    assert main(argv) == 0
    rows = [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]
    assert [r["id"] for r in rows] == ["HumanEval/0::generate::0", "HumanEval/0::generate::1"]
    assert all(r["source"] == "generate:openai:coder" for r in rows)
    # the reply defines `add`, not HumanEval/0's function: the labels say it fails
    assert all(r["executable"] is False or r["pass_ratio"] == 0.0 for r in rows)
    assert "Complete the following Python function" in server.bodies[0]["messages"][-1]["content"]
