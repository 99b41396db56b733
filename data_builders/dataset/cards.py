"""Each dataset's additions to the generic ``stats.json`` and card (:mod:`.finalize`,
:mod:`.card`, which name no dataset): its display name, the ``build`` arguments that make it,
and HE-Eval-X's translation figures and "Tests in <language>" section.

``build`` (:func:`data_builders.dataset.pipeline.finish`) and ``merge`` both take them from
here, by the ``dataset`` (and ``language``) recorded in the build's provenance, so the two
write the same files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from data_builders.dataset.card import CardExtras
from data_builders.dataset.humaneval_x_card import card_lines, translation_summary
from data_builders.problems.humaneval_x import LANGUAGE_NAMES

NAMES = {
    "humaneval": "HE-Eval",
    "mbpp": "MBPP-Eval",
    "apps": "APPS-Eval",
    "humaneval-x": "HE-Eval-X",
}


def card_extras(meta: Mapping[str, Any]) -> CardExtras:
    """The extras of the dataset ``meta`` (a build's provenance) describes."""
    dataset = meta["dataset"]
    title, command = NAMES.get(dataset, dataset), dataset
    language = meta.get("language")
    if language:  # HE-Eval-X
        title += f" {LANGUAGE_NAMES.get(language, language)}"
        command += f" --language {language}"
    if dataset != "humaneval-x":
        return CardExtras(title=title, command=command)
    # where each language's tests came from
    return CardExtras(
        title=title,
        command=command,
        stats={"translation": translation_summary},
        sections=(card_lines,),
    )
