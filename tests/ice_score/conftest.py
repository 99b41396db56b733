"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for the ICE-Score tests.

Behaviour is chosen by the requested model name, so one server covers every case:

* ``judge``: replies with ``server.replies[marker]`` for the first marker found in the prompt
  (records put a marker such as ``<<bare>>`` in their code), else ``"3"``;
* ``flaky``: HTTP 429 (``Retry-After: 0``) on the first request of each prompt, then as ``judge``;
* ``slow``: sleeps ``server.slow_seconds`` before answering;
* ``down``: always HTTP 503;
* ``hangup``: closes the connection without answering;
* anything else: HTTP 404 ``model_not_found``, as OpenAI and vLLM answer.

When ``server.api_key`` is set, a request without ``Authorization: Bearer <key>`` gets 401.
"""

from __future__ import annotations

import json
import socket
import time
from collections import Counter
from collections.abc import Iterator

import pytest

from unice.testing_http import JSONHandler, LocalJSONServer, serving

SERVED = ("judge", "flaky", "slow", "down", "hangup")


class FakeOpenAIServer(LocalJSONServer):
    def __init__(self) -> None:
        super().__init__(_Handler)
        self.replies: dict[str, str] = {}
        self.api_key: str | None = None
        self.slow_seconds = 1.0
        self.requests: list[dict] = []
        self.seen: Counter[str] = Counter()

    def handle_error(self, request, client_address) -> None:  # noqa: ANN001
        """Clients that time out close the socket mid-reply; that is expected here."""

    def reply_for(self, prompt: str) -> str:
        for marker, reply in self.replies.items():
            if marker in prompt:
                return reply
        return "3"


class _Handler(JSONHandler):
    server: FakeOpenAIServer

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        server = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with server.lock:
            server.requests.append({"path": self.path, "body": body, "headers": dict(self.headers)})
        if self.path != "/v1/chat/completions":
            return self.send_json(404, {"detail": "Not Found"})
        if server.api_key and self.headers.get("Authorization") != f"Bearer {server.api_key}":
            return self.send_json(401, {"error": {"message": "Incorrect API key provided"}})
        model, prompt = body["model"], body["messages"][-1]["content"]
        if model not in SERVED:
            message = f"The model `{model}` does not exist or you do not have access to it."
            return self.send_json(404, {"error": {"message": message, "code": "model_not_found"}})
        if model == "hangup":
            self.close_connection = True
            return None
        if model == "down":
            return self.send_json(503, {"error": {"message": "overloaded"}})
        with server.lock:
            server.seen[prompt] += 1
            first = server.seen[prompt] == 1
        if model == "flaky" and first:
            return self.send_json(429, {"error": {"message": "rate limited"}}, {"Retry-After": "0"})
        if model == "slow":
            time.sleep(server.slow_seconds)
        reply = server.reply_for(prompt)
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": len(reply.split())}
        choice = {"index": 0, "message": {"role": "assistant", "content": reply}}
        self.send_json(200, {"object": "chat.completion", "choices": [choice], "usage": usage})


@pytest.fixture(autouse=True)
def _no_proxies(direct_localhost: None) -> None:
    """Every test here talks to a local fake server."""


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory):
    """The ICE-Score reply cache is on by default: keep it out of ~/.cache and per test."""
    monkeypatch.setenv("UNICE_CACHE_DIR", str(tmp_path_factory.mktemp("unice-cache")))


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    """A fresh fake server per test (own counters), shut down afterwards."""
    with serving(FakeOpenAIServer()) as srv:
        yield srv


@pytest.fixture
def dead_url() -> str:
    """A 127.0.0.1 URL where nothing listens (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def _make_records(markers: list[str], with_reference: bool = True) -> list[dict]:
    records = []
    for i, marker in enumerate(markers):
        record = {
            "id": f"T/{i}",
            "nl": f"Return the sum of two integers (task {i}).",
            "generated": f"def add(a, b):\n    return a + b  # {marker}\n",
        }
        if with_reference:
            record["reference"] = "def add(a, b):\n    return a + b\n"
        records.append(record)
    return records


@pytest.fixture
def make_records():
    """``make_records(markers, with_reference=True)``: records whose code carries a marker that
    picks the fake server's reply (one record per marker, ids ``T/0``, ``T/1``...)."""
    return _make_records
