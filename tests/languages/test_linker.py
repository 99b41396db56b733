"""The gold linker where binutils has it (``languages/base.fast_linker``): C++ programs link
with it, and without it the compile command is the plain one. (Rust gained nothing from it:
13.2 programs/s with it and without, ``benchmarks/label_vs_plain_harness.py``, 2026-12-06.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from data_builders.execution.compiled.languages import base, get_language


@pytest.fixture
def linker(monkeypatch: pytest.MonkeyPatch):
    """Set whether ``ld.gold`` is found; the cached answer is forgotten before and after."""

    def set_found(found: bool) -> None:
        base.fast_linker.cache_clear()
        real = shutil.which
        monkeypatch.setattr(
            base.shutil, "which", lambda name: ("/usr/bin/ld.gold" if found else None)
            if name == "ld.gold" else real(name)
        )  # fmt: skip

    yield set_found
    base.fast_linker.cache_clear()


@pytest.mark.parametrize("found", [True, False])
def test_compile_commands_use_gold_only_where_it_is(linker, found: bool) -> None:
    linker(found)
    cpp = get_language("cpp").compile_argv(Path("/b"), prelude_dir=Path("/p"))
    assert ("-fuse-ld=gold" in cpp) is found
    assert cpp[-3:] == ["prog", "main.cpp", "-lcrypto"]
