"""Prompt templates as data, and the function that fills one in.

The design follows ICE-Score (Zhuo, 2024, "ICE-Score: Instructing Large Language Models to
Evaluate Code", Sec. 2.1-2.2 and Appendix A; ``../shared/papers/000_*.txt``): a task
instruction in the style of G-EVAL, the evaluation criteria of one aspect, three template
evaluation steps, the problem, the optional reference code (Ref-ICE-Score, with the steps
adjusted to compare against it), the code snippet, and either a scores-only answer form or
"Step-by-step Evaluation:" (zero-shot chain of thought, Sec. 5). The criteria are quoted from
Appendix A because the 0-4 scale *is* their wording; the instruction and steps are our own
phrasing of the paper's.

A template is a plain mapping of strings, so users can supply their own as a YAML/JSON file
(``template: path/to/file.yaml``) with the same keys; ``{aspect_name}`` is the only
placeholder inside template text, and user content (problem, code) is never formatted, so
braces in code are safe.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from data_builders.languages import TABLE
from unice.ice_score.errors import IceScoreConfigError

ASPECT_NAMES = {"usefulness": "Usefulness", "functional_correctness": "Functional Correctness"}

_USEFULNESS_LEVELS = """\
- A score of 0: Snippet is not at all helpful, it is irrelevant to the problem.
- A score of 1: Snippet is slightly helpful, it contains information relevant to the problem, \
but it is easier to write the solution from scratch.
- A score of 2: Snippet is somewhat helpful, it requires significant changes (compared to the \
size of the snippet), but is still useful.
- A score of 3: Snippet is helpful, but needs to be slightly changed to solve the problem.
- A score of 4: Snippet is very helpful, it solves the problem."""

_CORRECTNESS = """\
Functional Correctness (0-4) - Execution-based quality of the code snippet combined with the \
problem. The correctness is measured by all possible unit tests and the comparison of the \
reference code. The combination of the code snippet and the problem should pass all the \
possible tests based on your understanding of the reference code. The length of the code \
snippet can not determine the correctness. You need to assess the logic line by line.
- A score of 0 (failing all possible tests) means that the code snippet is totally incorrect \
and meaningless.
- A score of 4 (passing all possible tests) means that the code snippet is totally correct and \
can handle all cases."""

ICE_SCORE_TEMPLATE: dict[str, Any] = {
    "instruction": (
        "You are given a programming problem and a code snippet written to solve it. Rate the "
        "code snippet on exactly one metric, described below. Read these instructions "
        "carefully before you start and come back to them whenever you need to while you "
        "review."
    ),
    "criteria": {
        "usefulness": "Usefulness (0-4) Usefulness of the code snippet based on the problem "
        "description.\n" + _USEFULNESS_LEVELS,
        "functional_correctness": _CORRECTNESS,
    },
    "criteria_with_reference": {
        "usefulness": "Usefulness (0-4) Usefulness of the code snippet based on the problem "
        "description and the comparison of reference code.\n" + _USEFULNESS_LEVELS,
        "functional_correctness": _CORRECTNESS,
    },
    "steps": (
        "1. Study the problem and list the functionality an implementation must provide.\n"
        "2. Study the code snippet against the problem: does it provide every required "
        "functionality, in line with the Evaluation Criteria?\n"
        "3. Give {aspect_name} a score from 0 to 4, where 0 is the lowest and 4 the highest, "
        "following the Evaluation Criteria."
    ),
    "steps_with_reference": (
        "1. Study the problem and list the functionality an implementation must provide.\n"
        "2. Study the code snippet against the problem and the reference code: does it provide "
        "every required functionality, and is it as good as the reference code, in line with "
        "the Evaluation Criteria?\n"
        "3. Give {aspect_name} a score from 0 to 4, where 0 is the lowest and 4 the highest, "
        "following the Evaluation Criteria."
    ),
    "problem_header": "Problem:",
    "reference_header": "Reference Code:",
    "code_header": "Code Snippet:",
    "answer_form": "Evaluation Form:\n{aspect_name} (scores ONLY):",
    "cot_form": "Step-by-step Evaluation:",
}

BUILTIN_TEMPLATES: dict[str, dict[str, Any]] = {"ice_score": ICE_SCORE_TEMPLATE}
_REQUIRED_KEYS = tuple(ICE_SCORE_TEMPLATE)


# A record's ``language`` field (HE-Eval-X rows carry one) -> the name the prompt uses.
LANGUAGE_NAMES = {info.name: info.display for info in TABLE}


@dataclass(frozen=True)
class PromptInput:
    """What one prompt is about: the task text, the candidate code and the optional reference,
    and the code's language when the record names it (None: not said, as for Python rows)."""

    problem: str
    code: str
    reference: str | None = None
    language: str | None = None


