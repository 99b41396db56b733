"""Exact, cheap signals of a candidate that no pooled embedding carries, and tell-tale cleaning.

Why: a sentence encoder's pooled vector blurs what string metrics measure exactly (how many of
the reference's character and token n-grams the candidate shares, in order) and knows nothing
of facts a parser sees at once (the candidate does not parse, uses a name it never defines,
never returns). Both are deterministic functions of the text, so training, ``model.score``,
``unice-score`` and ``evaluate.py`` compute them identically from the same fields
(:class:`unice.data.encoding.InputEncoder` is the one place that calls them).

:func:`clean_generated` removes generator tell-tales that HumanEval's bodies never have and
MBPP's training programs often do (top-level ``print``/``assert``, ``if __name__ ==
"__main__":`` blocks, the ``from typing import *`` harness prefix), so the model cannot learn
who wrote a program instead of whether it works.

Rows of another language (``language``: C++, Java, JavaScript, Go, Rust) get the same static
facts from a tree-sitter parse (:mod:`unice.data.code_parsing`) and no cleaning; the reference
overlaps are string measures and need no grammar.
"""

from __future__ import annotations

import ast
import builtins
import math
import re
import symtable
from collections import Counter
from collections.abc import Sequence

from unice.data import code_parsing
from unice.data.languages import DEFAULT_LANGUAGE, check_language

TOKEN_PATTERN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|\d+|[^\sA-Za-z0-9_]")
"""Code tokens for the token-level overlaps: identifiers, numbers, single punctuation."""

CHRF_ORDER = 6
CHRF_BETA = 2.0
LENGTH_RATIO_CLIP = 3.0
"""``log(len(g) / len(r))`` in tokens is clipped to +-3 (20x longer or shorter)."""

REFERENCE_FEATURES: tuple[str, ...] = (
    "has_reference",
    "chrf",
    "token_f1_1",
    "token_f1_2",
    "rouge_l",
    "log_length_ratio",
)
STATIC_FEATURES: tuple[str, ...] = (
    "parses",
    "defines_entry_point",
    "has_undefined_names",
    "log1p_undefined_names",
    "returns_value",
)
FEATURE_NAMES: tuple[str, ...] = REFERENCE_FEATURES + STATIC_FEATURES
"""The order of :func:`exact_features`'s vector (the head's extra inputs)."""

STRUCTURE_KINDS: tuple[str, ...] = (
    "Call",
    "Subscript",
    "Slice",
    "Attribute",
    "Assign",
    "AugAssign",
    "Return",
    "For",
    "While",
    "If",
    "BinOp",
    "Compare",
    "BoolOp",
    "UnaryOp",
    "comprehension",
)
"""AST node kinds whose count in g is compared with the reference's (``structure_features``):
the operations whose loss or addition most often turns a program into one that crashes (a
dropped call leaves a value of the wrong type, a lost assignment an unbound name, an extra
subscript an index out of range)."""
STRUCTURE_FEATURES: tuple[str, ...] = tuple(f"fewer_{k}" for k in STRUCTURE_KINDS) + tuple(
    f"more_{k}" for k in STRUCTURE_KINDS
)
"""The order of :func:`structure_features`'s vector, appended after :data:`FEATURE_NAMES`."""

_BUILTINS = frozenset(dir(builtins)) | {"__name__", "__file__", "__doc__", "__builtins__"}
_BODY_WRAPPER = "def __unice_body__():\n"


def code_tokens(text: str) -> list[str]:
    """Identifiers, numbers and punctuation of ``text`` (whitespace dropped)."""
    return TOKEN_PATTERN.findall(text)


def _ngrams(items: Sequence, n: int) -> Counter:
    return Counter(tuple(items[i : i + n]) for i in range(len(items) - n + 1))


def _f_score(matches: int, hyp_total: int, ref_total: int, beta: float = 1.0) -> float:
    if not matches or not hyp_total or not ref_total:
        return 0.0
    precision, recall = matches / hyp_total, matches / ref_total
    b2 = beta * beta
    return (1 + b2) * precision * recall / (b2 * precision + recall)


