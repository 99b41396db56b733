"""ICE-Score: LLM-prompted code evaluation (Zhuo, 2024), as a comparison head for CodeScore.

Example::

    from unice.ice_score import IceScoreConfig, score_records
    config = IceScoreConfig(base_url="http://localhost:8000/v1", model="my-model")
    run = score_records(records, config)  # records: dicts with nl, generated, [reference]
    run.scores, run.stats.summary()

See docs/ice_score.md.
"""

from unice.ice_score.config import ASPECTS, PARSERS, IceScoreConfig
from unice.ice_score.errors import (
    AuthenticationError,
    BackendError,
    IceScoreConfigError,
    IceScoreError,
    IceScoreInputError,
    ModelNotFoundError,
    RequestFailedError,
    ServerUnreachableError,
)
from unice.ice_score.parsing import ParseResult, parse_paper, parse_reply, parse_robust
from unice.ice_score.runner import IceScoreRun, IceScoreStats, score_records
from unice.ice_score.templates import build_prompt, load_template

__all__ = [
    "ASPECTS",
    "PARSERS",
    "AuthenticationError",
    "BackendError",
    "IceScoreConfig",
    "IceScoreConfigError",
    "IceScoreError",
    "IceScoreInputError",
    "IceScoreRun",
    "IceScoreStats",
    "ModelNotFoundError",
    "ParseResult",
    "RequestFailedError",
    "ServerUnreachableError",
    "build_prompt",
    "load_template",
    "parse_paper",
    "parse_reply",
    "parse_robust",
    "score_records",
]
