"""Static facts of a C++, Java, JavaScript, Go or Rust candidate, read with tree-sitter.

Why: :func:`unice.data.features.static_features` parses with Python's :mod:`ast`, so code of
any other language would get every static feature 0 ("does not parse") whatever its quality.
tree-sitter parses all of them with one API, without a compiler, in microseconds, and never
raises on bad input (it marks what it could not read with ERROR and MISSING nodes), so the
same five facts -- the program parses, defines its entry point, calls functions nothing
defines, returns a value -- mean the same thing in every language.

The candidate is read the way HumanEval-X writes it: ``nl`` (declarations, doc comment, the
signature up to its opening ``{``) followed by ``generated`` (the body that continues it and
closes what the prompt left open). Readings that do not blame the candidate for the input
convention are tried too (the code alone, a bare body inside a wrapper function, closing
braces a stop sequence cut off), as Python's :func:`~unice.data.features.assemble` does.

Which library functions a language may call without defining them lives in
``configs/language_builtins.yaml`` (derived from HumanEval-X's canonical solutions).
"""

from __future__ import annotations

import functools
import importlib
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from data_builders.languages import language_info
from unice.errors import UniCEError

BUILTINS_FILE = Path(__file__).resolve().parents[2] / "configs" / "language_builtins.yaml"
"""Per-language names a program may call without defining them (a YAML mapping of lists)."""

MAX_PARSE_CHARS = 200_000
"""Longer text counts as not parsing: a deterministic bound on time instead of a parser
timeout (HumanEval-X programs are under 5,000 characters)."""

MAX_CLOSERS = 3
"""Most closing braces added to a reading that a stop sequence cut short (Java's prompt leaves
a class and a method open, so a body cut before both needs two)."""

N_STATIC = 5
"""Length of :data:`unice.data.features.STATIC_FEATURES` (which imports this module)."""

WRAPPER_NAME = "__unice_body__"
"""The function a bare body is wrapped in when no prompt gives it its signature."""

BINDING_FIELDS = frozenset({"declarator", "name", "pattern", "left", "parameters", "parameter"})
"""Fields of a declaring node whose identifiers are names the program binds (variables,
functions, parameters, types, loop variables)."""

NOT_DECLARING = frozenset(
    {
        "call_expression",
        "method_invocation",
        "binary_expression",
        "field_access",
        "field_expression",
        "member_expression",
        "selector_expression",
        "scoped_identifier",
        "qualified_identifier",
        "template_function",
        "scoped_type_identifier",
        "generic_function",
    }
)
"""Nodes whose ``name``/``left`` fields use a name instead of binding it (``obj.name(...)``,
``a::name``, ``left + right``)."""


@dataclass(frozen=True)
class Grammar:
    """What tree-sitter calls the things the static features look at, in one language (its
    grammar package is the language table's ``tree_sitter``, :mod:`data_builders.languages`)."""

    wrapper: str
    """A function header that a bare body (closing its own function) continues."""
    functions: frozenset[str]
    """Nodes that define a named function or method."""
    calls: frozenset[str]
    """Call nodes (callee in field ``function``; Java's ``method_invocation``: ``name``)."""
    returns: frozenset[str]
    """Return statements/expressions."""
    imports: frozenset[str] = frozenset()
    """Nodes every identifier of which is a name the program binds (imports, ``using``)."""


