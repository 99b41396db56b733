"""Score extraction: the paper's Listing 1 reproduced exactly, and the robust default."""

from __future__ import annotations

from collections import Counter

import pytest

from unice.ice_score.parsing import parse_paper, parse_reply, parse_robust


def _listing1_with_counter(raw_content: str, task_key_word: str) -> int:
    """Listing 1 as the authors presumably intended, i.e. *with* ``Counter`` imported.

    Used only to show where the printed listing (no import) differs: on replies with two
    different numbers, which the printed listing scores 0.
    """
    try:
        return int(raw_content)
    except ValueError:
        pass
    try:
        splits = raw_content.lower().replace("(", "").replace(")", "").split("\n")
        ls = [
            ll.strip(".").replace("out of ", "/").replace("/4", "")
            for l in splits  # noqa: E741
            for ll in l.lstrip("0123456789. ").split(". ")
            if task_key_word in ll or "score" in ll
        ]
        ans = [ll for l in ls for ll in l.split() if ll.isnumeric()]  # noqa: E741
        if len(set(ans)) != 1 and len(ans) > 1:
            return int(Counter(ans).most_common(1)[0][0])
        if len(set(ans)) != 1:
            return 0 if "N/A" in raw_content else 1
        return int(ans[0])
    except Exception:  # noqa: BLE001
        return 0


# (reply, aspect, score by the printed Listing 1, branch taken)
PAPER_CASES = [
    ("4", "usefulness", 4, "int"),
    (" 2\n", "usefulness", 2, "int"),
    ("Score: 4", "usefulness", 4, "single"),
    ("Score: 4.", "usefulness", 4, "single"),
    ("Usefulness (scores ONLY): 3", "usefulness", 3, "single"),
    ("Score: 3/4", "usefulness", 3, "single"),
    ("Score: 4 out of 4", "usefulness", 4, "single"),
    ("Functional Correctness: 2", "functional_correctness", 2, "single"),
    # the keyword is per aspect: "functional" lines are ignored when judging usefulness
    ("Functional Correctness: 2", "usefulness", 1, "default_one"),
    # no space after the colon, markdown, trailing period on a bare digit: no number found -> 1
    ("Score:4", "usefulness", 1, "default_one"),
    ("**Score: 4**", "usefulness", 1, "default_one"),
    ("4.", "usefulness", 1, "default_one"),
    ("3 out of 4", "usefulness", 1, "default_one"),
    ("3/4", "usefulness", 1, "default_one"),
    ("The snippet is excellent.", "usefulness", 1, "default_one"),
    ("", "usefulness", 1, "default_one"),
    ("N/A", "usefulness", 0, "na_zero"),
    # two different numbers on score lines -> Counter (never imported) -> NameError -> 0
    ("Score: 4 (on a scale of 0 to 4)", "usefulness", 0, "exception_zero"),
    ("Score: 3 (on a scale of 0 to 4)", "usefulness", 0, "exception_zero"),
    (
        "Step 3: assign a score on a scale of 0 to 4.\nUsefulness score: 4",
        "usefulness",
        0,
        "exception_zero",
    ),
    # repeated identical numbers are one score
    ("Score: 4\nFinal score: 4", "usefulness", 4, "single"),
    # leading list numbering is stripped before the search
    ("1. The code is correct\n2. Score: 2", "usefulness", 2, "single"),
]


@pytest.mark.parametrize(("reply", "aspect", "expected", "branch"), PAPER_CASES)
def test_paper_mode_reproduces_listing1(reply: str, aspect: str, expected: int, branch: str):
    result = parse_paper(reply, aspect)
    assert result.score == expected
    assert result.status == branch


def test_paper_mode_differs_from_counter_version_only_on_disagreeing_numbers():
    keyword = {"usefulness": "usefulness", "functional_correctness": "functional"}
    for reply, aspect, expected, branch in PAPER_CASES:
        intended = _listing1_with_counter(reply, keyword[aspect])
        if branch == "exception_zero":
            assert intended != expected, reply  # Counter would have picked a real score
        else:
            assert intended == expected, reply


