"""A local JSON HTTP server for tests of the OpenAI-compatible client (ICE-Score's judge and the
dataset builders' ``--generate openai:...``): the plumbing both fake servers share, so each test
module writes only the behaviour it fakes.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

PROXY_VARIABLES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
)
"""httpx honours these; tests talk to 127.0.0.1 directly and unset them."""


class JSONHandler(BaseHTTPRequestHandler):
    """A request handler that answers JSON and logs nothing (keeps test output clean)."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet."""

    def send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        """Answer ``status`` with ``body`` as JSON, plus any extra ``headers``."""
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


class LocalJSONServer(ThreadingHTTPServer):
    """A threading server on a free 127.0.0.1 port; ``url`` is its OpenAI-style ``/v1`` base and
    ``lock`` guards whatever the handler records."""

    daemon_threads = True

    def __init__(self, handler: type[JSONHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


ServerT = TypeVar("ServerT", bound=LocalJSONServer)


@contextmanager
def serving(server: ServerT) -> Iterator[ServerT]:
    """Run ``server`` in a background thread for the ``with`` block, then shut it down."""
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
