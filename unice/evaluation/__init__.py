"""Evaluation of learned code metrics against execution: the logic behind ``evaluate.py``.

``evaluate(cfg)`` scores a split with a checkpoint (every input format), the reference-based
baselines, external score files and optionally ICE-Score, then reports correlations (corpus and
example level), MAE, Exec and Passability agreement, best-of-n selection and time.
"""

from unice.evaluation.errors import BaselineUnavailable, EvaluationError
from unice.evaluation.runner import evaluate

__all__ = ["BaselineUnavailable", "EvaluationError", "evaluate"]
