"""The foreign executor's housekeeping: released build folders leave at once and are deleted in
the background, and a process tree's CPU time is read from each process's CPU clock."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from data_builders.execution.compiled.build import DeferredRemoval
from data_builders.execution.processes import Tree


def test_a_removed_folder_is_gone_at_once_and_the_trash_emptied_on_close(tmp_path: Path) -> None:
    builds = tmp_path / "builds"
    folders = []
    for i in range(3):
        folder = builds / f"b{i}"
        (folder / "deep").mkdir(parents=True)
        (folder / "deep" / "main.js").write_text("x")
        folders.append(folder)
    trash = DeferredRemoval(tmp_path)
    for folder in folders:
        trash.remove(folder)
        assert not folder.exists()  # the next build of the same digest finds no old folder
    trash.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["builds"]  # no trash folder left
    assert list(builds.iterdir()) == []


def test_a_folder_that_cannot_be_moved_aside_is_deleted_in_place(tmp_path: Path) -> None:
    folder = tmp_path / "build"
    folder.mkdir()
    trash = DeferredRemoval(tmp_path / "missing" / "parent")  # no trash folder can be made
    trash.remove(folder)
    assert not folder.exists()
    trash.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux /proc and CPU clocks")
def test_tree_cpu_agrees_with_proc_and_counts_finer_than_a_tick() -> None:
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)
        tree = Tree(busy.pid)
        from_clock = tree.cpu()
        from_proc = tree._proc_cpu(busy.pid)
        assert from_clock > 0.05  # it ran (on a loaded machine, a share of 0.5 s)
        assert abs(from_clock - from_proc) < 0.1  # the same quantity, read two ways
        assert from_clock != round(from_clock / Tree.tick) * Tree.tick  # not in whole ticks
    finally:
        busy.kill()
        busy.wait()


def test_tree_cpu_of_a_process_that_is_gone_is_zero_not_an_error() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # reaped: neither its CPU clock nor /proc/PID exists any more
    assert Tree(gone.pid).cpu() == 0.0
