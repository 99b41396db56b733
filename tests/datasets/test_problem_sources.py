"""Every problem source has one ``load_problems(source=None, language=None)``; the build's
loader dispatches by dataset name."""

from __future__ import annotations

import inspect
import json

import pytest

from data_builders.dataset.pipeline import load_problems, problem_source
from data_builders.errors import UserError
from data_builders.problems import apps, humaneval, humaneval_x, mbpp, multipl_e

SOURCES = (humaneval, mbpp, apps, humaneval_x, multipl_e)


@pytest.mark.parametrize("module", SOURCES, ids=lambda m: m.__name__.rsplit(".", 1)[-1])
def test_each_source_has_one_loader_of_one_shape(module) -> None:
    params = inspect.signature(module.load_problems).parameters
    assert list(params) == ["source", "language"]
    assert all(p.default is None for p in params.values())


def test_build_dispatches_by_dataset_name() -> None:
    assert problem_source("humaneval") is humaneval
    assert problem_source("mbpp") is mbpp
    assert problem_source("apps") is apps
    assert problem_source("humaneval-x") is humaneval_x
    with pytest.raises(UserError, match="unknown dataset"):
        problem_source("nope")


def test_python_sources_refuse_a_language() -> None:
    with pytest.raises(UserError, match="Python only"):
        humaneval.load_problems(None, "cpp")


def test_humaneval_x_loader_keeps_one_language_in_task_order(tmp_path) -> None:
    def record(task_id: str) -> dict:
        return {
            "task_id": task_id,
            "prompt": "int f(){\n",
            "canonical_solution": "return 1;}\n",
            "test": "x",
        }

    path = tmp_path / "x.jsonl"
    rows = [record("CPP/10"), record("CPP/2"), record("Rust/0")]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    got = load_problems("humaneval-x", str(path), "cpp")
    assert [p.task_id for p in got] == ["CPP/2", "CPP/10"]
    with pytest.raises(UserError, match="no Java task"):
        humaneval_x.load_problems(path, "java")
    # no language: every task of the file, in file order (label's samples name theirs)
    assert [p.task_id for p in humaneval_x.load_problems(path)] == ["CPP/10", "CPP/2", "Rust/0"]
    with pytest.raises(UserError, match="need a language"):
        humaneval_x.load_problems(None)  # the hub has one config per language


def test_each_label_source_gives_problems_programs_and_references() -> None:
    """``label``'s one path asks every problem source the same things."""
    for module in (humaneval, humaneval_x, multipl_e):
        for name in ("problems_for", "program_language", "make_program", "reference_program"):
            assert callable(getattr(module, name)), (module.__name__, name)
    with pytest.raises(UserError, match="--problems-file"):
        multipl_e.problems_for({"x"})  # no file, no language
