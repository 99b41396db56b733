"""Choosing the executor (configs/build/executor.yaml, ``--executor``): settings and the
one-line errors, none of which needs Ray."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from data_builders.__main__ import main
from data_builders.errors import UserError
from data_builders.execution.backend import ExecutorSettings, load_settings


def test_the_repo_config_is_the_local_default() -> None:
    assert load_settings() == ExecutorSettings()
    assert load_settings(executor="ray", ray_address=None).executor == "ray"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("executor: spark\n", "choose one of local, ray"),
        ("ray_chunk_size: 0\n", "ray_chunk_size must be a whole number >= 1"),
        ("ray_cpus: 4\n", "unknown key(s) ['ray_cpus']"),
        ("[1, 2]\n", "expected a mapping"),
    ],
)
def test_bad_settings_name_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "executor.yaml"
    path.write_text(text)
    with pytest.raises(UserError, match=re.escape(message)):
        load_settings(path)


def _samples(tmp_path: Path) -> Path:
    path = tmp_path / "samples.jsonl"
    path.write_text(json.dumps({"task_id": "HumanEval/0", "completion": "    return 0\n"}) + "\n")
    return path


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--executor", "ray", "--workers", "2"], "--workers sets the local executor's workers"),
        (["--ray-address", "auto"], "--ray-address needs --executor ray"),
    ],
)
def test_flag_mixups_are_one_line_errors(tmp_path: Path, capsys, flags, message) -> None:
    argv = ["label", "--problems", "humaneval", "--samples", str(_samples(tmp_path))]
    assert main([*argv, "--out", str(tmp_path / "o.jsonl"), *flags]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and message in err[-1]


def test_without_ray_installed_the_error_says_how_to_install_it(
    tmp_path: Path, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    argv = ["label", "--problems", "humaneval", "--samples", str(_samples(tmp_path))]
    assert main([*argv, "--out", str(tmp_path / "o.jsonl"), "--executor", "ray"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: --executor ray needs Ray") and "pip install" in err[-1]
    assert not (tmp_path / "o.jsonl").exists()


class _FakeRay:
    """Just the calls ``connect`` and the session make, counted."""

    def __init__(self) -> None:
        self.running = False
        self.inits = 0
        self.shutdowns = 0

    def is_initialized(self) -> bool:
        return self.running

    def init(self, **_: object) -> None:
        self.running, self.inits = True, self.inits + 1

    def shutdown(self) -> None:
        self.running, self.shutdowns = False, self.shutdowns + 1


def test_a_build_s_executors_share_one_ray_session(monkeypatch: pytest.MonkeyPatch) -> None:
    from data_builders.execution.backend import executor_session
    from data_builders.execution.ray import backend as ray_backend

    fake = _FakeRay()
    monkeypatch.setattr(ray_backend, "import_ray", lambda: fake)
    with executor_session(ExecutorSettings(executor="ray")):
        assert fake.inits == 1
        # what each Ray executor does when it opens: joins, and so will not shut it down
        assert ray_backend.connect(None, None) is False
        assert ray_backend.connect(None, None) is False
    assert (fake.inits, fake.shutdowns, fake.running) == (1, 1, False)
    fake.running = True  # a caller's own session (tests share one) is left running
    with executor_session(ExecutorSettings(executor="ray")):
        pass
    assert (fake.inits, fake.shutdowns, fake.running) == (1, 1, True)
    with executor_session(ExecutorSettings()):  # the local pool: no Ray at all
        pass
    assert fake.inits == 1


def test_open_executor_gives_one_executor_type_for_every_language() -> None:
    """``open_executor(language, limits, backend)`` returns an :class:`Executor` for Python
    and for C++ alike (issue 28); the language only picks the pool behind it."""
    from data_builders.execution.backend import open_executor
    from data_builders.execution.compiled.pool import ForeignPool
    from data_builders.execution.executor import Executor
    from data_builders.execution.limits import ForeignLimits
    from data_builders.execution.python.pool import PythonPool
    from data_builders.execution.types import ExecutionLimits

    with open_executor("cpp", ForeignLimits(), "local") as cpp:
        assert type(cpp) is Executor and cpp.language == "cpp" and cpp.backend == "local"
        assert isinstance(cpp.pool, ForeignPool)
    with open_executor("C++", ForeignLimits(), settings=ExecutorSettings(), workers=1) as cpp:
        assert type(cpp) is Executor and cpp.language == "cpp" and cpp.n_workers == 1
    limits = ExecutionLimits(timeout=1.0)
    with open_executor("python", limits, "local", workers=1) as python:
        assert type(python) is Executor and python.language == "python"
        assert isinstance(python.pool, PythonPool) and python.limits is limits
    with pytest.raises(ValueError, match="no executor for language 'cobol'"):
        Executor("cobol")
    with pytest.raises(ValueError, match="workers is the local backend's"):
        Executor("cpp", workers=2, backend="ray")
    with pytest.raises(UserError, match="executor 'slurm': choose one of local, ray"):
        open_executor("cpp", None, "slurm")
    with pytest.raises(
        UserError, match="no executor for language 'cobol' \\(supported: python, cpp"
    ):
        open_executor("cobol")
