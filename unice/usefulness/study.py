"""The study's own stored metric scores (``<metric>-<model>`` in conala-all-grades.json), as a
column file for ``evaluate.py scores=`` and as the yardstick our baselines are checked against.

Evtikhiev et al. (02-compute-metrics.ipynb of JetBrains-Research/codegen-metrics) computed BLEU
and chrF with sacrebleu against all references at once, and ROUGE-L, METEOR and CodeBLEU as the
maximum over references of one-reference scores on TranX's tokenization, each rounded to 3
decimals. Ours: the same definitions for BLEU/chrF (sacrebleu, all references), the max over
references for the rest, but on the project's code tokens (identifiers, numbers, single
punctuation), so ROUGE-L and METEOR differ where the two tokenizers split code differently.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from data_builders.jsonl import write_jsonl

STUDY_COLUMNS = {
    "bleu": "BLEU",
    "chrf": "chrF",
    "rougel": "ROUGE-L",
    "meteor": "METEOR",
    "codebleu": "CodeBLEU",
    "ruby": "RUBY",
}
"""The study's metric key (row field ``study_<key>``) -> our column name for the same metric
(RUBY has no implementation here: only the stored column is reported)."""

PUBLISHED_TABLE_1 = {
    "BLEU": (0.439, 0.423),
    "chrF": (0.458, 0.449),
    "ROUGE-L": (0.447, 0.432),
    "METEOR": (0.410, 0.415),
    "CodeBLEU": (0.292, 0.259),
    "RUBY": (0.331, 0.339),
    "CodeBERTScore-F1": (0.500, 0.464),
    "CodeBERTScore-F3": (0.505, 0.437),
    "ICE-Score (GPT-3.5)": (0.556, 0.546),
    "Ref-ICE-Score (GPT-3.5)": (0.554, 0.539),
}
"""ICE-Score's Table 1 (example tau / corpus tau on CoNaLa), quoted as the paper gives it
(CodeBERTScore there: CodeBERT with the NL as source context; ICE-Score: GPT-3.5)."""


def write_study_scores(rows: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """``{"id", "study <metric>": value}`` per row, for ``evaluate.py scores=``."""
    lines = []
    for row in rows:
        line: dict[str, Any] = {"id": row["id"]}
        for key, name in STUDY_COLUMNS.items():
            value = row.get(f"study_{key}")
            line[f"study {name}"] = None if value is None else float(value)
        lines.append(line)
    write_jsonl(path, lines)
    return path


def agreement(ours: Sequence[float], study: Sequence[float]) -> dict[str, Any]:
    """How far our per-snippet scores are from the study's stored (3-decimal) ones.

    Returns ``n`` (snippets both scored), ``equal`` (share equal after rounding ours to 3
    decimals, allowing one unit of rounding: |diff| <= .0015), ``mean_abs``/``max_abs``
    differences and Pearson ``r``.
    """
    a = np.asarray(ours, dtype=np.float64)
    b = np.asarray(study, dtype=np.float64)
    keep = np.isfinite(a) & np.isfinite(b)
    a, b = a[keep], b[keep]
    if not a.size:
        return {"n": 0, "equal": math.nan, "mean_abs": math.nan, "max_abs": math.nan, "r": math.nan}
    diff = np.abs(a - b)
    r = float(np.corrcoef(a, b)[0, 1]) if np.ptp(a) and np.ptp(b) else math.nan
    return {
        "n": int(a.size),
        "equal": float(np.mean(diff <= 0.0015)),
        "mean_abs": float(diff.mean()),
        "max_abs": float(diff.max()),
        "r": r,
    }
