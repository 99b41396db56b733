"""The programming language of an evaluation split, and what it changes in the baselines.

Why: rows of HE-Eval-X (``build humaneval-x --language L``) hold C++, Java, JavaScript, Go or
Rust code and say so in a ``language`` field; rows without one are Python. The default
baseline settings (``configs/baselines/all.yaml``) are Python's: CodeBLEU parses with the
Python grammar and CrystalBLEU counts the n-grams every program shares in Python's standard
library. Both are wrong for other code, so for another language CodeBLEU gets that language's
grammar (a language without an installed grammar is skipped with the reason, as usual) and
CrystalBLEU counts its shared n-grams over the split's references. The other string baselines
split code into identifier/number runs and single punctuation characters, which suits every
one of these languages as it is. ICE-Score names the language in its prompt
(:mod:`unice.ice_score.templates`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from data_builders.languages import TABLE
from unice.data.languages import DEFAULT_LANGUAGE, row_language
from unice.evaluation.errors import EvaluationError

DEFAULT = DEFAULT_LANGUAGE
# The ``language`` field's values (the language table's names) -> codebleu's language names.
CODEBLEU_NAMES = {info.name: info.codebleu for info in TABLE}


def split_language(rows: Sequence[Mapping[str, Any]]) -> str:
    """The one language of ``rows``, each read as the scorer reads it (:func:`~unice.data.
    languages.row_language`: its ``language`` field, else what a HumanEval-X task id implies,
    else Python), so the baselines never parse a row as another language than CodeScore does."""
    found = sorted({row_language(r) for r in rows})
    if len(found) > 1:
        raise EvaluationError(
            f"the split mixes languages ({', '.join(found)}): evaluate each language's rows "
            "separately (one HE-Eval-X folder per language)"
        )
    return found[0] if found else DEFAULT


def baseline_settings(
    specs: Mapping[str, Mapping[str, Any] | None], language: str
) -> dict[str, dict[str, Any] | None]:
    """``specs`` (baseline key -> options) with the Python-only settings replaced for
    ``language``: CodeBLEU's grammar and CrystalBLEU's shared-n-gram corpus."""
    out: dict[str, dict[str, Any] | None] = {
        k: None if v is None else dict(v) for k, v in specs.items()
    }
    if language == DEFAULT:
        return out
    if "codebleu" in out:
        out["codebleu"] = {
            **(out["codebleu"] or {}),
            "lang": CODEBLEU_NAMES.get(language, language),
        }
    if "crystalbleu" in out and (out["crystalbleu"] or {}).get("corpus", "stdlib") == "stdlib":
        out["crystalbleu"] = {**(out["crystalbleu"] or {}), "corpus": "references"}
    return out
