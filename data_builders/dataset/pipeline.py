"""The build, end to end, for every dataset: problems -> each task's tests and limits (the
dataset's own step: :mod:`~data_builders.dataset.python_build` checks references and extends
tests, :mod:`~data_builders.dataset.humaneval_x` translates them) -> candidates -> labels
(appended as they come) -> splits, statistics and card.

Everything that decides a row is a pure function of (problem, seed, settings): mutants and
generations are seeded per task, suites are cached by content hash, and row ids are
``<task_id>::<kind>::<index>``. That is what makes a killed build resumable, a shard
mergeable, and a rebuild reuse its extended tests.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data_builders.candidates.base import Candidate
from data_builders.candidates.generate import SamplingSettings
from data_builders.candidates.mutants import make_mutants, make_sample_mutants, make_text_mutants
from data_builders.candidates.samples import mark_reference_copies, read_samples
from data_builders.dataset.config import BuildConfig
from data_builders.dataset.convention import INPUT_CONVENTION
from data_builders.dataset.datasets import card_extras, dataset_named, load_problems
from data_builders.dataset.datasets import problem_source as problem_source  # re-exported
from data_builders.dataset.finalize import finalize
from data_builders.dataset.label_only import refuse_label_only
from data_builders.dataset.splits import assign_splits
from data_builders.dataset.store import ProgressStore
from data_builders.dataset.tasks import TaskSpec
from data_builders.errors import UserError
from data_builders.execution import ExecutorSettings, executor_session, open_executor
from data_builders.jsonl import atomic_writer
from data_builders.problems.base import Problem


@dataclass
class BuildRequest:
    """The ``build`` command's options (see ``python -m data_builders build --help``)."""

    dataset: str
    out: Path
    config: BuildConfig
    source: str | None = None
    samples: Path | None = None
    mutants: int = 0
    # --mutants-of: mutate the task's reference (the default) or each of its samples
    mutants_of: str = "reference"
    # --mutant-splits: the splits whose tasks get mutants (None: every split)
    mutant_splits: tuple[str, ...] | None = None
    generate: str | None = None
    n: int | None = None  # None: the config's generation.n (likewise temperature, top_p)
    temperature: float | None = None
    top_p: float | None = None
    concurrency: int | None = None  # served: requests in flight (not in the manifest)
    reference_samples: str = "keep"  # keep | flag | exclude samples that copy a reference
    workers: int | None = None
    max_problems: int | None = None
    num_shards: int = 1
    shard_index: int = 0
    cache_dir: Path | None = None
    chunk_size: int = 256  # candidates labelled per batch (rows reach disk after each)
    samples_per_task: int | None = None  # keep the first N samples of each task
    # where programs run (local pool or Ray); not in the manifest: a build resumes on either
    executor: ExecutorSettings | None = None
    language: str | None = None  # humaneval-x: cpp, java, js, go or rust
    # --limits: the limits file (None: configs/build/limits.yaml); its python section is
    # config.limits, its other sections are the compiled languages' (in their manifests)
    limits_file: Path | None = None

    def manifest(self) -> dict[str, Any]:
        """What a resumed build must share with the interrupted one."""
        own = dataset_named(self.dataset).manifest(self)  # Python builds: no such keys
        # recorded only when set, so builds made before these options keep their manifests
        mutant_options = {}
        if self.mutants_of != "reference":
            mutant_options["mutants_of"] = self.mutants_of
        if self.mutant_splits is not None:
            mutant_options["mutant_splits"] = list(self.mutant_splits)
        return {
            **own,
            **mutant_options,
            "dataset": self.dataset,
            "source": self.source,
            "samples": _file_digest(self.samples) if self.samples else None,
            "mutants": self.mutants,
            "generate": [_identity(self.generate), *self._sampling_summary()]
            if self.generate
            else None,
            "reference_samples": self.reference_samples,
            "max_problems": self.max_problems,
            "num_shards": self.num_shards,
            "shard_index": self.shard_index,
            "config_fingerprint": self.config.fingerprint(),
            "input_convention": INPUT_CONVENTION,
            "samples_per_task": self.samples_per_task,
        }

    def sampling(self) -> SamplingSettings:
        """The ``--generate`` settings: configs/build ``generation`` plus the flags; HE-Eval-X
        continues each prompt and stops at the language's stop tokens."""
        settings = SamplingSettings.from_config(
            self.config.generation,
            self.config.seed,
            whole_program=dataset_named(self.dataset).whole_program(),
            n=self.n,
            temperature=self.temperature,
            top_p=self.top_p,
            concurrency=self.concurrency,
        )
        if self.language:
            from data_builders.languages import language_info

            stops = language_info(self.language).stop_tokens
            settings = dataclasses.replace(
                settings, prompt="complete", stop=stops, chat_stop=(), language=self.language
            )
        return settings

    def _sampling_summary(self) -> list[Any]:
        s = self.sampling()
        return [s.n, s.temperature, s.top_p, s.max_new_tokens, s.seed, s.prompt]

    def candidate_sources(self) -> list[str]:
        sources = []
        if self.samples:
            note = {
                "flag": " (reference copies flagged)",
                "exclude": " (reference copies excluded)",
            }.get(self.reference_samples, "")
            if self.samples_per_task:
                note += f" (first {self.samples_per_task} per task)"
            sources.append(f"samples:{self.samples.name}{note}")
        if self.mutants:
            of = "reference" if self.mutants_of == "reference" else "sample"
            where = f" (splits {', '.join(self.mutant_splits)})" if self.mutant_splits else ""
            sources.append(f"mutants: {self.mutants} per {of}{where}")
        if self.generate:
            s = self.sampling()
            sources.append(
                f"generate:{_identity(self.generate)} n={s.n} temperature={s.temperature} "
                f"top_p={s.top_p} "
                f"max_new_tokens={s.max_new_tokens} prompt={s.prompt} seed={s.seed}"
            )
        return sources


