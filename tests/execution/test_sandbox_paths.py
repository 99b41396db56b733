"""A checkout or venv under /tmp must stay visible inside the sandbox's private /tmp."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from data_builders.execution.sandbox import _paths_hidden_by_private_tmp, bwrap_command


def test_folders_under_tmp_on_sys_path_are_bound_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not str(tmp_path.resolve()).startswith("/tmp/"):
        pytest.skip("pytest's tmp_path is not under /tmp on this machine")
    package_dir = tmp_path / "site"
    nested = package_dir / "pkg"
    nested.mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [*sys.path, str(package_dir), str(nested)])

    hidden = _paths_hidden_by_private_tmp()
    command = bwrap_command()

    assert str(package_dir.resolve()) in hidden
    assert str(nested.resolve()) not in hidden  # covered by its parent's bind
    tmpfs_at = command.index("--tmpfs")
    bind_at = command.index(str(package_dir.resolve()))
    assert command[bind_at - 1] == "--ro-bind" and bind_at > tmpfs_at


def test_paths_outside_tmp_need_no_rebind(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "path", ["/usr/lib/python3"])
    assert all(path.startswith("/tmp") for path in _paths_hidden_by_private_tmp())


def test_tmp_itself_is_never_bound_read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A script run from /tmp puts /tmp on sys.path; the private scratch tmpfs must stay."""
    monkeypatch.setattr(sys, "path", ["/tmp", *sys.path])
    assert "/tmp" not in _paths_hidden_by_private_tmp()
    command = bwrap_command()
    binds = [command[i + 1] for i, arg in enumerate(command) if arg == "--ro-bind"]
    assert "/tmp" not in binds
