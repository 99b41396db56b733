"""Agreement between a metric's scores and execution labels (correlations, errors, Exec metrics)."""

from unice.metrics.bootstrap import bootstrap_correlations
from unice.metrics.classification import auroc, binary_metrics, passability_agreement
from unice.metrics.correlation import CORRELATIONS, corpus_correlations, regression_metrics
from unice.metrics.example_level import ExampleLevel, example_level_correlations, group_indices
from unice.metrics.selection import best_of_n
from unice.metrics.system_level import SYSTEM_CORRELATIONS, system_level_correlations

__all__ = [
    "CORRELATIONS",
    "SYSTEM_CORRELATIONS",
    "ExampleLevel",
    "auroc",
    "best_of_n",
    "binary_metrics",
    "bootstrap_correlations",
    "corpus_correlations",
    "example_level_correlations",
    "group_indices",
    "passability_agreement",
    "regression_metrics",
    "system_level_correlations",
]
