"""The shared OpenAI-compatible client: the dependency direction and the re-exported names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from data_builders.openai_client import ClientConfigError, ClientSettings

DATA_BUILDERS = Path(__file__).resolve().parents[2] / "data_builders"


def _imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_data_builders_never_import_unice() -> None:
    """``unice`` builds on ``data_builders`` (caches, the client), never the other way round."""
    offenders = {
        str(path.relative_to(DATA_BUILDERS.parent)): sorted(
            name for name in _imported_modules(path) if name.split(".")[0] == "unice"
        )
        for path in sorted(DATA_BUILDERS.rglob("*.py"))
    }
    assert {path: names for path, names in offenders.items() if names} == {}
    assert len(offenders) > 20  # the walk did see the package


def test_ice_score_names_are_the_client_classes() -> None:
    """Old import paths keep working and catch the same errors as before the move."""
    from data_builders import openai_client
    from unice.ice_score import BackendError, IceScoreConfigError, IceScoreError
    from unice.ice_score.backends import Completion
    from unice.ice_score.backends.openai_http import OpenAIBackend
    from unice.ice_score.cache import ReplyCache, request_key

    assert BackendError is openai_client.BackendError and Completion is openai_client.Completion
    assert (ReplyCache, request_key) == (openai_client.ReplyCache, openai_client.request_key)
    assert issubclass(OpenAIBackend, openai_client.OpenAIClient)
    assert issubclass(openai_client.ServerUnreachableError, IceScoreError)
    assert issubclass(openai_client.ClientConfigError, IceScoreConfigError)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"base_urls": ()}, "no server URL"),
        ({"base_urls": ("http://a/v1", "http://a/v1/")}, "listed twice"),
        ({"concurrency": 0}, "concurrency must be >= 1"),
        ({"max_retries": -1}, "max_retries must be >= 0"),
        ({"model": ""}, "no model name"),
    ],
)
def test_bad_settings_are_one_line_errors(values: dict, message: str) -> None:
    with pytest.raises(ClientConfigError, match=message) as info:
        ClientSettings(**{"base_urls": ("http://a/v1",), "model": "m", **values})
    assert "\n" not in str(info.value)


def test_one_url_string_is_one_endpoint() -> None:
    assert ClientSettings("http://a:8000/v1", "m").base_urls == ("http://a:8000/v1",)


def test_connection_pool_follows_the_concurrency() -> None:
    """httpx's default pool holds 100 connections: more requests in flight must not queue."""
    from data_builders.openai_client import OpenAIClient

    small = OpenAIClient(ClientSettings("http://a/v1", "m", concurrency=8)).limits()
    assert (small.max_connections, small.max_keepalive_connections) == (100, 20)  # the defaults
    large = OpenAIClient(ClientSettings("http://a/v1", "m", concurrency=256)).limits()
    assert (large.max_connections, large.max_keepalive_connections) == (256, 256)
