"""One cache-location rule for every tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from data_builders.cache import cache_dir


def test_unice_cache_dir_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNICE_CACHE_DIR", str(tmp_path / "u"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_dir("extension") == tmp_path / "u" / "extension"


def test_xdg_then_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNICE_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_dir("ice_score") == tmp_path / "x" / "unice" / "ice_score"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_dir("ice_score") == tmp_path / "home" / ".cache" / "unice" / "ice_score"
