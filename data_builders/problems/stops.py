"""The one stop-token cutter: a completion up to the earliest stop token.

Used by MultiPL-E's program assembly (:class:`~data_builders.problems.multipl_e.MultiPLEProblem`),
HumanEval-X continuations (:func:`~data_builders.problems.humaneval_x.program_from_continuation`)
and the generators' chat stops (:mod:`data_builders.candidates.prompts`).
"""

from __future__ import annotations

from collections.abc import Sequence


def cut_at_stops(text: str, stops: Sequence[str]) -> str:
    """``text`` up to (not including) the earliest occurrence of any of ``stops``.

    The earliest position wins whatever the order of ``stops``; a stop at position 0 leaves "";
    empty stops are ignored; no stop present keeps the whole text. MultiPL-E searches the
    completion alone (the prompt may contain stop tokens itself), so ``text`` must not include
    the prompt.
    """
    cut = min((i for i in (text.find(s) for s in stops if s) if i >= 0), default=len(text))
    return text[:cut]
