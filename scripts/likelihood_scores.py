"""Coder/reviewer likelihoods of every row of a split, as reference-free baseline columns.

Why: a user reranking samples has no reference, and Coder-Reviewer reranking (Zhang et al.,
ICML 2023) is the reference-free baseline a learned metric should beat: it needs only the task
and a code LM. This writes ``{"id", "Coder (LM)", "Reviewer (LM)", "Coder+Reviewer (LM)"}``
lines that ``evaluate.py scores=...`` and ``scripts/quality_report.py --reference-free-scores``
read as columns (each score computed once per LM and row, kept in the UniCE cache's store:
:mod:`unice.evaluation.likelihoods`).

    python scripts/likelihood_scores.py --data data/he-eval-zs --split test \
        --out outputs/quality/likelihoods.jsonl            # ~0.5-1 s per program on 2 cores
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from unice.data.languages import row_language  # noqa: E402
from unice.evaluation.data import load_split  # noqa: E402
from unice.evaluation.errors import EvaluationError  # noqa: E402
from unice.evaluation.likelihoods import LikelihoodScorer  # noqa: E402


def column_names(label: str) -> tuple[str, str, str]:
    """The three columns' names for an LM called ``label``."""
    return f"Coder ({label})", f"Reviewer ({label})", f"Coder+Reviewer ({label})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True, help="dataset folder (or a split's JSONL file)")
    parser.add_argument("--split", default="test")
    parser.add_argument("--out", type=Path, required=True, help="JSONL of scores, one per row")
    parser.add_argument("--model", default="smollm2", help="causal LM: smollm2, folder, hub name")
    parser.add_argument("--label", default="SmolLM2", help="the LM's name in the column names")
    parser.add_argument(
        "--max-length", type=int, default=256, help="tokens per context/continuation"
    )
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    try:
        data = load_split(args.data, args.split)
    except EvaluationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    scorer = LikelihoodScorer.open(args.model, args.max_length)
    rows = data.rows
    triples = [(str(r["generated"]), str(r.get("nl") or ""), row_language(r)) for r in rows]
    scorer.prefill(triples)
    coder_name, reviewer_name, both_name = column_names(args.label)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as handle:
        for row, (generated, nl, language) in zip(rows, triples, strict=True):
            line: dict[str, object] = {"id": row["id"]}
            if nl:
                coder, reviewer = scorer.scores(generated, nl, language)
                line.update(
                    {coder_name: coder, reviewer_name: reviewer, both_name: coder + reviewer}
                )
            else:  # no task text: not scored (null), never a made-up 0
                line.update({coder_name: None, reviewer_name: None, both_name: None})
            handle.write(json.dumps(line) + "\n")
    print(f"{len(rows)} rows -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
