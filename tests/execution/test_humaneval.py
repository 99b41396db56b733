"""HumanEval through the executor: canonical solutions, blanks, wrong and partial answers."""

from __future__ import annotations

import pytest

from data_builders.execution import Executor
from data_builders.problems.humaneval import load_humaneval, make_program


@pytest.fixture(scope="module")
def problems() -> dict:
    return load_humaneval()


def test_all_164_canonical_solutions_pass_every_test(executor: Executor, problems: dict) -> None:
    programs = [make_program(p, p.reference[len(p.prompt) :]) for p in problems.values()]
    results = list(executor.map(programs))
    assert len(results) == 164
    failing = {
        task: r.status_counts
        for task, r in zip(problems, results, strict=True)
        if r.pass_ratio != 1.0
    }
    assert failing == {}
    assert all(r.passed and r.executable and r.n_tests > 0 for r in results)
    assert {r.isolation for r in results} == {executor.isolation}


def test_blank_completion_is_not_executable(executor: Executor, problems: dict) -> None:
    result = executor.run(make_program(problems["HumanEval/0"], ""))
    assert not result.executable
    assert result.pass_ratio == 0.0
    assert result.status_counts["runtime_error"] == result.n_tests
    assert "blank completion" in result.outcomes[0].detail


def test_wrong_answer_is_executable_with_ratio_below_one(
    executor: Executor, problems: dict
) -> None:
    result = executor.run(make_program(problems["HumanEval/0"], "    return False\n"))
    assert result.executable
    assert 0.0 < result.pass_ratio < 1.0
    assert result.status_counts["wrong_answer"] > 0


def test_partial_pass_gets_the_exact_fraction(executor: Executor, problems: dict) -> None:
    # HumanEval/2 truncate_number: 3 asserts; returning 0.5 passes exactly the one with x=3.5
    problem = problems["HumanEval/2"]
    program = make_program(problem, "    return 0.5\n")
    assert len(program.tests) == 3
    result = executor.run(program)
    assert result.pass_ratio == pytest.approx(1 / 3)
    assert [o.status for o in result.outcomes] == ["pass", "wrong_answer", "wrong_answer"]


def test_crash_on_one_test_resumes_the_others(executor: Executor, problems: dict) -> None:
    # HumanEval/13 greatest_common_divisor(a, b): crash (segfault) only when a == 3
    completion = (
        "    import ctypes\n"
        "    if a == 3:\n"
        "        ctypes.string_at(0)\n"
        "    while b:\n"
        "        a, b = b, a % b\n"
        "    return a\n"
    )
    result = executor.run(make_program(problems["HumanEval/13"], completion))
    statuses = [o.status for o in result.outcomes]
    assert statuses[0] == "signal" and statuses[1:] == ["pass"] * (len(statuses) - 1)
    assert not result.executable
