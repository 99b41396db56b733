"""The executor's temporary build cache: a build removed when its last program is done is
never run by the same program arriving meanwhile (a duplicate sample)."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path

from data_builders.execution.compiled import pool
from data_builders.execution.compiled.languages import get_language
from data_builders.execution.executor import Executor

SOURCE = "function add(a, b) {\n  return a + b;\n}\n"
TEST = "const testAdd = () => {\n  console.assert(add(1, 2) === 3)\n}\ntestAdd()\n"


def test_a_build_being_removed_is_built_again_not_run(monkeypatch) -> None:
    language = get_language("js")
    driver = language.driver(SOURCE, TEST)
    removing = threading.Event()
    real_rmtree = shutil.rmtree

    def slow_rmtree(path, ignore_errors=False):  # the removal takes a while, as on a busy disk
        removing.set()
        time.sleep(0.3)
        real_rmtree(path, ignore_errors=ignore_errors)

    with Executor("js", workers=2, isolation="rlimits") as executor:
        ex = executor.pool
        first = ex._build(language, driver.files, driver.mode, driver.prelude)
        assert (first.path / "main.js").exists()
        monkeypatch.setattr(pool.shutil, "rmtree", slow_rmtree)
        releasing = threading.Thread(target=ex._release, args=(first,))
        releasing.start()
        assert removing.wait(5)
        second = ex._build(language, driver.files, driver.mode, driver.prelude)
        releasing.join()
        monkeypatch.setattr(pool.shutil, "rmtree", real_rmtree)
        assert Path(second.path, "main.js").exists()  # built again after the removal
        ex._release(second)
