"""Place Debian's WordNet files where NLTK looks, so METEOR works offline.

No PyPI package ships WordNet, and NLTK's downloader needs the network. Debian's
``wordnet-base`` holds the same database files; NLTK needs them under
``$NLTK_DATA/corpora/wordnet/`` together with a ``lexnames`` file.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

DEBIAN_DICT = Path("/usr/share/wordnet")
LEXNAMES = [
    "adj.all",
    "adj.pert",
    "adv.all",
    "noun.Tops",
    "noun.act",
    "noun.animal",
    "noun.artifact",
    "noun.attribute",
    "noun.body",
    "noun.cognition",
    "noun.communication",
    "noun.event",
    "noun.feeling",
    "noun.food",
    "noun.group",
    "noun.location",
    "noun.motive",
    "noun.object",
    "noun.person",
    "noun.phenomenon",
    "noun.plant",
    "noun.possession",
    "noun.process",
    "noun.quantity",
    "noun.relation",
    "noun.shape",
    "noun.state",
    "noun.substance",
    "noun.time",
    "verb.body",
    "verb.change",
    "verb.cognition",
    "verb.communication",
    "verb.competition",
    "verb.consumption",
    "verb.contact",
    "verb.creation",
    "verb.emotion",
    "verb.motion",
    "verb.perception",
    "verb.possession",
    "verb.social",
    "verb.stative",
    "verb.weather",
    "adj.ppl",
]
# WordNet syntactic category numbers used in the lexnames file.
CATEGORY = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}


def target_dir() -> Path:
    """The NLTK data folder inside the active environment (found by NLTK without settings)."""
    return Path(os.environ.get("NLTK_DATA", Path(sys.prefix) / "nltk_data"))


def main() -> int:
    dest = target_dir() / "corpora" / "wordnet"
    if (dest / "index.sense").exists():
        print(f"WordNet already present in {dest}")
        return 0
    if not (DEBIAN_DICT / "index.sense").exists():
        print(
            f"WordNet not found at {DEBIAN_DICT}: install Debian's 'wordnet-base' and "
            "'wordnet-sense-index' (make system-deps)"
        )
        return 1
    dest.mkdir(parents=True, exist_ok=True)
    for src in DEBIAN_DICT.iterdir():
        if src.is_file():
            shutil.copy2(src, dest / src.name)
    (dest / "lexnames").write_text(
        "".join(
            f"{i:02d}\t{name}\t{CATEGORY[name.split('.')[0]]}\n" for i, name in enumerate(LEXNAMES)
        )
    )
    print(f"WordNet installed for NLTK in {dest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
