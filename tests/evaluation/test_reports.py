"""Report helpers: undefined numbers stay visible as n/a / null, reliability bins are right."""

from __future__ import annotations

import json
import math

import numpy as np

from unice.evaluation.plots import reliability_bins
from unice.evaluation.report import to_jsonable
from unice.evaluation.tables import fmt


def test_undefined_values_are_never_printed_as_zero() -> None:
    assert fmt(math.nan) == "n/a" and fmt(None) == "n/a" and fmt(0.0) == "0.000"
    payload = to_jsonable(
        {"a": np.float64("nan"), "b": (np.int64(3), np.bool_(True)), "c": np.arange(2)}
    )
    assert payload == {"a": None, "b": [3, True], "c": [0, 1]}
    json.dumps(payload, allow_nan=False)  # strict JSON


def test_reliability_bins() -> None:
    probs = np.array([0.05, 0.15, 0.12, 0.95, 1.0, np.nan])
    labels = np.array([0, 1, 0, 1, 1, 1], dtype=bool)
    bins = reliability_bins(probs, labels, n_bins=10)
    assert bins["count"].tolist() == [1, 2, 0, 0, 0, 0, 0, 0, 0, 2]  # nan dropped, 1.0 in last bin
    assert bins["observed"][1] == 0.5 and bins["mean_prob"][9] == 0.975
    assert math.isnan(bins["observed"][2])


def test_execution_cost_prefers_the_most_specific_record(tmp_path) -> None:
    from unice.evaluation.provenance import execution_cost

    split = tmp_path / "test.jsonl"
    split.write_text("")
    assert execution_cost(split, "test")["seconds"] is None
    (tmp_path / "build_info.json").write_text(json.dumps({"seconds": 44.0}))
    assert "whole dataset build" in execution_cost(split, "test")["note"]
    (tmp_path / "stats.json").write_text(
        json.dumps({"splits": {"test": {"execution_seconds": 5.0}}})
    )
    assert execution_cost(split, "test") == {
        "seconds": 5.0,
        "note": "execution_seconds from stats.json (this split)",
    }
    rows = [{"exec_seconds": 1.5}, {"exec_seconds": 2.0}]
    assert execution_cost(split, "test", rows)["seconds"] == 3.5
