"""AST mutants: named operators, determinism, formatting kept, always compilable."""

from __future__ import annotations

import ast

from data_builders.candidates.mutants import OPERATORS, make_mutants

REFERENCE = '''import math


def f(xs, k):
    """Sum of the items above k, plus one."""  # a comment kept verbatim
    total = 0
    for x in xs:
        if x > k and x != 0:
            total += x * 2
    return total + 1
'''


def test_mutants_are_distinct_compilable_and_named() -> None:
    mutants = make_mutants("T/0", REFERENCE, 12, seed=3)
    assert len(mutants) == 12
    programs = {m.program for m in mutants}
    assert len(programs) == 12 and REFERENCE not in programs
    for index, mutant in enumerate(mutants):
        compile(mutant.program, "m", "exec")
        assert mutant.id == f"T/0::mutant::{index}"
        assert mutant.source.startswith("mutant:")
        assert set(mutant.source[len("mutant:") :].split("+")) <= set(OPERATORS)
        assert "# a comment kept verbatim" in mutant.program  # edits are spliced, not unparsed
        assert ast.dump(ast.parse(mutant.program)) != ast.dump(ast.parse(REFERENCE))


def test_mutants_are_deterministic_per_seed_and_task() -> None:
    first = make_mutants("T/0", REFERENCE, 8, seed=3)
    assert first == make_mutants("T/0", REFERENCE, 8, seed=3)
    assert first != make_mutants("T/0", REFERENCE, 8, seed=4)
    assert make_mutants("T/0", "x = (", 3, seed=1) == []
