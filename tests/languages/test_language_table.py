"""The language table (``data_builders/languages.py``) is the single source of the languages.

Every layer that still keeps a per-language mapping for its own code (literal writers, grammars'
node types, test openers, MultiPL-E's commands) must cover exactly the table's languages, and
every list of languages a layer exposes must be the table's: a language added to or removed
from the table then fails here, naming each place that did not follow.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest
import yaml

from data_builders import languages as table
from data_builders.languages import ALIASES, COMPILED, HUMANEVAL_X, NAMES, TABLE, language_info

ROOT = Path(__file__).resolve().parents[2]


def test_the_table_is_consistent() -> None:
    assert NAMES[0] == "python" and len(set(NAMES)) == len(NAMES)
    assert set(COMPILED) == set(NAMES) - {"python"}
    assert not set(ALIASES) & set(NAMES), "an alias may not be another language's name"
    every_alias = [alias for info in TABLE for alias in info.aliases]
    assert len(every_alias) == len(set(every_alias)), "an alias names one language"
    for info in TABLE:
        assert all(alias == alias.lower() for alias in info.aliases), info.name
        assert info.extension.startswith(".") and info.display and info.codebleu
        assert info.family in ("python", "compiled")
        if info.multipl_e is not None:  # the executor runs MultiPL-E's rows by that name
            assert info.multipl_e in (info.name, *info.aliases), info.name
    for name in COMPILED:  # what labelling, building and the features need of each
        info = language_info(name)
        assert info.toolchain and info.install_hint and info.stop_tokens and info.tree_sitter
        assert info.humaneval_x_prefix and info.humaneval_x_config
    with pytest.raises(ValueError, match="unknown language 'c#'.*known: python, cpp"):
        language_info("c#")
    # a foundation module: every layer may import it, so it imports none of them
    source = Path(table.__file__).read_text(encoding="utf-8")
    assert not re.search(r"^\s*(from|import)\s+(data_builders|unice)\b", source, re.M)


def test_the_executor_reads_the_table() -> None:
    from data_builders.execution import COMPILED_LANGUAGES, LANGUAGE_ALIASES, get_language
    from data_builders.execution.compiled.languages import computed
    from data_builders.execution.compiled.plain_harness import TIMEOUTS, TOOLS
    from data_builders.execution.executor import canonical_language
    from data_builders.execution.limits import COMPILED as LIMIT_SECTIONS

    assert COMPILED_LANGUAGES == COMPILED and set(LIMIT_SECTIONS) == set(COMPILED)
    assert {k: v for k, v in ALIASES.items() if v in COMPILED} == LANGUAGE_ALIASES
    assert set(TOOLS) == set(TIMEOUTS) == set(computed._DEFINITIONS) == set(COMPILED)
    for name in COMPILED:
        language = get_language(name)
        assert language.name == name
        assert language.executables == language_info(name).toolchain == TOOLS[name]
        assert language.stop_tokens == language_info(name).stop_tokens
        assert canonical_language(language_info(name).display) == name  # "C++" -> "cpp"
    for alias, name in ALIASES.items():
        assert canonical_language(alias) == name == get_language(alias.upper()).name
    sections = yaml.safe_load((ROOT / "configs" / "build" / "limits.yaml").read_text())
    assert set(sections) <= {"python", "compiled", *COMPILED}


def test_the_builders_read_the_table() -> None:
    from data_builders import build
    from data_builders.problems import humaneval_x, multipl_e_rows
    from data_builders.test_translation import assertions, coverage, literals, types

    assert tuple(humaneval_x.HUB_CONFIGS) == tuple(humaneval_x.LANGUAGE_NAMES) == HUMANEVAL_X
    assert sorted(humaneval_x.PREFIXES.values()) == sorted(HUMANEVAL_X)
    assert (
        humaneval_x.language_of("JavaScript/3") == "js" and humaneval_x.language_of("X/1") is None
    )
    assert set(multipl_e_rows.STOP_TOKENS) == set(multipl_e_rows.TEST_OPENERS) == set(COMPILED)
    assert types.LANGUAGES == HUMANEVAL_X == tuple(coverage.FILE_NAMES)
    assert set(literals.LITERALS) == set(assertions.PRELUDES) == set(HUMANEVAL_X)
    assert set(types.PARSERS) == set(HUMANEVAL_X) - {"js"}  # JavaScript declares no types
    assert set(types._SIGNATURE_PATTERNS) == set(HUMANEVAL_X)
    # build humaneval-x --language offers exactly the table's HumanEval-X languages
    parser = argparse.ArgumentParser(prog="data_builders")
    subparsers = parser.add_subparsers()
    build.register(subparsers)
    choices = re.search(r"--language \{([^}]*)\}", subparsers.choices["build"].format_usage())
    assert choices and tuple(choices.group(1).split(",")) == HUMANEVAL_X


def test_the_model_and_the_evaluation_read_the_table() -> None:
    from unice.data import code_parsing
    from unice.data.languages import LANGUAGES, check_language
    from unice.evaluation.languages import CODEBLEU_NAMES
    from unice.ice_score.templates import LANGUAGE_NAMES

    assert LANGUAGES == NAMES and check_language(None) == "python"
    assert set(code_parsing.GRAMMARS) == {i.name for i in TABLE if i.tree_sitter}
    assert tuple(CODEBLEU_NAMES) == tuple(LANGUAGE_NAMES) == NAMES
    assert CODEBLEU_NAMES["js"] == "javascript" and LANGUAGE_NAMES["cpp"] == "C++"


def test_no_other_module_spells_out_the_list() -> None:
    """No product module writes the five compiled languages out as a literal list again."""
    spelled = re.compile(r"""["']cpp["'],\s*["']java["'],\s*["']js["'],\s*["']go["']""")
    found = [
        str(path.relative_to(ROOT))
        for package in ("data_builders", "unice", "scripts")
        for path in sorted((ROOT / package).rglob("*.py"))
        if path != Path(table.__file__) and spelled.search(path.read_text(encoding="utf-8"))
    ]
    assert not found, "read data_builders.languages instead: " + ", ".join(found)
