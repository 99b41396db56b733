"""C++ and JavaScript on Ray (``open_executor(language, limits, "ray")``): the
same results as the local foreign executor, program for program.

One local Ray (2 CPUs) serves the module; actors of one CPU each hold a local Executor of
one worker. Skips where Ray, g++ or node is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[cluster]')")

from data_builders.execution.backend import ExecutorSettings, open_executor  # noqa: E402
from data_builders.execution.executor import Executor  # noqa: E402
from data_builders.execution.types import Program, ProgramResult, TestCode  # noqa: E402
from tests.conftest import label_locally_and_on_ray  # noqa: E402
from tests.languages.conftest import LIMITS, need  # noqa: E402
from tests.languages.test_programs import CPP, CPP_TEST, JS, JS_TEST  # noqa: E402


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    need("cpp")
    need("js")
    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    if started:
        ray.shutdown()


def _programs() -> list[Program]:
    """Both languages mixed in one list, every kind of outcome; loops under 0.3 s."""
    kinds = ("correct", "wrong", "broken", "crash", "loop")
    programs = [
        Program(
            table[kind], TestCode(test), timeout=0.3 if kind == "loop" else None, language=language
        )
        for kind in kinds
        for language, table, test in (("cpp", CPP, CPP_TEST), ("js", JS, JS_TEST))
    ]
    return [*programs, *programs[::-1]]


def _comparable(result: ProgramResult) -> tuple:
    """A result without measured times and details (they name each executor's build folder)."""
    return result.to_dict(), [o.status for o in result.outcomes]


def test_ray_results_equal_the_local_foreign_executor(cluster: None, tmp_path: Path) -> None:
    programs = _programs()
    with Executor("cpp", workers=2, limits=LIMITS, cache_dir=tmp_path / "local") as local:
        expected = [_comparable(r) for r in local.map(programs)]
    settings = ExecutorSettings(executor="ray", ray_cpus_per_actor=1, ray_chunk_size=2)
    with open_executor("cpp", LIMITS, settings=settings) as remote:
        assert remote.n_workers == 2  # two actors of one worker each
        got = [_comparable(r) for r in remote.map(iter(programs))]  # no len: chunks of 2
        assert _comparable(remote.run(programs[0])) == expected[0]
    statuses = {status for _, outcome in expected for status in outcome}
    assert {"pass", "wrong_answer", "compile_error", "timeout"} <= statuses
    assert statuses & {"signal", "runtime_error"}
    assert got == expected


def test_build_humaneval_x_on_ray_writes_the_local_rows(
    cluster: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``build humaneval-x --executor ray``: canonical runs and labels on actors, the rows
    equal a local build's (HE-Eval's extended suites stubbed as in test_build_humaneval_x)."""
    from data_builders.__main__ import main
    from data_builders.dataset import humaneval_x
    from tests.languages.test_build_humaneval_x import _fake_suites, _inputs, _rows

    monkeypatch.setattr(humaneval_x, "python_suites", _fake_suites)
    problems, samples = _inputs(tmp_path, "cpp")
    argv = ["build", "humaneval-x", "--language", "cpp", "--problems-file", str(problems),
            "--samples", str(samples), "--split-ratios", "0,0,1"]  # fmt: skip
    local, remote = tmp_path / "local", tmp_path / "ray"
    config = tmp_path / "executor.yaml"
    config.write_text("executor: ray\nray_cpus_per_actor: 1\nray_chunk_size: 2\n")
    assert main([*argv, "--out", str(local), "--workers", "2"]) == 0
    assert main([*argv, "--out", str(remote), "--executor-config", str(config)]) == 0
    expected, got = _rows(local), _rows(remote)
    for row in (*expected.values(), *got.values()):
        del row["exec_seconds"]
    assert got == expected and len(got) == 4


def test_label_humaneval_x_on_ray_writes_the_local_file(cluster: None, tmp_path: Path) -> None:
    """``label --problems humaneval-x --executor ray`` on a file mixing C++ and JavaScript:
    limits calibrated from the canonical solutions (timed once, cached), rows byte for byte."""
    import json

    from tests.languages.test_build_humaneval_x import COMPLETIONS, TASKS

    problems = tmp_path / "problems.jsonl"
    problems.write_text("".join(json.dumps(t) + "\n" for t in [*TASKS["cpp"], *TASKS["js"]]))
    more = {  # wrong on the task's own tests; looping on one of them
        "cpp": ["    return x-y;\n}\n", "    while (x == 0) {}\n    return x+y;\n}\n"],
        "js": ["  return x - y;\n}\n", "  while (x === 0) {}\n  return x + y;\n}\n"],
    }
    rows = [
        {"task_id": TASKS[language][0]["task_id"], "completion": completion, "k": k}
        for language in ("cpp", "js")
        for k, completion in enumerate([*COMPLETIONS[language], *more[language]])
    ]
    samples = tmp_path / "samples.jsonl"
    samples.write_text("".join(json.dumps(row) + "\n" for row in rows))
    argv = ["label", "--problems", "humaneval-x", "--problems-file", str(problems),
            "--samples", str(samples), "--reference-cache", str(tmp_path / "times.json")]  # fmt: skip
    statuses = label_locally_and_on_ray(argv, tmp_path, chunk_size=2)
    assert {"pass", "wrong_answer", "compile_error", "timeout"} <= statuses
