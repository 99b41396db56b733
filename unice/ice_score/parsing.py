"""Reading a 0-4 score out of a judge's reply: the paper's extractor and a robust one.

``paper`` reproduces Listing 1 of the ICE-Score paper (Appendix D) exactly as printed,
including its quirks, so that published numbers can be reproduced:

* the listing calls ``Counter`` without importing it (it imports only ``re``), so every reply
  with two different numbers on its "score" lines raises ``NameError``, which the bare
  ``except`` turns into a score of **0** - e.g. ``"Score: 3 (on a scale of 0 to 4)"`` -> 0;
* a reply with no readable number scores **1** (or 0 when it contains ``"N/A"``), e.g.
  ``"Score:4"`` or ``"**Score: 4**"`` -> 1, ``"4."`` -> 1.

(The authors' later repository imports ``Counter``; the listing is what the paper documents.)

``robust`` (the default) reads the common shapes - a bare digit, ``Score: 3``, ``3/4``,
``3 out of 4``, a verdict at the end of step-by-step reasoning, markdown emphasis - and never
invents a score: a reply it cannot read, or a value outside 0-4, gives ``None`` with a status.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Listing 1 searches for this word (besides "score") on each line, per aspect.
PAPER_KEYWORDS = {"usefulness": "usefulness", "functional_correctness": "functional"}

PARSED, UNPARSED, OUT_OF_RANGE, EMPTY = "parsed", "unparsed", "out_of_range", "empty"
# Listing 1 branches that return a default instead of a number read from the reply.
PAPER_FALLBACKS = frozenset({"exception_zero", "na_zero", "default_one"})


@dataclass(frozen=True)
class ParseResult:
    """A score in [0, 4] or ``None``, and why.

    ``status`` is ``parsed`` / ``unparsed`` / ``out_of_range`` / ``empty`` for the robust
    parser; for the paper parser it names the branch of Listing 1 that produced the score
    (``int``, ``single``, ``exception_zero``, ``na_zero``, ``default_one``).
    """

    score: float | None
    status: str


def parse_reply(reply: str, aspect: str, mode: str = "robust") -> ParseResult:
    """Dispatch to :func:`parse_robust` or :func:`parse_paper`."""
    if mode == "paper":
        return parse_paper(reply, aspect)
    return parse_robust(reply)


# --------------------------------------------------------------------------- paper (Listing 1)


def parse_paper(reply: str, aspect: str) -> ParseResult:
    """Listing 1's ``get_gpt_answer``: ``int(reply)``, else the rule-based extractor, else 0."""
    try:
        return ParseResult(float(int(reply)), "int")
    except ValueError:
        pass
    try:
        score, branch = _paper_process_raw_content(reply, PAPER_KEYWORDS[aspect])
        return ParseResult(float(score), branch)
    except Exception:  # noqa: BLE001 - Listing 1 uses a bare ``except: return 0``
        return ParseResult(0.0, "exception_zero")


def _paper_process_raw_content(content: str, task_key_word: str) -> tuple[int, str]:
    """Listing 1's ``process_raw_content``, statement for statement."""
    splits = content.lower().replace("(", "").replace(")", "").split("\n")
    ls = [
        ll.strip(".").replace("out of ", "/").replace("/4", "")
        for l in splits  # noqa: E741 - names kept from the listing
        for ll in l.lstrip("0123456789. ").split(". ")
        if task_key_word in ll or "score" in ll
    ]
    ans = [ll for l in ls for ll in l.split() if ll.isnumeric()]  # noqa: E741
    if len(set(ans)) != 1 and len(ans) > 1:
        # ``return int(Counter(ans).most_common(1)[0][0])`` with ``Counter`` never imported:
        raise NameError("name 'Counter' is not defined")
    if len(set(ans)) != 1:
        if "N/A" in content:
            return 0, "na_zero"
        return 1, "default_one"
    return int(ans[0]), "single"


# --------------------------------------------------------------------------- robust

_NUMBER_WORDS = {"zero": "0", "one": "1", "two": "2", "three": "3", "four": "4"}
_NUM = r"(\d+(?:\.\d+)?|zero|one|two|three|four)"
_OUT_OF_4 = r"(?:\s*(?:/|out\s+of)\s*4(?:\.0+)?)?"
_BARE = re.compile(rf"[\s\"'(\[]*{_NUM}{_OUT_OF_4}[\s\"')\].!]*", re.IGNORECASE)
# "on a scale of 0 to 4", "(0-4)", "0 - 4": mentions of the scale, not scores.
_SCALE = re.compile(
    r"\(?\s*(?:on\s+a\s+scale\s+(?:of|from)\s+|from\s+)?\b0\s*(?:-|–|—|to)\s*4\b\s*\)?",
    re.IGNORECASE,
)
_LABEL = (
    r"(?:score|rating|grade|usefulness|functional\s+correctness|correctness|"
    r"evaluation|verdict|answer|rate|rated|give|gives|assign|assigned)"
)
_FILLER = (
    r"(?:is|be|would|will|should|of|a|an|the|final|overall|scores?|only|i|give|rate|rated|as|"
    r"at|it|my|this|snippet|code|for|gets?|receives?|deserves?|assign|assigned)"
)
_LABELED = re.compile(
    rf"\b{_LABEL}\b[^\w\n]*(?:{_FILLER}\b[^\w\n]*){{0,6}}{_NUM}(?![\w.]\d){_OUT_OF_4}",
    re.IGNORECASE,
)
_FRACTION = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:/|out\s+of)\s*4(?:\.0+)?(?![\d.])")
_MARKDOWN = re.compile(r"[*_`#]+")


def parse_robust(reply: str) -> ParseResult:
    """Read the judge's final 0-4 score, or say why there is none.

    Order: the whole reply is one number; the last non-empty line is one number; otherwise
    the *last* labelled score ("Score: 3", "Functional Correctness - 2/4", "I would rate it
    3") or bare fraction ("3 out of 4") in the text, since step-by-step replies end with their
    verdict.
    """
    text = _MARKDOWN.sub("", reply or "").strip()
    if not text:
        return ParseResult(None, EMPTY)
    lines = [line for line in text.splitlines() if line.strip()]
    for candidate in (text, lines[-1]):
        match = _BARE.fullmatch(candidate)
        if match:
            return _checked(match.group(1))
    cleaned = _SCALE.sub(" ", text)
    found = [(m.end(), m.group(1)) for m in _LABELED.finditer(cleaned)]
    found += [(m.end(), m.group(1)) for m in _FRACTION.finditer(cleaned)]
    if not found:
        return ParseResult(None, UNPARSED)
    return _checked(max(found)[1])


def _checked(token: str) -> ParseResult:
    value = float(_NUMBER_WORDS.get(token.lower(), token))
    if not 0.0 <= value <= 4.0:
        return ParseResult(None, OUT_OF_RANGE)
    return ParseResult(value, PARSED)
