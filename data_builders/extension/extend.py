"""Extend every problem's tests: generate inputs, run the reference, keep what is reliable.

Pipeline per problem (batched across problems so the executor's workers stay busy):

1. generate ``overgenerate x missing`` new inputs from the original ones (seeded per task);
2. run the reference once on all of them in capture mode; keep error-free, in-time results;
3. repeat 1-2 for up to ``rounds`` rounds while too few survive;
4. run the reference a second time (and a second reference solution, when there is one) on
   the survivors; keep inputs whose outputs are identical in every run;
5. keep the first ``target - original`` of them, in generation order; cache the suite.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from data_builders.execution import CallTest, Executor, Program, StdioTest
from data_builders.extension.cases import is_finite_value
from data_builders.extension.config import ExtensionConfig
from data_builders.extension.inputs import canonical, generate_inputs
from data_builders.extension.stdio_inputs import generate_stdin
from data_builders.extension.suite import ExtendedSuite, SuiteCache, suite_key


@dataclass
class ExtensionTask:
    """What extension needs to know about one problem.

    Attributes:
        task_id: the problem.
        kind: ``"call"`` or ``"stdio"``.
        references: reference programs; the first is *the* reference, a second one (APPS has
            many) must agree on every kept input.
        entry_point: the function called for ``call`` problems (``Solution.method`` allowed).
        seeds: inputs of the original tests: argument tuples (call) or stdin texts (stdio).
        n_original: how many original tests the problem has.
        setup: module-level test code the reference may need.
    """

    task_id: str
    kind: str
    references: list[str]
    entry_point: str | None
    seeds: list[Any]
    n_original: int
    setup: str = ""
    # working state across rounds
    tried: set[str] = field(default_factory=set)
    kept: list[tuple[Any, Any, float]] = field(default_factory=list)
    n_generated: int = 0

    def cache_payload(self, config: ExtensionConfig, seed: int) -> dict[str, Any]:
        return {
            "task_id": self.task_id,
            "kind": self.kind,
            "references": self.references,
            "entry_point": self.entry_point,
            "seeds": [canonical(s) for s in self.seeds],
            "n_original": self.n_original,
            "setup": self.setup,
            "config": config.__dict__,
            "seed": seed,
        }


def _rng(seed: int, task_id: str, round_index: int) -> random.Random:
    digest = hashlib.sha256(f"{seed}:extend:{task_id}:{round_index}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _program(task: ExtensionTask, reference: str, inputs: Sequence[Any], timeout: float) -> Program:
    if task.kind == "stdio":
        tests: list[Any] = [StdioTest(text) for text in inputs]
    else:
        tests = [CallTest(list(args)) for args in inputs]
    return Program(reference, tests, task.entry_point, task.setup, timeout)


def _generate(task: ExtensionTask, count: int, rng: random.Random) -> list[Any]:
    if task.kind == "stdio":
        new = generate_stdin(task.seeds, rng, count, exclude=task.tried)
        task.tried.update(new)
    else:
        parents = task.seeds + [args for args, _, _ in task.kept]
        new = generate_inputs(parents, rng, count, exclude=task.tried)
        task.tried.update(canonical(args) for args in new)
    task.n_generated += len(new)
    return new


def _usable(outcome: Any) -> bool:
    return outcome.status == "pass" and is_finite_value(outcome.output)


def _first_pass(
    tasks: list[ExtensionTask], executor: Executor, config: ExtensionConfig, seed: int
) -> None:
    for round_index in range(config.rounds):
        batch: list[tuple[ExtensionTask, list[Any]]] = []
        for task in tasks:
            missing = config.target_tests - task.n_original - len(task.kept)
            if missing > 0 and (task.seeds or task.kept):
                count = math.ceil(missing * config.overgenerate)
                inputs = _generate(task, count, _rng(seed, task.task_id, round_index))
                if inputs:
                    batch.append((task, inputs))
        if not batch:
            return
        programs = [
            _program(task, task.references[0], inputs, config.reference_timeout)
            for task, inputs in batch
        ]
        label = f"extend: reference run {round_index + 1}"
        for (task, inputs), result in zip(
            batch, executor.map(programs, progress=label), strict=True
        ):
            for value, outcome in zip(inputs, result.outcomes, strict=True):
                if _usable(outcome):
                    task.kept.append((value, outcome.output, outcome.time))


def _confirm(tasks: list[ExtensionTask], executor: Executor, config: ExtensionConfig) -> None:
    """Second run(s): keep only inputs with identical outputs in every run."""
    jobs: list[tuple[ExtensionTask, Program]] = []
    for task in tasks:
        # confirm a few more than needed (some may turn out non-deterministic), not all
        need = max(0, config.target_tests - task.n_original)
        task.kept = task.kept[: math.ceil(need * 1.2) + 5]
        if not task.kept:
            continue
        inputs = [value for value, _, _ in task.kept]
        for reference in [task.references[0], *task.references[1:2]]:
            jobs.append((task, _program(task, reference, inputs, config.reference_timeout)))
    results = executor.map([program for _, program in jobs], progress="extend: confirm runs")
    runs: dict[str, list[Any]] = {}
    for (task, _), result in zip(jobs, results, strict=True):
        runs.setdefault(task.task_id, []).append(result.outcomes)
    for task in tasks:
        confirmed = []
        for i, (value, output, seconds) in enumerate(task.kept):
            again = [outcomes[i] for outcomes in runs.get(task.task_id, [])]
            if again and all(
                _usable(o) and canonical(o.output) == canonical(output) for o in again
            ):
                confirmed.append((value, output, max([seconds, *(o.time for o in again)])))
        task.kept = confirmed


def extend_tasks(
    tasks: Sequence[ExtensionTask],
    executor: Executor,
    config: ExtensionConfig,
    seed: int,
    cache: SuiteCache,
) -> dict[str, ExtendedSuite]:
    """Extended suites for ``tasks``, from the cache where possible.

    Returns:
        task_id -> suite. A task whose inputs could not be read still gets a suite (with no
        new cases), so its original tests are used alone and the statistics show it.
    """
    suites: dict[str, ExtendedSuite] = {}
    todo: list[tuple[ExtensionTask, str]] = []
    for task in tasks:
        key = suite_key(task.cache_payload(config, seed))
        cached = cache.get(key)
        if cached is not None:
            suites[task.task_id] = cached
        else:
            todo.append((task, key))
    work = [task for task, _ in todo]
    if work:
        _first_pass(work, executor, config, seed)
        _confirm(work, executor, config)
    for task, key in todo:
        keep = max(0, config.target_tests - task.n_original)
        kept = task.kept[:keep]
        suite = ExtendedSuite(
            task_id=task.task_id,
            kind=task.kind,
            cases=[(value, output) for value, output, _ in kept],
            n_original=task.n_original,
            reference_time=max((seconds for _, _, seconds in kept), default=0.0),
            n_generated=task.n_generated,
            reference_times=[seconds for _, _, seconds in kept],
        )
        cache.put(key, suite)
        suites[task.task_id] = suite
    return suites
