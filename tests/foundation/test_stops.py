"""One stop-token cutter for every caller: pins the behaviour each caller had before the two
copies (``candidates.prompts.cut_at_stops``, ``problems.multipl_e.stop_at_stop_token``) became
one (``problems.stops.cut_at_stops``)."""

from __future__ import annotations

import pytest

from data_builders.candidates import prompts
from data_builders.problems import multipl_e
from data_builders.problems.base import Problem
from data_builders.problems.humaneval_x import program_from_continuation

CASES = [
    ("  return x + y;\n}\n\nfunction extra(){}", ["\nfunction ", "\n//"], "  return x + y;\n}\n"),
    ("a\n//c\nfunction b", ["\nfunction ", "\n//"], "a"),  # the earliest occurrence wins
    ("a\nfunction b\n//c", ["\n//", "\nfunction "], "a"),  # whatever the token order
    ("  return x + y;\n}", ["\nfunction ", "\n//"], "  return x + y;\n}"),  # none present
    ("\n//only a comment", ["\n//"], ""),  # at position 0
    ("", ["\n//"], ""),
    ("x\n/*y\n//z", ["\n//", "\n/*", "\n/*y"], "x"),  # several tokens at one position
    ("keep all", [], "keep all"),
    ("keep all", [""], "keep all"),  # an empty token cuts nothing
    ("ab\ncd", ["", "\n"], "ab"),
    ("ab\ncd", ("\n",), "ab"),  # any sequence of tokens
]


@pytest.mark.parametrize(("text", "stops", "expected"), CASES)
def test_candidates_cut(text, stops, expected):
    assert prompts.cut_at_stops(text, stops) == expected


@pytest.mark.parametrize(("text", "stops", "expected"), CASES)
def test_multipl_e_cut(text, stops, expected):
    assert multipl_e.stop_at_stop_token(text, stops) == expected


def test_multipl_e_program_cuts_the_completion_only():
    row = {
        "name": "HumanEval_0_f",
        "language": "js",
        "prompt": "//\nfunction f(){\n",  # the prompt's own stop token is not searched
        "tests": "test();",
        "stop_tokens": ["\n//"],
    }
    problem = multipl_e.problem_from_row(row, "row")
    assert (
        problem.program("  return 1;\n}\n// tail") == "//\nfunction f(){\n  return 1;\n}\ntest();"
    )


def test_humaneval_x_continuation_cut_at_language_stops():
    problem = Problem(
        "JavaScript/0",
        "const f = (x) => {\n",
        "",
        "",
        "f",
        metadata={"language": "js"},
    )
    # cut at JavaScript's "\nconsole.log" stop; the braces are balanced, none added
    program = program_from_continuation(problem, "  return x;\n}\nconsole.log(f(1))\n")
    assert program == "const f = (x) => {\n  return x;\n}"