GRAMMARS: dict[str, Grammar] = {
    "cpp": Grammar(
        f"auto {WRAPPER_NAME}() {{\n",
        frozenset({"function_definition"}),
        frozenset({"call_expression"}),
        frozenset({"return_statement"}),
        frozenset({"using_declaration"}),
    ),
    "java": Grammar(
        f"class UniceBody {{\nObject {WRAPPER_NAME}() {{\n",
        frozenset({"method_declaration", "constructor_declaration"}),
        frozenset({"method_invocation"}),
        frozenset({"return_statement"}),
        frozenset({"import_declaration"}),
    ),
    "js": Grammar(
        f"function {WRAPPER_NAME}() {{\n",
        frozenset(
            {
                "function_declaration",
                "generator_function_declaration",
                "method_definition",
                "variable_declarator",
            }
        ),
        frozenset({"call_expression"}),
        frozenset({"return_statement"}),
        frozenset({"import_statement"}),
    ),
    "go": Grammar(
        f"func {WRAPPER_NAME}() {{\n",
        frozenset({"function_declaration", "method_declaration"}),
        frozenset({"call_expression"}),
        frozenset({"return_statement"}),
    ),
    "rust": Grammar(
        f"fn {WRAPPER_NAME}() {{\n",
        frozenset({"function_item"}),
        frozenset({"call_expression"}),
        frozenset({"return_expression"}),
        frozenset({"use_declaration"}),
    ),
}

JS_FUNCTION_VALUES = frozenset(
    {"arrow_function", "function_expression", "function", "generator_function"}
)
"""Values that make a JavaScript ``const f = ...`` a function definition."""

RUST_BRANCHING = frozenset(
    {"if_expression", "match_expression", "block", "unsafe_block", "else_clause", "match_block"}
)
RUST_NO_VALUE = frozenset(
    {
        "for_expression",
        "while_expression",
        "loop_expression",
        "assignment_expression",
        "compound_assignment_expr",
        "unit_expression",
        "let_declaration",
    }
)
"""Rust tail expressions whose value is ``()``."""

Node = Any
"""A ``tree_sitter.Node`` (the package is imported lazily, only for non-Python rows)."""


# -- parsing ----------------------------------------------------------------------------------
@functools.cache
def _parser(language: str) -> Any:
    """The language's ``tree_sitter.Parser``, built once (a grammar load takes milliseconds)."""
    name = language_info(language).tree_sitter
    if name is None:
        raise UniCEError(
            f"{language} code is not parsed with tree-sitter (no grammar in the table)"
        )
    try:
        import tree_sitter

        module = importlib.import_module(name)
    except ImportError as exc:
        package = name.replace("_", "-")
        raise UniCEError(
            f"exact features of {language} code need tree-sitter and {package} "
            f"(pip install 'tree-sitter~=0.22' {package}): {exc}"
        ) from None
    return tree_sitter.Parser(tree_sitter.Language(module.language()))


def _parse(text: str, language: str) -> Node | None:
    """The root node of ``text`` (``None`` when it is too long to read)."""
    if len(text) > MAX_PARSE_CHARS:
        return None
    parser = _parser(language)
    try:
        return parser.parse(text.encode("utf-8", "replace")).root_node
    except ValueError:  # the parser gave up (no timeout is set; kept total all the same)
        parser.reset()
        return None


def _closed_parse(text: str, language: str) -> Node | None:
    """The root of ``text`` with the fewest closing braces (0..MAX_CLOSERS) that make it parse
    without ERROR or MISSING nodes; ``None`` when none does."""
    for closers in range(MAX_CLOSERS + 1):
        root = _parse(text + "\n}" * closers, language)
        if root is None:
            return None
        if not root.has_error:
            return root
    return None


def _text(node: Node) -> str:
    return node.text.decode("utf-8", "replace")


