"""ICE-Score (LLM judge) as one more metric column, via the ICE helper's ``score_records``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from unice.evaluation.columns import MetricColumn
from unice.evaluation.data import EvalData
from unice.evaluation.errors import EvaluationError

ICE_SCORE_NAMES = ("ICE-Score", "Ref-ICE-Score")  # column name without / with the reference
HOW_TO_SET = "options go on the command line as ice_score.<field>=..."


def ice_score_column(data: EvalData, options: Mapping[str, Any]) -> MetricColumn:
    """Judge every sample; unparsed/missing judgements stay ``nan`` (counted, not zeroed).

    Raises:
        EvaluationError: the ICE-Score options are invalid or the judge fails.
    """
    # imported here: only runs with ice_score= pay for the judge's HTTP/transformers stack
    from unice.ice_score import IceScoreConfig, IceScoreError, score_records
    from unice.ice_score.errors import IceScoreConfigError

    try:
        config = IceScoreConfig.from_dict(dict(options))
    except (IceScoreConfigError, TypeError) as exc:  # unknown field, bad value, bad type
        raise EvaluationError(f"bad ice_score option: {exc} ({HOW_TO_SET})") from None
    try:
        run = score_records(data.rows, config)
    except IceScoreError as exc:
        raise EvaluationError(f"ICE-Score failed: {exc} ({HOW_TO_SET})") from None
    name = ICE_SCORE_NAMES[1] if config.with_reference else ICE_SCORE_NAMES[0]
    stats = run.stats.to_dict()
    return MetricColumn(
        name=name,
        scores=np.asarray([np.nan if s is None else float(s) for s in run.scores]),
        kind="ice_score",
        seconds=float(stats.get("seconds") or 0.0),
        time_note=f"{stats.get('requests', 0)} requests, {stats.get('cache_hits', 0)} cache hits",
        settings={"model": config.model, "aspect": config.aspect, "stats": stats},
    )