def _identity(generate: str) -> str:
    """``--generate`` as recorded in the manifest and provenance (served: without its URLs)."""
    from data_builders.candidates.served import data_identity

    return data_identity(generate)


def _file_digest(path: Path) -> str:
    if not path.is_file():
        raise UserError(f"--samples {path}: no such file")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    return f"{path.name}:{digest}"


def _candidates(
    request: BuildRequest,
    specs: Sequence[TaskSpec],
    problems: dict[str, Problem],
    done: set[str],
    split_of: dict[str, str] | None = None,
) -> Iterator[Candidate]:
    """Every candidate of this shard, in dataset order, skipping ids already labelled.

    ``split_of`` (task -> split) is needed only when ``request.mutant_splits`` limits which
    tasks get mutants."""
    selected = {spec.task_id for spec in specs}
    from_samples = (
        read_samples(request.samples, problems, selected, request.samples_per_task)
        if request.samples
        else {}
    )
    if from_samples and request.reference_samples != "keep":
        from_samples = mark_reference_copies(
            from_samples, problems, exclude=request.reference_samples == "exclude"
        )
    seed, max_edits = request.config.seed, request.config.mutants.max_edits
    for spec in specs:
        samples = from_samples.get(spec.task_id, [])
        yield from samples
        if not request.mutants or not _gets_mutants(request, spec.task_id, split_of):
            continue
        if request.mutants_of == "reference" and request.language:
            yield from make_text_mutants(
                spec.task_id, spec.problem.prompt, spec.references[0], request.mutants, seed
            )
        elif request.mutants_of == "reference":
            yield from make_mutants(
                spec.task_id, spec.references[0], request.mutants, seed, max_edits
            )
        else:
            for sample in samples:
                yield from make_sample_mutants(
                    sample, spec.problem.prompt, request.mutants, seed, max_edits
                )
    if request.generate:
        yield from _generated(request, specs, done)


def _gets_mutants(request: BuildRequest, task_id: str, split_of: dict[str, str] | None) -> bool:
    """Whether ``task_id``'s split is one of ``request.mutant_splits`` (all when unset)."""
    if request.mutant_splits is None:
        return True
    if split_of is None:
        raise ValueError("mutant_splits needs the task -> split map")
    return split_of[task_id] in request.mutant_splits


def _generated(
    request: BuildRequest, specs: Sequence[TaskSpec], done: set[str]
) -> Iterator[Candidate]:
    """LM candidates for the tasks that still lack some: served (``openai:URL:MODEL``) or a
    local model (a folder, ``smollm2``, or a hub name when online)."""
    settings = request.sampling()
    todo = [
        spec.problem
        for spec in specs
        if any(f"{spec.task_id}::generate::{i}" not in done for i in range(settings.n))
    ]
    if not todo or not request.generate:
        return
    from data_builders.candidates.local import is_local, local_candidates
    from data_builders.candidates.served import is_served, served_candidates

    if is_served(request.generate):
        yield from served_candidates(todo, request.generate, settings)
    elif is_local(request.generate):
        yield from local_candidates(todo, request.generate, settings)
    else:
        from data_builders.candidates.generate import generate_candidates

        yield from generate_candidates(todo, request.generate, settings)


def build_state(request: BuildRequest) -> tuple[str, str]:
    """Whether ``request.out`` holds this build: ``complete``, ``resumable`` (unfinished, same
    settings), ``absent`` or ``differs`` (built with other settings; names what differs)."""
    from data_builders.dataset.store import PROGRESS_DIR

    out, wanted = Path(request.out), request.manifest()
    found = None
    for path, key in (
        (out / "build_info.json", "manifest"),
        (out / PROGRESS_DIR / "manifest.json", None),
    ):
        if path.is_file():
            try:
                record = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                return "differs", f"unreadable {path.name}"
            found = (
                record.get(key)
                if key
                else {k: v for k, v in record.items() if k != "store_version"}
            )
            complete = bool(key) and record.get("complete") is True
            break
    else:
        return "absent", "no build"
    if found != wanted:
        changed = sorted(
            k for k in set(wanted) | set(found or {}) if (found or {}).get(k) != wanted.get(k)
        )
        return "differs", f"built with other settings (differs in: {', '.join(changed)})"
    return ("complete", "built with these settings") if complete else ("resumable", "unfinished")


