"""APPS labelling cost with and without ``timeouts.rest_chunk``, on the same programs and suites.

    python benchmarks/apps_label_parts.py --source ../shared/data/apps_subset/problems.jsonl \
        --samples ../shared/data/apps_subset/samples.jsonl --tasks 1663,1648,3856

Builds the problems' references and extended suites as ``build apps`` does (from the
extension cache when warm), then labels the chosen tasks' samples twice: with one remaining
part (``rest_chunk: 0``, the earlier policy) and with ``--rest-chunk K`` (default:
configs/build/apps.yaml's ``rest_chunk``, or 10 while that is off), alternating so machine
load hits both alike. Prints wall seconds, the summed
``exec_seconds`` (CPU the sandbox measured on the tests, timeouts included) and how many
rows' labels differ, field by field.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", required=True)
    parser.add_argument("--samples", required=True, type=Path)
    parser.add_argument("--tasks", required=True, help="comma-separated problem numbers")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--cache-dir", type=Path)
    parser.add_argument("--runs", type=int, default=1, help="runs of each policy, alternating")
    parser.add_argument(
        "--rest-chunk", type=int, help="the policy to compare with rest_chunk 0 (must be > 0)"
    )
    args = parser.parse_args()

    from data_builders.cache import cache_dir
    from data_builders.candidates.samples import read_samples
    from data_builders.dataset.config import load_config
    from data_builders.dataset.labels import label
    from data_builders.dataset.pipeline import _extension_task, load_problems
    from data_builders.dataset.tasks import check_references, make_spec
    from data_builders.execution import ExecutionLimits, Executor
    from data_builders.extension.extend import extend_tasks
    from data_builders.extension.suite import SuiteCache

    config = load_config("apps")
    problems = load_problems("apps", args.source)
    wanted = {f"{int(t):04d}" for t in args.tasks.split(",")}
    chosen = [p for p in problems if p.task_id.rsplit("/", 1)[-1] in wanted]
    specs = [make_spec(i, p, config.extension.max_references) for i, p in enumerate(chosen)]
    by_id = {p.task_id: p for p in problems}
    samples = read_samples(args.samples, by_id, {s.task_id for s in specs})
    candidates = [c for spec in specs for c in samples.get(spec.task_id, [])]
    chunk = args.rest_chunk or config.timeouts.rest_chunk or 10
    if chunk <= 0:
        parser.error("--rest-chunk must be > 0: it is compared with rest_chunk 0")
    policies = {
        "rest_chunk 0": dataclasses.replace(config.timeouts, rest_chunk=0),
        f"rest_chunk {chunk}": dataclasses.replace(config.timeouts, rest_chunk=chunk),
    }
    limits = ExecutionLimits(timeout=config.timeouts.max)
    with Executor(workers=args.workers, limits=limits) as executor:
        check = max(config.timeouts.max, config.extension.reference_timeout)
        check_references(specs, executor, check)
        cache = SuiteCache(args.cache_dir or cache_dir("extension"))
        tasks = [_extension_task(spec) for spec in specs]
        suites = extend_tasks(tasks, executor, config.extension, config.seed, cache)
        spec_by_id = {spec.task_id: spec for spec in specs}
        rows: dict[str, list[dict]] = {}
        cost = {name: [0.0, 0.0] for name in policies}
        for _ in range(args.runs):  # alternate: A B A B ...
            for name, timeouts in policies.items():
                wall = time.perf_counter()
                rows[name] = list(label(candidates, spec_by_id, suites, executor, timeouts))
                cost[name][0] += time.perf_counter() - wall
                cost[name][1] += sum(row["exec_seconds"] for row in rows[name])
    runs = args.runs
    print(
        f"{len(candidates)} programs of {len(specs)} tasks, {args.workers} workers, {runs} run(s)"
    )
    for name, (wall, cpu) in cost.items():
        print(f"  {name:>14}: {wall / runs:7.1f} s wall, {cpu / runs:7.1f} s exec_seconds per run")
    old, new = rows.values()
    for field in ("passed", "base_passed", "executable", "pass_ratio"):
        changed = [a["id"] for a, b in zip(old, new, strict=True) if a[field] != b[field]]
        print(f"  {field:>12} differs on {len(changed)} rows {changed[:4]}")


if __name__ == "__main__":
    main()
