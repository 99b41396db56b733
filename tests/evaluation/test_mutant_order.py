"""scripts/mutant_order.py: the two parts of a within-problem order on canonical + mutant rows."""

from __future__ import annotations

from unice.testing import load_script


def _module():
    return load_script("mutant_order")


def _row(kind: str, index: int, ratio: float) -> dict:
    return {"id": f"CPP/1::{kind}::{index}", "task_id": "CPP/1", "pass_ratio": ratio}


def test_canonical_pairs_and_mutant_pairs_are_counted_apart():
    rows = [_row("samples", 0, 1.0), _row("mutant", 0, 0.0), _row("mutant", 1, 0.5),
            _row("mutant", 2, 0.0), _row("mutant", 3, 1.0)]  # fmt: skip
    scores = {
        "CPP/1::samples::0": {"m": 1.0},
        "CPP/1::mutant::0": {"m": 0.9},  # PR 0, scored above the PR .5 mutant: wrong
        "CPP/1::mutant::1": {"m": 0.8},
        "CPP/1::mutant::2": {"m": 0.9},  # ties mutant 0 (same PR: not a pair)
        "CPP/1::mutant::3": {"m": 0.9},  # PR 1: tied with mutants 0 and 2, above mutant 1
    }
    counts = _module().count(rows, scores, "m")
    # the canonical vs its three failing mutants (the passing mutant is no pair of it)
    assert (counts["canonical_pairs"], counts["canonical_right"]) == (3, 3)
    # pairs of differing PR: (0,1) (1,2) wrong; (0,3) (2,3) tied; (1,3) right
    assert (counts["right"], counts["wrong"], counts["tied"]) == (1, 2, 2)