def _walk(root: Node) -> Iterator[Node]:
    """Every node under ``root`` in document order, without recursion (deep trees are fine)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


# -- functions and the entry point ------------------------------------------------------------
def function_name(node: Node, language: str) -> str | None:
    """The name ``node`` defines when it is a function definition of ``language``, else None
    (a JavaScript ``const f = (...) => ...`` defines ``f``; a C++ ``A::f`` defines ``f``)."""
    if node.type not in GRAMMARS[language].functions:
        return None
    if node.type == "variable_declarator":
        value = node.child_by_field_name("value")
        if value is None or value.type not in JS_FUNCTION_VALUES:
            return None
    if node.type == "function_definition":  # C++: the name ends a chain of declarators
        name = _innermost(node, "declarator")
    else:
        name = node.child_by_field_name("name")
    name = _innermost(name, "name") if name is not None else None  # A::B::f
    if name is None or not ("identifier" in name.type or name.type.endswith("_name")):
        return None
    return _text(name)


def _innermost(node: Node, field: str) -> Node:
    """``node``'s ``field`` child's ``field`` child ... as deep as the chain goes."""
    while (inner := node.child_by_field_name(field)) is not None:
        node = inner
    return node


def definitions(root: Node, language: str) -> list[tuple[str, Node]]:
    """``(name, node)`` of every function the tree defines, in document order."""
    found = []
    for node in _walk(root):
        name = function_name(node, language)
        if name:
            found.append((name, node))
    return found


@functools.lru_cache(maxsize=1024)
def entry_point(nl: str | None, reference: str | None, language: str) -> str | None:
    """The function the task asks for: the last one ``nl`` declares (HumanEval-X's prompt ends
    with its signature), else the first one the reference defines; ``None`` when neither
    names one (HumanEval-X's Rust prompt is a comment, its reference a bare body)."""
    for source, pick in ((nl, -1), (reference, 0)):
        if not source or not source.strip():
            continue
        root = _closed_parse(source, language) or _parse(source, language)
        names = [n for n, _ in definitions(root, language) if n != WRAPPER_NAME] if root else []
        if names:
            return names[pick]
    return None


# -- names ------------------------------------------------------------------------------------
@functools.cache
def library_names(language: str) -> frozenset[str]:
    """The names ``language``'s programs call without defining them, from :data:`BUILTINS_FILE`."""
    import yaml

    try:
        table = yaml.safe_load(BUILTINS_FILE.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise UniCEError(f"cannot read {BUILTINS_FILE}: {exc}") from None
    names = table.get(language, []) if isinstance(table, dict) else None
    if not isinstance(names, list):
        raise UniCEError(f"{BUILTINS_FILE}: {language!r} must map to a list of names")
    return frozenset(str(n) for n in names)


def bound_names(root: Node, language: str) -> set[str]:
    """Names the program binds anywhere: functions, variables, parameters, types, loop
    variables, imports. Scopes are ignored (a name bound anywhere counts everywhere), so a
    call is only blamed when nothing at all could have defined its callee."""
    imports = GRAMMARS[language].imports
    bound: set[str] = set()
    stack: list[tuple[Node, int]] = [(root, 0)]  # mode 0: use, 1: binding field, 2: import
    while stack:
        node, mode = stack.pop()
        if mode and node.is_named and "identifier" in node.type:
            bound.add(_text(node))
        for index, child in enumerate(node.children):
            stack.append((child, _child_mode(node, index, child, mode, imports)))
    return bound


def _child_mode(parent: Node, index: int, child: Node, mode: int, imports: frozenset[str]) -> int:
    """How ``bound_names`` reads a child: inside an import everything binds; a declaring
    node's binding field binds; inside a binding field, unnamed-field children still do."""
    if mode == 2 or child.type in imports:
        return 2
    if parent.type in NOT_DECLARING:
        return 0
    field = parent.field_name_for_child(index)
    if field in BINDING_FIELDS:
        return 1
    return mode if field is None else 0


def called_names(root: Node, language: str) -> set[str]:
    """Plain-identifier callees (``f(x)``; not ``a.f(x)``, ``std::f(x)`` or ``f<T>(x)``)."""
    calls = GRAMMARS[language].calls
    names = set()
    for node in _walk(root):
        if node.type not in calls:
            continue
        if node.type == "method_invocation":  # Java: plain when it has no object
            callee = (
                None if node.child_by_field_name("object") else node.child_by_field_name("name")
            )
        else:
            callee = node.child_by_field_name("function")
        if callee is not None and callee.type == "identifier":
            names.add(_text(callee))
    return names


def undefined_calls(root: Node, language: str) -> set[str]:
    """Functions the program calls that it never defines and the language does not provide."""
    known = bound_names(root, language) | library_names(language) | {WRAPPER_NAME}
    return called_names(root, language) - known


# -- return values ----------------------------------------------------------------------------
def returns_value(function: Node, language: str) -> bool:
    """Does ``function`` (nested functions included, as Python's check) return a value: a
    return with an operand, a JavaScript arrow's expression body, a Rust tail expression, a Go
    bare return of named results."""
    if function.type == "variable_declarator":
        function = function.child_by_field_name("value") or function
    body = function.child_by_field_name("body")
    if function.type == "arrow_function" and body is not None and body.type != "statement_block":
        return True
    if language == "rust" and body is not None and _rust_tail_value(body):
        return True
    named_results = language == "go" and _go_named_results(function)
    returns = GRAMMARS[language].returns
    return any(
        node.type in returns and (named_results or _operand(node) is not None)
        for node in _walk(function)
    )


def _operand(node: Node) -> Node | None:
    return next((c for c in node.named_children if "comment" not in c.type), None)


def _go_named_results(function: Node) -> bool:
    """Does a Go function name its results (``(n int)``), so a bare ``return`` returns them."""
    result = function.child_by_field_name("result")
    return result is not None and any(
        p.child_by_field_name("name") is not None
        for p in result.named_children
        if p.type == "parameter_declaration"
    )


def _rust_tail_value(block: Node) -> bool:
    """Does a Rust block end in an expression with a value (its last expression without
    ``;``; through ``if``/``match``/nested blocks, any branch with one counts)."""
    items = [c for c in block.named_children if "comment" not in c.type]
    if not items:
        return False
    tail = items[-1]
    if tail.type == "expression_statement":
        if tail.children and tail.children[-1].type == ";":
            return False
        tail = _operand(tail)
    if tail is None or tail.type in RUST_NO_VALUE or tail.type.endswith("_item"):
        return False
    if tail.type in RUST_BRANCHING:
        return any(_rust_branch_value(c) for c in tail.named_children) or (
            tail.type in ("block", "unsafe_block") and _rust_tail_value(tail)
        )
    return True


def _rust_branch_value(node: Node) -> bool:
    if node.type == "block":
        return _rust_tail_value(node)
    if node.type in ("else_clause", "match_block", "if_expression"):
        return any(_rust_branch_value(c) for c in node.named_children)
    if node.type == "match_arm":
        value = node.child_by_field_name("value")
        return value is not None and (
            _rust_tail_value(value) if value.type == "block" else value.type not in RUST_NO_VALUE
        )
    return False


# -- the candidate as a program ---------------------------------------------------------------
def readings(generated: str, nl: str | None, language: str) -> list[str]:
    """Ways to read the candidate as a whole program, most likely first: after its prompt,
    alone (a whole program), and as a bare body inside a wrapper function."""
    out = [nl + generated] if nl and nl.strip() else []
    return [*out, generated, GRAMMARS[language].wrapper + generated]


def assemble(generated: str, nl: str | None, language: str) -> Node | None:
    """The reading to judge the candidate by: the first that parses and calls nothing
    undefined, else the first that parses; ``None`` when none parses. As for Python, the
    most favourable reading keeps the input convention from counting against the candidate."""
    first = None
    for text in readings(generated, nl, language):
        root = _closed_parse(text, language)
        if root is None:
            continue
        if not undefined_calls(root, language):
            return root
        if first is None:
            first = root
    return first


def static_features(
    generated: str, nl: str | None, reference: str | None, language: str
) -> list[float]:
    """:data:`~unice.data.features.STATIC_FEATURES` of a ``language`` candidate: does the
    assembled program parse, define the entry point, call functions nothing defines, and does
    the entry point (without one: any function) return a value. All 0 when it does not parse."""
    root = assemble(generated or "", nl, language)
    if root is None:
        return [0.0] * N_STATIC
    name = entry_point(nl, reference, language)
    functions = definitions(root, language)
    entry = [node for n, node in functions if n == name] if name else [n for _, n in functions]
    missing = len(undefined_calls(root, language))
    return [
        1.0,
        1.0 if (entry if name else True) else 0.0,
        1.0 if missing else 0.0,
        math.log1p(missing),
        1.0 if any(returns_value(f, language) for f in entry) else 0.0,
    ]
