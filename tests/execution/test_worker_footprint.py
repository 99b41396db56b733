"""What a worker imports decides what every program's fork costs; random draws are stable.

These guard the executor's speed choices (docs/execution.md, "Why it is fast"): a module
slipping back into the worker's import graph would not fail any labelling test, only make
every label slower.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from data_builders.execution import CallTest, Executor, Program

REPO = Path(__file__).resolve().parents[2]


def _worker_modules(*names: str) -> list[str]:
    probe = (
        "import os, sys\n"
        "hooks = []\n"
        "register = os.register_at_fork\n"
        "os.register_at_fork = lambda **kw: (hooks.append(kw), register(**kw))\n"
        "import data_builders.execution.python.worker\n"
        f"print(sorted(m for m in {names!r} if m in sys.modules), len(hooks))\n"
    )
    out = subprocess.run(
        [sys.executable, "-s", "-c", probe],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    modules, hooks = out.rsplit(" ", 1)
    return [*eval(modules), f"{hooks.strip()} at-fork hooks"]  # noqa: S307 - our own output


def test_the_worker_imports_neither_the_data_model_nor_threads() -> None:
    assert _worker_modules("dataclasses", "inspect", "threading", "shutil", "subprocess") == [
        "0 at-fork hooks"
    ]


def test_random_is_seeded_per_program_so_draws_repeat(executor: Executor) -> None:
    source = "import random\ndef draw():\n    return [random.random() for _ in range(3)]\n"
    program = Program(source, [CallTest([]), CallTest([])], entry_point="draw")
    first, second = executor.run(program), executor.run(program)
    draws = [o.output for o in first.outcomes]
    assert draws == [o.output for o in second.outcomes]
    assert draws[0] != draws[1]  # one stream per program, not one seed per test
    assert len(set(draws[0])) == 3