def chrf(
    hypothesis: str, reference: str, order: int = CHRF_ORDER, beta: float = CHRF_BETA
) -> float:
    """chrF (Popovic 2015) with whitespace removed: mean character n-gram precision and recall
    over n = 1..order, combined as an F-beta score (beta 2 weighs recall more)."""
    hyp, ref = re.sub(r"\s+", "", hypothesis), re.sub(r"\s+", "", reference)
    precisions, recalls = [], []
    for n in range(1, order + 1):
        h, r = _ngrams(hyp, n), _ngrams(ref, n)
        if not h or not r:
            continue
        matches = sum((h & r).values())
        precisions.append(matches / sum(h.values()))
        recalls.append(matches / sum(r.values()))
    if not precisions:
        return 0.0
    p, r = sum(precisions) / len(precisions), sum(recalls) / len(recalls)
    if p + r == 0:
        return 0.0
    b2 = beta * beta
    return (1 + b2) * p * r / (b2 * p + r)


def ngram_f1(hyp_tokens: Sequence[str], ref_tokens: Sequence[str], n: int) -> float:
    """F1 of the clipped n-gram matches of two token lists (ROUGE-N's F)."""
    h, r = _ngrams(hyp_tokens, n), _ngrams(ref_tokens, n)
    return _f_score(sum((h & r).values()), sum(h.values()), sum(r.values()))


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel (Hyyro 2004): one big-integer
    step per token of ``b`` instead of a ``len(a) x len(b)`` table."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for position, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << position)
    full = (1 << len(a)) - 1
    row = full
    for token in b:
        matched = row & masks.get(token, 0)
        row = ((row + matched) | (row - matched)) & full
    return len(a) - bin(row).count("1")


def rouge_l(hyp_tokens: Sequence[str], ref_tokens: Sequence[str]) -> float:
    """ROUGE-L F1 of two token lists (LCS-based precision and recall)."""
    return _f_score(lcs_length(hyp_tokens, ref_tokens), len(hyp_tokens), len(ref_tokens))


def reference_features(generated: str, reference: str | None) -> list[float]:
    """:data:`REFERENCE_FEATURES` of ``generated`` against ``reference`` (all 0 without one)."""
    if not reference or not reference.strip():
        return [0.0] * len(REFERENCE_FEATURES)
    g, r = code_tokens(generated), code_tokens(reference)
    ratio = math.log((len(g) + 1) / (len(r) + 1))
    ratio = max(-LENGTH_RATIO_CLIP, min(LENGTH_RATIO_CLIP, ratio)) / LENGTH_RATIO_CLIP
    return [
        1.0,
        chrf(generated, reference),
        ngram_f1(g, r, 1),
        ngram_f1(g, r, 2),
        rouge_l(g, r),
        ratio,
    ]


def entry_point(nl: str | None, reference: str | None) -> str | None:
    """The function the task asks for: the last ``def`` of the prompt (HumanEval/MBPP's ``nl``),
    else the first top-level ``def`` of the reference; ``None`` when neither names one."""
    for source, pick in ((nl, -1), (reference, 0)):
        names = re.findall(r"^def\s+([A-Za-z_]\w*)\s*\(", source or "", flags=re.MULTILINE)
        if names:
            return names[pick]
    return None


MAX_SPLITS = 64
"""Most places :func:`_assemblies` tries for where a body's prompt stood."""