def build_meta(request: BuildRequest) -> dict[str, Any]:
    """Provenance for stats.json (nothing machine- or time-dependent: merge must match)."""
    language = {"language": request.language} if request.language else {}
    held_out = request.config.held_out_from
    return {
        "dataset": request.dataset,
        **language,
        "seed": request.config.seed,
        "split_ratios": list(request.config.split_ratios),
        **({"held_out_from": held_out} if held_out is not None else {}),
        "config_fingerprint": request.config.fingerprint(),
        "config": request.config.to_dict(),
        "candidate_sources": request.candidate_sources(),
        "max_problems": request.max_problems,
        "samples_per_task": request.samples_per_task,
        "input_convention": INPUT_CONVENTION,
    }


def run_build(request: BuildRequest) -> dict[str, Any]:
    """Build (or resume) the dataset or shard described by ``request``; returns a summary.

    The one build path of every dataset: what differs by dataset (its tasks' tests and
    limits, how a candidate is labelled, extra provenance) comes from its
    :class:`~data_builders.dataset.hooks.Dataset` (:func:`dataset_named`)."""
    started = time.monotonic()
    dataset = dataset_named(request.dataset)
    dataset.check_request(request)
    problems = load_problems(request.dataset, request.source, request.language)
    refuse_label_only(problems, request.config.split_ratios)  # e.g. MultiPL-E: never trained on
    by_id = {p.task_id: p for p in problems}  # all tasks: the known sample ids
    if request.max_problems is not None:
        problems = problems[: request.max_problems]
    if request.samples and not request.samples.is_file():
        raise UserError(f"--samples {request.samples}: no such file")
    cfg = request.config
    mine = [(i, p) for i, p in enumerate(problems) if i % request.num_shards == request.shard_index]
    split_of = assign_splits(
        [p.task_id for p in problems], cfg.split_ratios, cfg.seed, cfg.held_out_from
    )
    backend = request.executor or ExecutorSettings()
    # one Ray session (with --executor ray) for every executor of the build
    with ProgressStore(request.out, request.manifest()) as store, executor_session(backend):
        labelling = dataset.prepare(request, mine, split_of, store, backend)
        with open_executor(
            labelling.language, labelling.limits, settings=backend, workers=request.workers
        ) as executor:

            def label_chunk(pending: list[Candidate]) -> Iterable[dict[str, Any]]:
                return labelling.label(pending, executor)

            label_candidates(request, labelling.specs, by_id, store, label_chunk, split_of)
        rows, tasks = list(store.rows.values()), list(store.tasks.values())
    return finish(request, rows, tasks, started, dataset.meta(request))


def finish(
    request: BuildRequest,
    rows: list[dict[str, Any]],
    tasks: list[dict[str, Any]],
    started: float,
    meta: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The end of every build: the published files (whole builds; shards wait for ``merge``)
    and ``build_info.json``, which marks the folder complete for ``--check``. ``meta``: extra
    provenance for stats.json (the dataset's :meth:`~data_builders.dataset.hooks.Dataset.meta`)."""
    summary: dict[str, Any] = {"rows": len(rows), "tasks": len(tasks)}
    full_meta = {**build_meta(request), **(meta or {})}
    if request.num_shards == 1:
        stats = finalize(request.out, rows, tasks, full_meta, card_extras(full_meta))
        summary["splits"] = {k: v["samples"] for k, v in stats["splits"].items()}
        summary["mean_tests"] = stats["extension"]["mean_tests"]
    summary["seconds"] = round(time.monotonic() - started, 1)
    with atomic_writer(Path(request.out) / "build_info.json") as handle:
        info = {
            **summary,
            "complete": True,
            "manifest": request.manifest(),
            "meta": full_meta,
        }
        json.dump(info, handle, indent=2)
    return summary


def label_candidates(
    request: BuildRequest,
    specs: Sequence[TaskSpec],
    problems: dict[str, Problem],
    store: ProgressStore,
    label_chunk: Callable[[list[Candidate]], Iterable[dict[str, Any]]],
    split_of: dict[str, str] | None = None,
) -> None:
    """Label every candidate not yet in the store, ``request.chunk_size`` at a time (rows of
    a chunk from ``label_chunk``: the dataset's :class:`~data_builders.dataset.hooks.Labelling`);
    each chunk's rows are appended and fsynced before the next chunk starts."""
    done = set(store.rows)
    pending: list[Candidate] = []

    def flush() -> None:
        for row in label_chunk(pending):
            store.add_row(row)
        store.sync()
        pending.clear()

    for candidate in _candidates(request, specs, problems, done, split_of):
        if candidate.id not in done:
            pending.append(candidate)
        if len(pending) >= request.chunk_size:
            flush()
    if pending:
        flush()
