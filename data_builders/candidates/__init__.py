"""Candidate programs for a problem: sample files, AST mutants of the reference, LM generations.

Every candidate is a complete program plus where it came from (``source``), and a key that
stays the same across rebuilds so row ids are stable.
"""

from data_builders.candidates.base import Candidate

__all__ = ["Candidate"]