def _assemblies(generated: str, nl: str | None) -> list[tuple[str, list[int | None]]]:
    """Ways to read the candidate as a whole program, most likely first, each with the line of
    ``generated`` behind every line of the program (``None`` for a line that is not the
    candidate's).

    Under the input convention ``g`` is often a body whose prompt was stripped, sometimes with
    top-level lines (imports, helper functions) before it; with a code prompt the program is
    those lines, the prompt, then the rest. Where the prompt stood is not marked (a helper's
    body and the main body are both indented), so every indented line is a candidate place.
    """
    g_lines = generated.splitlines(keepends=True)
    own = list(range(len(g_lines)))
    out: list[tuple[str, list[int | None]]] = []
    if nl and re.search(r"^(async\s+)?def\s", nl, flags=re.MULTILINE):
        prompt = nl.rstrip("\n") + "\n"
        k = len(prompt.splitlines())
        out.append((prompt + generated, [None] * k + own))
        splits = [
            i for i, line in enumerate(g_lines) if i and line[:1] in (" ", "\t") and line.strip()
        ]
        for split in splits[:MAX_SPLITS]:  # top-level lines first, then the prompt, the body
            text = "".join(g_lines[:split]) + prompt + "".join(g_lines[split:])
            out.append((text, own[:split] + [None] * k + own[split:]))
    out.append((generated, own))
    if generated[:1] in (" ", "\t"):  # a bare body without its prompt
        out.append((_BODY_WRAPPER + generated, [None, *own]))
    return out


def assemble(generated: str, nl: str | None) -> tuple[ast.Module | None, str, list[int | None]]:
    """The reading of :func:`_assemblies` to judge the candidate by: the first that parses and
    leaves no name undefined, else the first that parses (``(tree, text, line map)``);
    ``(None, generated, map)`` when none parses. Taking the most favourable reading keeps the
    static facts from blaming the candidate for where the input convention cut its prompt."""
    readings = _assemblies(generated, nl)
    first: tuple[ast.Module, str, list[int | None]] | None = None
    for text, lines in readings:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if first is None:
            first = (tree, text, lines)
        if not undefined_names(text):
            return tree, text, lines
    return first if first is not None else (None, generated, readings[-1][1])