def _header(header: str, language: str | None) -> str:
    """``Code Snippet:`` -> ``Code Snippet (C++):`` when the language is known."""
    if not language:
        return header
    name = LANGUAGE_NAMES.get(language, language)
    return f"{header.rstrip().rstrip(':')} ({name}):"


def load_template(name_or_path: str) -> dict[str, Any]:
    """Return a built-in template by name, or read one from a ``.yaml``/``.yml``/``.json`` file."""
    if name_or_path in BUILTIN_TEMPLATES:
        return BUILTIN_TEMPLATES[name_or_path]
    path = Path(name_or_path)
    if not path.is_file():
        raise IceScoreConfigError(
            f"unknown prompt template {name_or_path!r}: use one of "
            f"{', '.join(BUILTIN_TEMPLATES)} or the path of a YAML/JSON template file"
        )
    try:
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text) if path.suffix in (".yaml", ".yml") else json.loads(text)
    except (OSError, ValueError, yaml.YAMLError) as exc:
        raise IceScoreConfigError(f"{path}: cannot read prompt template ({exc})") from None
    return _check_template(data, str(path))


def _check_template(data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, Mapping):
        raise IceScoreConfigError(f"{where}: a prompt template must be a mapping of strings")
    missing = [key for key in _REQUIRED_KEYS if key not in data]
    if missing:
        raise IceScoreConfigError(
            f"{where}: prompt template lacks key(s) {', '.join(missing)} "
            f"(copy unice/ice_score/templates.py:ICE_SCORE_TEMPLATE as a starting point)"
        )
    for key in ("criteria", "criteria_with_reference"):
        if not isinstance(data[key], Mapping) or set(ASPECT_NAMES) - set(data[key]):
            raise IceScoreConfigError(
                f"{where}: {key} must map each aspect ({', '.join(ASPECT_NAMES)}) to its text"
            )
    return dict(data)


def build_prompt(
    template: Mapping[str, Any],
    item: PromptInput,
    aspect: str,
    with_reference: bool = False,
    cot: bool = False,
) -> str:
    """Fill ``template`` for one candidate program.

    Args:
        template: a mapping with the keys of :data:`ICE_SCORE_TEMPLATE`.
        item: problem text, candidate code and (for Ref-ICE-Score) the reference code.
        aspect: ``"usefulness"`` or ``"functional_correctness"``.
        with_reference: include the reference code and the reference-aware steps.
        cot: end with the chain-of-thought cue instead of the scores-only answer form.

    Returns:
        The prompt, one string (sent as a single chat message).
    """
    name = ASPECT_NAMES[aspect]
    criteria = template["criteria_with_reference" if with_reference else "criteria"][aspect]
    steps = template["steps_with_reference" if with_reference else "steps"]
    sections = [
        template["instruction"],
        "Evaluation Criteria:\n" + criteria,
        "Evaluation Steps:\n" + steps.replace("{aspect_name}", name.lower()),
        f"{template['problem_header']}\n\n{item.problem}",
    ]
    if with_reference:
        reference_header = _header(template["reference_header"], item.language)
        sections.append(f"{reference_header}\n\n{item.reference or ''}")
    sections.append(f"{_header(template['code_header'], item.language)}\n\n{item.code}")
    ending = template["cot_form"] if cot else template["answer_form"]
    sections.append(ending.replace("{aspect_name}", name))
    return "\n\n".join(sections) + "\n"
