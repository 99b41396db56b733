"""The one language table: every programming language UniCE labels and scores, and every fact
about it that more than one layer needs.

Why one table: the names, aliases and toolchains of the six languages were written out in the
executor, the problem loaders, the test translation, the dataset builder, the model's features
and the evaluation's baselines, each its own copy, and a copy that missed a language failed
late and far from the cause. Each of those now reads this table (directly, or through the
executor's ``COMPILED_LANGUAGES``/``LANGUAGE_ALIASES``, which are made from it), and
``tests/languages/test_language_table.py`` checks that every per-language mapping a layer still
keeps for its own code (literal writers, grammars' node types, test openers) covers exactly the
table's languages.

It is a foundation module (it imports nothing of the project), so every layer of
``data_builders`` and ``unice`` may import it. What stays in a layer is how that layer handles
a language (how C++ literals are spelt, how a Java test is split, which tree-sitter nodes are
calls): code, not facts shared between layers.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ALIASES",
    "COMPILED",
    "HUMANEVAL_X",
    "NAMES",
    "TABLE",
    "LanguageInfo",
    "language_info",
]


@dataclass(frozen=True)
class LanguageInfo:
    """One language's facts, as the layers use them."""

    name: str
    """The project's name for it: a row's ``language`` field, ``Program.language``, the key of
    every per-language mapping (``cpp``, not ``C++``)."""
    display: str
    """How people write it (reports, dataset cards, ICE-Score's prompt)."""
    family: str
    """``python`` (the executor's pre-imported Python workers) or ``compiled`` (the compile
    server and runners of ``execution/compiled/``; JavaScript too, although node compiles
    nothing)."""
    extension: str
    """A source file's extension."""
    aliases: tuple[str, ...] = ()
    """Other names the executor accepts for it (lower case; MultiPL-E's ``rs``, ``go_test.go``)."""
    toolchain: tuple[str, ...] = ()
    """The executables labelling it needs on ``PATH`` (Python: the running interpreter)."""
    install_hint: str = ""
    """What to install when the toolchain is missing."""
    stop_tokens: tuple[str, ...] = ()
    """Where a model's continuation of a function prompt is cut: MultiPL-E's stop tokens for the
    language (``build humaneval-x --generate``, MultiPL-E rows made from HumanEval-X)."""
    tree_sitter: str | None = None
    """The tree-sitter grammar package the model's static features parse it with (None: Python,
    read with :mod:`ast`)."""
    codebleu: str = ""
    """codebleu's name for it (CodeBLEU's ``lang``)."""
    humaneval_x_prefix: str | None = None
    """The task-id prefix of its HumanEval-X tasks (``CPP`` in ``CPP/0``); None: not read from
    HumanEval-X (Python's problems come from HumanEval itself)."""
    humaneval_x_config: str | None = None
    """Its THUDM/humaneval-x hub config, also the file ``humaneval_<config>.jsonl.gz``."""
    multipl_e: str | None = None
    """The ``language`` field of MultiPL-E's rows in it (None: not labelled from MultiPL-E)."""


TABLE: tuple[LanguageInfo, ...] = (
    LanguageInfo("python", "Python", "python", ".py", codebleu="python"),
    LanguageInfo(
        "cpp", "C++", "compiled", ".cpp",
        aliases=("c++",),
        toolchain=("g++",),
        install_hint="apt install g++",
        stop_tokens=("\n}",),
        tree_sitter="tree_sitter_cpp",
        codebleu="cpp",
        humaneval_x_prefix="CPP", humaneval_x_config="cpp",
        multipl_e="cpp",
    ),
    LanguageInfo(
        "java", "Java", "compiled", ".java",
        toolchain=("javac", "java"),
        install_hint="apt install default-jdk-headless libjavatuples-java",
        stop_tokens=("\n    }\n",),
        tree_sitter="tree_sitter_java",
        codebleu="java",
        humaneval_x_prefix="Java", humaneval_x_config="java",
        multipl_e="java",
    ),
    LanguageInfo(
        "js", "JavaScript", "compiled", ".js",
        aliases=("javascript", "node"),
        toolchain=("node",),
        install_hint="apt install nodejs",
        stop_tokens=("\nfunction ", "\n/*", "\n//", "\nconsole.log"),
        tree_sitter="tree_sitter_javascript",
        codebleu="javascript",
        humaneval_x_prefix="JavaScript", humaneval_x_config="js",
        multipl_e="js",
    ),
    LanguageInfo(
        "go", "Go", "compiled", ".go",
        aliases=("golang", "go_test.go"),
        toolchain=("go",),
        install_hint="apt install golang-go golang-github-stretchr-testify-dev",
        stop_tokens=("\nfunc", "struct", "\n// "),
        tree_sitter="tree_sitter_go",
        codebleu="go",
        humaneval_x_prefix="Go", humaneval_x_config="go",
        multipl_e="go_test.go",
    ),
    LanguageInfo(
        "rust", "Rust", "compiled", ".rs",
        aliases=("rs",),
        toolchain=("rustc",),
        install_hint="apt install rustc (or rustup)",
        stop_tokens=("\n}",),
        tree_sitter="tree_sitter_rust",
        codebleu="rust",
        humaneval_x_prefix="Rust", humaneval_x_config="rust",
        multipl_e="rs",
    ),
)  # fmt: skip

NAMES: tuple[str, ...] = tuple(info.name for info in TABLE)
"""Every language, Python first (the default of a row without a ``language`` field)."""
COMPILED: tuple[str, ...] = tuple(info.name for info in TABLE if info.family == "compiled")
"""The languages of ``execution/compiled/`` (C++, Java, JavaScript, Go, Rust)."""
HUMANEVAL_X: tuple[str, ...] = tuple(info.name for info in TABLE if info.humaneval_x_config)
"""The languages HE-Eval-X is built in (``build humaneval-x --language``)."""
ALIASES: dict[str, str] = {alias: info.name for info in TABLE for alias in info.aliases}
"""Other name -> the project's name (``c++`` -> ``cpp``)."""

_BY_NAME = {info.name: info for info in TABLE}


def language_info(name: str) -> LanguageInfo:
    """The row of ``name`` (the project's name, exactly); a ValueError naming the known ones."""
    info = _BY_NAME.get(name)
    if info is None:
        raise ValueError(f"unknown language {name!r} (known: {', '.join(NAMES)})")
    return info
