"""Problem sources producing :class:`Problem` records: HumanEval, MBPP, APPS (Python),
HumanEval-X and MultiPL-E (other languages).

Each source module (``humaneval``, ``mbpp``, ``apps``, ``humaneval_x``, ``multipl_e``) has one
loader of the same shape, ``load_problems(source=None, language=None) -> list[Problem]``: all
its problems in their canonical order, from ``source`` (a local file or folder; None: the
source's default, a shipped package or the hub); ``language`` selects a multilingual source's
language and must be None for a Python one. ``build`` picks the source by dataset name
(:func:`data_builders.dataset.datasets.load_problems`).
"""

from data_builders.problems.base import Problem

__all__ = ["Problem"]
