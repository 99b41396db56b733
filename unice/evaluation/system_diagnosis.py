"""Why a metric orders generators as it does: the system-level diagnosis (issue 43 item 4).

The system-level figure (:mod:`unice.metrics.system_level`) correlates each generator's mean
score with its pass rate. On a set where generators cover different problems (agentic
debuggers write programs only for the problems their seed failed; some runs cover 26 of 164
problems), both sides mix two things: how good the generator's programs are *on the problems
it covered*, and *which* problems it covered. This module separates them for every metric
column of an evaluation:

- per generator: rows, problems, pass rate, the pass rate its problems have over all
  generators (``coverage``: high = it covered easy problems), its pass rate relative to the
  other programs of the same problems (``relative``), each metric's mean, the ranks by pass
  rate and by each metric, and the displacement (metric rank minus pass-rate rank);
- the system-level tau four ways: ``raw`` (the reported figure), ``centred`` (scores and
  labels each centred within their problem: the ordering once coverage is taken out of both
  sides), ``centred_scores`` (scores centred, raw pass rate: the scoring option of
  ``center_groups``), ``common`` (raw, on the problems every generator covers, when there
  are enough); intervals over generators (as report.json) and over problems.

Input: an evaluation folder of ``evaluate.py`` (its ``scores.jsonl`` and ``report.json``'s
config), or a scores file with the split and samples file. ``scripts/system_diagnosis.py`` is
the command line; docs/experiments/system_level.md the findings.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import numpy as np
from scipy import stats

from data_builders.errors import UserError
from data_builders.jsonl import iter_jsonl
from unice.evaluation.data import load_split
from unice.evaluation.errors import EvaluationError
from unice.evaluation.systems import row_generators
from unice.metrics.example_level import group_indices
from unice.metrics.system_level import (
    batch_kendall_pearson,
    center_within,
    problem_bootstrap,
    system_level_correlations,
)

VARIANTS = ("raw", "centred", "centred_scores", "common")
"""The four system-level figures (module docstring says what each is)."""


@dataclass
class SystemRows:
    """The rows of one evaluation, column-wise: what every figure here is computed from.

    Attributes:
        ids, problems, generators: per row.
        passed: shape ``(n,)`` float (1.0 = passes every test).
        columns: metric name -> shape ``(n,)`` scores (``nan`` = not scored).
        source: where each part came from (provenance for the report).
        length_ratio: shape ``(n,)``, the program's characters over its reference's (``nan``
            without a reference): string metrics reward a program as long as the reference,
            so a generator that writes whole modules (imports, docstrings, tests) is marked
            down whatever its pass rate.
    """

    ids: list[str]
    problems: list[str]
    generators: list[str]
    passed: np.ndarray
    columns: dict[str, np.ndarray]
    source: dict[str, Any]
    length_ratio: np.ndarray = field(default_factory=lambda: np.zeros(0))
    over_window: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """1.0 where the program is longer than a model's token window (:func:`mark_over_window`),
    ``nan`` when not measured: what a truncating scorer never reads."""

    def __post_init__(self) -> None:
        if self.length_ratio.size != len(self.ids):
            self.length_ratio = np.full(len(self.ids), math.nan)
        if self.over_window.size != len(self.ids):
            self.over_window = np.full(len(self.ids), math.nan)

    @staticmethod
    def concat(parts: Sequence[SystemRows]) -> SystemRows:
        """Rows of several evaluations as one set (a family's dev programs live in two
        folders); the columns every part has."""
        if not parts:
            raise EvaluationError("no evaluation to read")
        names = [n for n in parts[0].columns if all(n in p.columns for p in parts)]
        if not names:
            raise EvaluationError("the evaluations share no metric column")
        return SystemRows(
            [i for p in parts for i in p.ids],
            [t for p in parts for t in p.problems],
            [g for p in parts for g in p.generators],
            np.concatenate([p.passed for p in parts]),
            {n: np.concatenate([p.columns[n] for p in parts]) for n in names},
            {
                key: "; ".join(dict.fromkeys(str(p.source.get(key)) for p in parts))
                if key != "only"
                else sorted({o for p in parts for o in p.source.get("only", [])})
                for key in parts[0].source
            },
            np.concatenate([p.length_ratio for p in parts]),
            np.concatenate([p.over_window for p in parts]),
        )

    def at_least(self, min_rows: int) -> SystemRows:
        """Without the generators that have fewer than ``min_rows`` rows (a mean of one or two
        programs is noise, not a system's level)."""
        counts: dict[str, int] = {}
        for g in self.generators:
            counts[g] = counts.get(g, 0) + 1
        return self.select(np.asarray([counts[g] >= min_rows for g in self.generators]))

    def matching(self, patterns: Sequence[str]) -> SystemRows:
        """The rows whose generator matches one of ``patterns`` (fnmatch)."""
        keep = np.asarray([any(fnmatchcase(g, p) for p in patterns) for g in self.generators])
        if not keep.any():
            raise EvaluationError(
                f"no row of {self.source.get('data')} has a generator matching "
                f"{', '.join(patterns)}"
            )
        out = self.select(keep)
        out.source = {**self.source, "only": list(patterns)}
        return out

    def select(self, keep: np.ndarray) -> SystemRows:
        """The rows where ``keep`` is true."""
        index = np.flatnonzero(keep)
        return SystemRows(
            [self.ids[i] for i in index],
            [self.problems[i] for i in index],
            [self.generators[i] for i in index],
            self.passed[index],
            {name: values[index] for name, values in self.columns.items()},
            self.source,
            self.length_ratio[index],
            self.over_window[index],
        )


def read_scores(path: Path) -> dict[str, dict[str, float]]:
    """``id -> {metric: score}`` of a ``scores.jsonl`` (``None`` read as ``nan``)."""
    if not path.is_file():
        raise EvaluationError(
            f"{path}: no such scores file; pass an evaluate.py output folder (it holds "
            "scores.jsonl) or --scores FILE"
        )
    out: dict[str, dict[str, float]] = {}
    try:
        for _, record in iter_jsonl(path, required=("id",), what="score row"):
            out[str(record["id"])] = {
                key: math.nan if value is None else float(value)
                for key, value in record.items()
                if key != "id" and (value is None or isinstance(value, (int, float)))
            }
    except UserError as exc:
        raise EvaluationError(str(exc)) from None
    return out


def read_rows(
    scores: Path,
    data: str | Path,
    split: str,
    samples: str | Path | None,
    only: Sequence[str] = (),
    metrics: Sequence[str] = (),
) -> SystemRows:
    """Join a scores file to the split's labels and generators.

    Args:
        scores: ``scores.jsonl`` (``{"id", "<metric>": float|null}`` per row).
        data: the dataset folder (or JSONL) the scores were computed on.
        split: its split.
        samples: the samples file the split was built from (``generators=`` of evaluate.py);
            None when every row carries a ``generator`` field.
        only: generator patterns (fnmatch); given, only their rows are kept.
        metrics: columns to keep (default: every numeric column of ``scores``).

    Raises:
        EvaluationError: a row of the split has no scores, a named metric is absent, or the
            generators are unknown.
    """
    split_data = load_split(data, split)
    generators, generators_from = row_generators(split_data, samples)
    if generators is None:
        raise EvaluationError(
            f"generators of {data} ({split}) are unknown: {generators_from}; pass --samples FILE"
        )
    by_id = read_scores(Path(scores))
    missing = [i for i in split_data.ids if i not in by_id]
    if missing:
        raise EvaluationError(
            f"{scores}: {len(missing)} of {len(split_data.ids)} rows of {data} ({split}) have no "
            f"scores (first: {missing[0]!r}); pass the scores of this split"
        )
    names = list(metrics) or sorted({k for row in by_id.values() for k in row})
    absent = [m for m in names if not any(m in row for row in by_id.values())]
    if absent:
        raise EvaluationError(
            f"{scores}: no column {', '.join(map(repr, absent))}; columns: "
            f"{', '.join(sorted({k for row in by_id.values() for k in row}))}"
        )
    columns = {
        name: np.asarray([by_id[i].get(name, math.nan) for i in split_data.ids]) for name in names
    }
    rows = SystemRows(
        list(split_data.ids),
        list(split_data.task_ids),
        list(generators),
        split_data.passed.astype(np.float64),
        {name: values for name, values in columns.items() if np.isfinite(values).any()},
        {
            "scores": str(scores),
            "data": str(split_data.path),
            "split": split,
            "generators_from": generators_from,
            "only": [],
        },
        np.asarray(
            [
                len(g) / len(r) if r.strip() else math.nan
                for g, r in zip(split_data.generated, split_data.references, strict=True)
            ]
        ),
    )
    return rows.matching(only) if only else rows


def mark_over_window(rows: SystemRows, programs: Sequence[str], checkpoint: Path) -> None:
    """Set ``rows.over_window``: whether each program has more tokens than the checkpoint's
    window (its ``config.json`` ``max_length``, less the two special tokens), in its tokenizer.

    Why: CodeScore encodes the program alone (estimator) and truncates it; a generator that
    writes a long preamble (the prompt's docstring again, imports, tests) is scored on text
    that may not reach its code.
    """
    from transformers import AutoTokenizer

    config = json.loads((checkpoint / "config.json").read_text())
    window = int(config.get("max_length", 512)) - 2
    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    rows.over_window = np.asarray(
        [
            float(len(tokenizer(code, add_special_tokens=False)["input_ids"]) > window)
            for code in programs
        ]
    )
    rows.source = {**rows.source, "window": f"{window} tokens of {checkpoint}"}


def read_evaluation(
    folder: Path, only: Sequence[str] = (), metrics: Sequence[str] = ()
) -> SystemRows:
    """The rows of an ``evaluate.py`` output folder: its scores.jsonl, and the dataset, split
    and samples file its report.json's config names."""
    report_path = folder / "report.json"
    if not report_path.is_file():
        raise EvaluationError(
            f"{folder}: no report.json; pass an evaluate.py output folder, or --scores, --data, "
            "--split and --samples"
        )
    config = json.loads(report_path.read_text()).get("config") or {}
    if not config.get("dataset"):
        raise EvaluationError(f"{report_path}: its config names no dataset; pass --data")
    return read_rows(
        folder / "scores.jsonl",
        config["dataset"],
        str(config.get("split", "test")),
        config.get("generators"),
        only,
        metrics,
    )


def _ranks(values: np.ndarray) -> np.ndarray:
    """1 = highest; ties share the average rank; ``nan`` stays ``nan``."""
    out = np.full(values.shape, math.nan)
    finite = np.isfinite(values)
    out[finite] = stats.rankdata(-values[finite], method="average")
    return out


def _means(values: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    out = np.full(len(groups), math.nan)
    for g, indices in enumerate(groups):
        part = values[indices]
        part = part[np.isfinite(part)]
        if part.size:
            out[g] = part.mean()
    return out


def _tau(x: np.ndarray, y: np.ndarray) -> float:
    kendall, _ = batch_kendall_pearson(x, y)
    return float(kendall[0])


def _variant(
    columns: Mapping[str, np.ndarray],
    target: np.ndarray,
    generators: list[str],
    problems: list[str],
    n_resamples: int,
    seed: int,
) -> dict[str, Any]:
    """tau and r per column, intervals over generators and over problems."""
    by_generators = system_level_correlations(
        columns, target, generators, n_resamples=n_resamples, seed=seed
    )
    by_problems = problem_bootstrap(
        columns, target, generators, problems, n_resamples=n_resamples, seed=seed
    )
    return {
        name: {
            "kendall": m["kendall"],
            "pearson": m["pearson"],
            "kendall_ci_generators": m["kendall_ci"],
            "kendall_ci_problems": by_problems[name]["kendall_ci"],
            "n_systems": m["n_systems"],
        }
        for name, m in by_generators["metrics"].items()
    }


def diagnose(
    rows: SystemRows,
    n_resamples: int = 1000,
    seed: int = 0,
    min_common: int = 10,
    worst: int = 5,
    variants: Sequence[str] = VARIANTS,
) -> dict[str, Any]:
    """Every figure of the module docstring, as a JSON-able dict.

    Args:
        rows: what to diagnose.
        n_resamples: bootstrap resamples (0 = no intervals).
        seed: resampling seed (the same draws for every column).
        min_common: the ``common`` variant needs at least this many problems covered by every
            generator; fewer and it is reported as not computed, with the count.
        worst: how many of the most misplaced generators to list per metric.
        variants: which of :data:`VARIANTS` to compute (``raw`` always); a figure a
            pre-registered rule says not to compute stays out (``null`` in the report).
    """
    unknown = sorted(set(variants) - set(VARIANTS))
    if unknown:
        raise EvaluationError(f"unknown variant(s) {', '.join(unknown)}; choose from {VARIANTS}")
    if len(set(rows.generators)) < 2:
        raise EvaluationError(
            f"{len(set(rows.generators))} generator(s) in the rows: a system-level figure needs two"
        )
    groups = group_indices(rows.generators)
    names = [rows.generators[int(g[0])] for g in groups]
    problem_rate = rows.passed - center_within(rows.passed, rows.problems)  # each row's problem's
    pass_rate = _means(rows.passed, groups)
    coverage = _means(problem_rate, groups)
    relative = _means(center_within(rows.passed, rows.problems), groups)
    pass_rank = _ranks(pass_rate)
    length = np.asarray(
        [
            float(np.median(part[np.isfinite(part)])) if np.isfinite(part).any() else math.nan
            for part in (rows.length_ratio[g] for g in groups)
        ]
    )
    over_window = _means(rows.over_window, groups)
    centred = {n: center_within(v, rows.problems) for n, v in rows.columns.items()}
    problem_groups = group_indices(rows.problems)
    problem_pass = _means(rows.passed, problem_groups)
    per_metric: dict[str, Any] = {}
    for name, values in rows.columns.items():
        means = _means(values, groups)
        centred_means = _means(centred[name], groups)
        rank = _ranks(means)
        displacement = rank - pass_rank
        order = np.argsort(-np.abs(np.nan_to_num(displacement)), kind="stable")[:worst]
        per_metric[name] = {
            "means": means.tolist(),
            "centred_means": centred_means.tolist(),
            "ranks": rank.tolist(),
            "displacement": displacement.tolist(),
            "misplaced": [
                {
                    "generator": names[i],
                    "pass_rank": float(pass_rank[i]),
                    "rank": float(rank[i]),
                    "displacement": float(displacement[i]),
                }
                for i in order
                if np.isfinite(displacement[i])
            ],
            # does the metric's mean follow which problems were covered, or how well?
            "tau_with_coverage": _tau(means, coverage),
            "tau_with_relative": _tau(means, relative),
            "tau_with_length": _tau(means, length),
            # does the metric know which problems are hard? (what coverage asks of it)
            "tau_problem_level": _tau(_means(values, problem_groups), problem_pass),
        }
    problem_sets = [set(np.asarray(rows.problems)[g]) for g in groups]
    common = sorted(set.intersection(*problem_sets))
    figures: dict[str, Any] = {
        "raw": _variant(
            rows.columns, rows.passed, rows.generators, rows.problems, n_resamples, seed
        ),
        "centred": _variant(
            centred,
            center_within(rows.passed, rows.problems),
            rows.generators,
            rows.problems,
            n_resamples,
            seed,
        )
        if "centred" in variants
        else None,
        "centred_scores": _variant(
            centred, rows.passed, rows.generators, rows.problems, n_resamples, seed
        )
        if "centred_scores" in variants
        else None,
    }
    if "common" in variants and len(common) >= min_common:
        sub = rows.select(np.isin(np.asarray(rows.problems), common))
        figures["common"] = _variant(
            sub.columns, sub.passed, sub.generators, sub.problems, n_resamples, seed
        )
    else:
        figures["common"] = None
    return {
        "source": rows.source,
        "n_rows": len(rows.ids),
        "n_problems": len(set(rows.problems)),
        "n_generators": len(groups),
        "n_common_problems": len(common),
        "min_common": min_common,
        "n_resamples": n_resamples,
        "seed": seed,
        "generators": [
            {
                "name": name,
                "rows": int(g.size),
                "problems": len(problem_sets[i]),
                "pass_rate": float(pass_rate[i]),
                "coverage": float(coverage[i]),
                "relative": float(relative[i]),
                "length_ratio": float(length[i]),
                "over_window": float(over_window[i]),
                "pass_rank": float(pass_rank[i]),
            }
            for i, (name, g) in enumerate(zip(names, groups, strict=True))
        ],
        # how much of the pass-rate order is which problems were covered
        "target": {
            "tau_pass_rate_coverage": _tau(pass_rate, coverage),
            "tau_pass_rate_relative": _tau(pass_rate, relative),
            "tau_pass_rate_length": _tau(pass_rate, length),
        },
        "metrics": per_metric,
        "variants": figures,
    }
