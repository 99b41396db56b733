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


PROMPT = 'def f(xs, k):\n    """Sum of the items above k, plus one."""\n'


def test_sample_mutants_edit_the_generated_code_and_name_their_parent() -> None:
    from data_builders.candidates.base import Candidate
    from data_builders.candidates.mutants import make_sample_mutants

    generated = REFERENCE.split("import math\n\n\n", 1)[1]
    parent = Candidate("T/0", PROMPT + generated, "samples:s.jsonl", "samples", 2)
    mutants = make_sample_mutants(parent, PROMPT, 4, seed=3)
    assert len(mutants) == 4
    for j, mutant in enumerate(mutants):
        assert mutant.kind == "sample_mutant" and mutant.index == 2 * 4 + j
        assert mutant.id == f"T/0::sample_mutant::{8 + j}"
        assert mutant.source.startswith("mutant:") and mutant.source.endswith(" of samples:2")
        assert mutant.program.startswith(PROMPT)  # the prompt is never edited
        assert mutant.program != parent.program
        compile(mutant.program, "<m>", "exec")
    # each parent has its own random stream, and the same parent always gets the same mutants
    other = Candidate("T/0", parent.program, "samples:s.jsonl", "samples", 3)
    assert make_sample_mutants(other, PROMPT, 4, seed=3) != [
        m.__class__(m.task_id, m.program, m.source.replace(":2", ":3"), m.kind, m.index + 4)
        for m in mutants
    ]
    assert make_sample_mutants(parent, PROMPT, 4, seed=3) == mutants


def test_sample_mutants_of_a_body_only_program_fall_back_to_the_whole_program() -> None:
    from data_builders.candidates.base import Candidate
    from data_builders.candidates.mutants import make_sample_mutants

    body = "    return sum(x for x in xs if x > k) + 1\n"
    parent = Candidate("T/0", PROMPT + body, "samples:s.jsonl", "samples", 0)
    mutants = make_sample_mutants(parent, PROMPT, 2, seed=1)
    assert mutants and all(m.program != parent.program for m in mutants)
    assert make_sample_mutants(Candidate("T/0", "x = (", "s", "samples", 0), "", 2, 1) == []
