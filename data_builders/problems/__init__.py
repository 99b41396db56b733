"""Problem loaders (HumanEval, MBPP, APPS) producing :class:`Problem` records."""

from data_builders.problems.base import Problem

__all__ = ["Problem"]