def undefined_names(source: str) -> int:
    """Names the program reads at module level or as a global inside a function that nothing
    in the program binds (assignment, import, def, class, parameter) and that are not
    builtins -- what pyflakes reports as ``undefined name``, found with ``symtable``."""
    try:
        table = symtable.symtable(source, "<candidate>", "exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return 0
    module_bound = {
        symbol.get_name()
        for symbol in table.get_symbols()
        if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace()
    }
    if re.search(r"^\s*from\s+\S+\s+import\s+\*", source, flags=re.MULTILINE):
        return 0  # a star import may bind anything
    missing: set[str] = set()
    stack = [table]
    while stack:
        scope = stack.pop()
        for symbol in scope.get_symbols():
            name = symbol.get_name()
            if not symbol.is_referenced() or name in _BUILTINS or name in module_bound:
                continue
            if scope is table or symbol.is_global():
                missing.add(name)
        stack.extend(scope.get_children())
    return len(missing)


def _returns_value(function: ast.AST) -> bool:
    for node in ast.walk(function):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if (
            isinstance(node, ast.Return)
            and node.value is not None
            and not (isinstance(node.value, ast.Constant) and node.value.value is None)
        ):
            return True
    return False


def static_features(
    generated: str,
    nl: str | None,
    reference: str | None,
    language: str = DEFAULT_LANGUAGE,
) -> list[float]:
    """:data:`STATIC_FEATURES` of the candidate, without running it: does the assembled
    program parse, define the entry point at top level, read names it never binds, and does
    the entry point (or, without one, any function) return a value. Code of another
    ``language`` is read with tree-sitter (:mod:`unice.data.code_parsing`), where "reads names
    it never binds" means calls functions nothing defines."""
    if check_language(language) != DEFAULT_LANGUAGE:
        return code_parsing.static_features(generated, nl, reference, language)
    tree, source, _ = assemble(generated, nl)
    if tree is None:
        return [0.0] * len(STATIC_FEATURES)
    name = entry_point(nl, reference)
    functions = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    entry = [f for f in functions if f.name == name] if name else functions
    missing = undefined_names(source)
    return [
        1.0,
        1.0 if (entry if name else True) else 0.0,
        1.0 if missing else 0.0,
        math.log1p(missing),
        1.0 if any(_returns_value(f) for f in entry) else 0.0,
    ]


def node_counts(code: str) -> Counter | None:
    """How many nodes of each AST kind ``code`` has, read as a program or as a bare body
    (``None`` when neither parses)."""
    tree, _, _ = assemble(code, None)
    if tree is None:
        return None
    return Counter(type(node).__name__ for node in ast.walk(tree))


def structure_features(
    generated: str, reference: str | None, language: str = DEFAULT_LANGUAGE
) -> list[float]:
    """:data:`STRUCTURE_FEATURES`: for each of :data:`STRUCTURE_KINDS`, whether g has fewer,
    and whether it has more, of that node kind than the reference. Both are read the same way
    (without the prompt), so a prompt's own calls or docstring never count as a difference.
    All zeros without a reference or when either side does not parse (``has_reference`` and
    ``parses`` say which), and for a ``language`` other than Python: the kinds are Python AST
    nodes, which no other grammar has."""
    if not reference or check_language(language) != DEFAULT_LANGUAGE:
        return [0.0] * len(STRUCTURE_FEATURES)
    g_counts, r_counts = node_counts(generated), node_counts(reference)
    if g_counts is None or r_counts is None:
        return [0.0] * len(STRUCTURE_FEATURES)
    fewer = [1.0 if g_counts[k] < r_counts[k] else 0.0 for k in STRUCTURE_KINDS]
    more = [1.0 if g_counts[k] > r_counts[k] else 0.0 for k in STRUCTURE_KINDS]
    return fewer + more


def exact_features(
    generated: str,
    reference: str | None,
    nl: str | None,
    structure: bool = False,
    language: str = DEFAULT_LANGUAGE,
) -> list[float]:
    """All of :data:`FEATURE_NAMES` for one row, in that order, then :data:`STRUCTURE_FEATURES`
    when ``structure``. ``language`` (a row's ``language`` field) says how the code is parsed;
    the reference overlaps are string measures that need no grammar."""
    out = reference_features(generated, reference)
    out += static_features(generated, nl, reference, language)
    if structure:
        out += structure_features(generated, reference, language)
    return out


def _is_telltale(node: ast.stmt) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        return isinstance(func, ast.Name) and func.id == "print"
    if isinstance(node, ast.ImportFrom):
        return node.module == "typing" and any(alias.name == "*" for alias in node.names)
    if isinstance(node, ast.If):
        test = node.test
        return (
            isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name)
            and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
        )
    return False


def clean_generated(code: str, nl: str | None = None, language: str = DEFAULT_LANGUAGE) -> str:
    """``code`` without its top-level tell-tales: ``print(...)`` calls, ``assert``s,
    ``if __name__ == "__main__":`` blocks and ``from typing import *`` (MBPP's harness prefix).
    Code of another ``language`` is returned as it is: the tell-tales are Python's (MBPP's
    harness), and HumanEval-X's programs carry none of them.

    The candidate is read as a whole program the way :func:`static_features` reads it (with
    its prompt, or a bare body inside a wrapper), so the column-0 lines after a body count as
    top level. Code that does not parse is returned unchanged, and code the cleaning would
    empty keeps its original text (an empty candidate is another input altogether).
    """
    if check_language(language) != DEFAULT_LANGUAGE:
        return code
    tree, source, line_of = assemble(code, nl)
    if tree is None:
        return code
    drop: set[int] = set()
    for node in tree.body:
        if _is_telltale(node) and node.end_lineno is not None:
            for number in range(node.lineno, node.end_lineno + 1):
                index = line_of[number - 1] if number - 1 < len(line_of) else None
                if index is not None:
                    drop.add(index)
    if not drop:
        return code
    lines = code.splitlines(keepends=True)
    cleaned = "".join(line for index, line in enumerate(lines) if index not in drop)
    return cleaned if cleaned.strip() else code
