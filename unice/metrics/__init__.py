"""Agreement between a metric's scores and execution labels (correlations, errors, Exec metrics)."""

from unice.metrics.correlation import corpus_correlations, regression_metrics

__all__ = ["corpus_correlations", "regression_metrics"]
