"""Test extension on real HumanEval problems through the sandboxed executor."""

from __future__ import annotations

from pathlib import Path

import pytest

from data_builders.candidates.base import Candidate
from data_builders.dataset.config import ExtensionConfig
from data_builders.dataset.labels import candidate_program
from data_builders.dataset.tasks import check_references, make_spec
from data_builders.execution.calibrate import LimitPolicy
from data_builders.extension.extend import ExtensionTask, extend_tasks
from data_builders.extension.suite import SuiteCache

TASKS = ["HumanEval/0", "HumanEval/2", "HumanEval/12", "HumanEval/38", "HumanEval/53"]
CONFIG = ExtensionConfig(target_tests=80, overgenerate=1.6, rounds=2, reference_timeout=0.05)


def _specs(problems: dict, executor) -> list:
    specs = [make_spec(i, problems[t], 1) for i, t in enumerate(TASKS)]
    check_references(specs, executor, 3.0)
    return specs


def _tasks(specs: list) -> list[ExtensionTask]:
    return [
        ExtensionTask(
            s.task_id,
            s.kind,
            s.references,
            s.problem.entry_point,
            s.seeds,
            len(s.original_tests),
            s.setup,
        )
        for s in specs
    ]


class _NoExecutor:
    def map(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("a cached suite must not run anything")


@pytest.fixture(scope="module")
def extended(humaneval_problems: dict, executor, tmp_path_factory: pytest.TempPathFactory):
    specs = _specs(humaneval_problems, executor)
    cache_dir = tmp_path_factory.mktemp("cache")
    suites = extend_tasks(_tasks(specs), executor, CONFIG, 11, SuiteCache(cache_dir))
    return specs, suites, cache_dir


def test_counts_reach_the_target(extended) -> None:
    specs, suites, _ = extended
    for spec in specs:
        suite = suites[spec.task_id]
        assert spec.reference_passes
        assert suite.n_original == len(spec.original_tests) > 0
        assert suite.n_tests == CONFIG.target_tests, spec.task_id  # originals always kept
        assert suite.n_generated >= len(suite.cases)


def test_reference_passes_every_extended_test(extended, executor) -> None:
    specs, suites, _ = extended
    programs = []
    for spec in specs:
        reference = Candidate(spec.task_id, spec.references[0], "reference", "reference", 0)
        suite = suites[spec.task_id]
        assert len(suite.reference_times) == len(suite.cases)
        programs.append(candidate_program(reference, spec, suite, LimitPolicy()))
    for spec, result in zip(specs, executor.map(programs), strict=True):
        assert result.passed, (spec.task_id, result.status_counts)


def test_extension_is_deterministic_and_cached(
    extended, humaneval_problems, executor, tmp_path: Path
) -> None:
    specs, suites, cache_dir = extended
    fresh = extend_tasks(_tasks(specs), executor, CONFIG, 11, SuiteCache(tmp_path))
    assert {k: v.cases for k, v in fresh.items()} == {k: v.cases for k, v in suites.items()}
    cached = extend_tasks(_tasks(specs), _NoExecutor(), CONFIG, 11, SuiteCache(cache_dir))
    assert {k: v.cases for k, v in cached.items()} == {k: v.cases for k, v in suites.items()}
    other_seed = extend_tasks(_tasks(specs[:1]), executor, CONFIG, 12, SuiteCache(tmp_path))
    assert other_seed[specs[0].task_id].cases != suites[specs[0].task_id].cases
