"""The import graph of ``data_builders/`` and ``unice/`` has no cycle and no module imports one
from a layer above its own.

The graph is built statically: every module is parsed with :mod:`ast` and every ``import`` and
``from ... import`` of a project module counts, wherever it stands (inside functions, under
``if TYPE_CHECKING``, in ``__main__`` blocks), because a lazy import is still a dependency.
``from pkg import name`` is an edge to ``pkg.name`` when that is a module, else to ``pkg``
(its ``__init__``). Imports made from strings (``importlib.import_module``) are not seen.

The layers are listed below, lowest first; a module belongs to the layer of the longest
prefix that names it, and every module must belong to one (a new package gets a place here).
An existing edge that breaks the rules and cannot be fixed now is listed, with its reason, in
an allow-list; any other violation fails, naming the edge (or the cycle).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("data_builders", "unice")

# Lowest layer first. Prefixes are dotted module names relative to the package.
LAYERS: dict[str, list[tuple[str, ...]]] = {
    "data_builders": [
        # foundation: files, caches, settings, errors; the language table; the OpenAI client
        ("", "errors", "jsonl", "cache", "settings_file", "partial", "languages", "openai_client"),
        ("execution",),  # the sandboxed executor and the language toolchains
        ("problems",),  # problem sources and how a completion becomes a program
        ("extension",),  # extended tests from the references
        ("test_translation",),  # HE-Eval's extended tests written in HumanEval-X's languages
        ("candidates",),  # programs to label: samples, mutants, generators
        ("dataset",),  # the build pipeline, statistics, card
        # the command lines: python -m data_builders SUBCOMMAND
        ("__main__", "build", "label", "merge", "sample", "coverage", "fetch"),
    ],
    "unice": [
        ("errors", "metrics", "backbones"),
        # the model: inputs, architecture, checkpoints, and scoring (the model's inference;
        # UniCEModel.score runs it), re-exported by the package
        ("", "data", "modeling", "loading", "scoring"),
        ("training", "ice_score"),  # training UniCE; ICE-Score, a baseline metric
        ("evaluation",),
        ("usefulness",),  # CodeScore trained on human grades: folds, arm choice, its report
        ("cli", "testing", "testing_http"),  # command lines; test helpers
    ],
}

# Packages below others: data_builders never imports unice.
PACKAGE_ORDER = ("data_builders", "unice")

# (importer, imported): why the edge is allowed although it goes up a layer.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}

# (importer, imported): edges left out of the cycle check, with why.
ALLOWED_CYCLE_EDGES: dict[tuple[str, str], str] = {}


def _modules() -> dict[str, tuple[Path, bool]]:
    """Dotted name -> (file, is a package ``__init__``) for every module of PACKAGES."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def _owner(name: str, modules: Iterable[str]) -> str | None:
    """The project module ``name`` is (or is inside); None for outside modules."""
    known = set(modules)
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (anywhere in its source)."""
    return {module: set(targets) for module, targets in _import_graph().items()}


@functools.cache
def _import_graph() -> dict[str, frozenset[str]]:
    modules = _modules()
    graph: dict[str, frozenset[str]] = {}
    for name, (path, is_package) in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets.update(_owner(alias.name, modules) or "" for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:  # relative: from the module's package, up level - 1
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[: len(base) - (node.level - 1)]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    targets.add(full if full in modules else (_owner(source, modules) or ""))
        targets.discard("")
        targets.discard(name)
        graph[name] = frozenset(targets)
    return graph


def layer_of(module: str) -> tuple[str, int]:
    """(package, layer index) of ``module``; AssertionError when no layer names it."""
    package, _, rest = module.partition(".")
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, prefixes in enumerate(LAYERS[package]):
        for prefix in prefixes:
            if prefix == "" or rest == prefix or rest.startswith(prefix + "."):
                length = len(prefix.split(".")) if prefix else 0
                if best is None or length > best[0]:
                    best = (length, index)
    assert best is not None, f"{module} is in no layer: add it to LAYERS in {__file__}"
    return package, best[1]


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (``[a, b, ..., a]``), or None; iterative depth-first search."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for start in sorted(graph):
        if state.get(start):
            continue
        path = [start]
        stack = [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            child = next(stack[-1], None)
            if child is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(child) == 1:
                return [*path[path.index(child) :], child]
            elif not state.get(child):
                state[child] = 1
                path.append(child)
                stack.append(iter(sorted(graph.get(child, ()))))
    return None


def test_the_graph_sees_lazy_and_relative_imports() -> None:
    graph = import_graph()
    # inside a function (dataset/pipeline.py's _candidates)
    assert "data_builders.candidates.local" in graph["data_builders.dataset.pipeline"]
    # `from data_builders.dataset import decontaminate` is an edge to the submodule
    assert "data_builders.dataset.decontaminate" in graph["data_builders.dataset.finalize"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_every_module_has_a_layer() -> None:
    for module in import_graph():
        layer_of(module)


def test_no_import_cycle() -> None:
    graph = import_graph()
    for (importer, imported), _reason in ALLOWED_CYCLE_EDGES.items():
        assert imported in graph[importer], f"allow-listed edge {importer} -> {imported} is gone"
        graph[importer] = graph[importer] - {imported}
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_module_imports_a_higher_layer() -> None:
    violations = []
    for importer, targets in sorted(import_graph().items()):
        package, layer = layer_of(importer)
        for imported in sorted(targets):
            other, other_layer = layer_of(imported)
            if other != package:
                upward = PACKAGE_ORDER.index(other) > PACKAGE_ORDER.index(package)
            else:
                upward = other_layer > layer
            if upward and (importer, imported) not in ALLOWED_UPWARD:
                violations.append(f"{importer} -> {imported}")
    assert not violations, "imports from a higher layer:\n" + "\n".join(violations)


# The executor's public API is its package (``data_builders/execution/__init__.py``): no module
# outside ``data_builders.execution`` imports one of its submodules.
PUBLIC_API_PACKAGES = ("data_builders.execution",)


def test_outside_modules_import_only_the_executor_s_public_api() -> None:
    violations = [
        f"{importer} -> {imported}"
        for importer, targets in sorted(import_graph().items())
        for package in PUBLIC_API_PACKAGES
        if importer != package and not importer.startswith(package + ".")
        for imported in sorted(targets)
        if imported.startswith(package + ".")
    ]
    assert not violations, (
        "import from the package instead (add the name to its __init__ if it is not there):\n"
        + "\n".join(violations)
    )


def test_allow_lists_name_existing_edges() -> None:
    """An allow-listed edge that was removed must leave the list (so it cannot come back)."""
    graph = import_graph()
    stale = [f"{a} -> {b}" for a, b in ALLOWED_UPWARD if b not in graph.get(a, ())]
    assert not stale, "remove from ALLOWED_UPWARD: " + ", ".join(stale)