# (reply, robust score or None, status)
ROBUST_CASES = [
    ("4", 4.0, "parsed"),
    ("4.", 4.0, "parsed"),
    ("  3 \n", 3.0, "parsed"),
    ("Score: 4", 4.0, "parsed"),
    ("Score:4", 4.0, "parsed"),
    ("**Score: 4**", 4.0, "parsed"),
    ("Score: 3 (on a scale of 0 to 4)", 3.0, "parsed"),
    ("Usefulness (0-4): 2", 2.0, "parsed"),
    ("Usefulness (scores ONLY): 3", 3.0, "parsed"),
    ("Functional Correctness - 2/4", 2.0, "parsed"),
    ("3/4", 3.0, "parsed"),
    ("3 out of 4", 3.0, "parsed"),
    ("I would rate it 3 out of 4.", 3.0, "parsed"),
    ("The final score is four.", 4.0, "parsed"),
    ("Rating: 2.5/4", 2.5, "parsed"),
    ("Score: 0", 0.0, "parsed"),
    (
        "Step 1: the problem asks for the sum.\nStep 2: the code returns a + b, covering "
        "all 2 cases.\nStep 3: on a scale of 0 to 4 this deserves full marks.\n\n4",
        4.0,
        "parsed",
    ),
    (
        "1. The function handles negatives.\n2. It misses the empty case.\n"
        "Therefore, Functional Correctness: 3",
        3.0,
        "parsed",
    ),
    ("Score: 1\nOn reflection the snippet is fine.\nFinal score: 3", 3.0, "parsed"),
    ("Score: 7/10", None, "out_of_range"),
    ("Score: 9", None, "out_of_range"),
    ("The snippet looks reasonable.", None, "unparsed"),
    ("N/A", None, "unparsed"),
    ("", None, "empty"),
    ("   \n ", None, "empty"),
]


@pytest.mark.parametrize(("reply", "expected", "status"), ROBUST_CASES)
def test_robust_mode(reply: str, expected: float | None, status: str):
    result = parse_robust(reply)
    assert result.score == expected
    assert result.status == status


def test_robust_never_silently_zero():
    """Unreadable replies give None, unlike the paper's 0/1 fallbacks."""
    for reply in ("N/A", "Score: 7/10", "no idea", ""):
        assert parse_robust(reply).score is None
        assert parse_paper(reply, "usefulness").score in (0.0, 1.0)


def test_dispatch_by_mode():
    assert parse_reply("Score:4", "usefulness", "robust").score == 4.0
    assert parse_reply("Score:4", "usefulness", "paper").score == 1.0


def test_robust_scores_always_in_range():
    for reply, _, _ in ROBUST_CASES:
        score = parse_robust(reply).score
        assert score is None or 0.0 <= score <= 4.0


# Step-by-step reply shapes like those in the authors' released GPT-3.5 outputs (reworded).
COT_REPLIES = [
    (
        "1. The task asks for X.\n2. The snippet does Y.\n3. It does not help.\n\nUsefulness Score: 0",
        0,
    ),
    ("1. The task asks for X.\n2. It has errors.\n4. Therefore, the usefulness score is 2.", 2),
    ("1. The task asks for X.\n2. It builds a list.\n3. Usefulness score: 1. Slightly helpful.", 1),
    ("1. The task asks for X.\n2. It does little (score of 1).\n3. N/A\n\nUsefulness: 1", 1),
    ("1. The task asks for X.\n2. Not relevant.\n3. Score: 0\n\nOverall, not useful.", 0),
    ("1. The task asks for X.\n2. It covers 3 of the 4 requirements.\n3. Usefulness: 3", 3),
]


@pytest.mark.parametrize(("reply", "expected"), COT_REPLIES)
def test_both_parsers_read_typical_step_by_step_replies(reply: str, expected: int):
    assert parse_robust(reply).score == expected
    assert parse_paper(reply, "usefulness").score == expected
