"""Wrong (and sometimes still right) programs made by mutating the reference solution's AST.

Why: offline there is no model to sample from, yet training a learned metric needs programs
with a *spread* of PassRatios. Small semantic edits of a correct program (as in mutation
testing) give exactly that: some break every test, some only edge cases, a few are
equivalent mutants that still pass. Edits are spliced into the original text at the mutated
node's position, so a mutant keeps the reference's formatting and comments (no
``ast.unparse`` style that a metric could learn to spot).

Mutation sites are restricted to function bodies and skip ``while`` loops, where a flipped
condition or a deleted increment would mostly give infinite loops (costly timeouts that
teach little).
"""

from __future__ import annotations

import ast
import copy
import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass

from data_builders.candidates.base import Candidate

OPERATORS = (
    "binop_swap",
    "compare_swap",
    "boolop_swap",
    "constant_change",
    "off_by_one",
    "negate_condition",
    "statement_deletion",
    "argument_swap",
    "return_value",
    "call_unwrap",
)
_BINOP_SWAPS = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
}
_COMPARE_SWAPS = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


@dataclass(frozen=True)
class Edit:
    """Replace source bytes ``[start, end)`` with ``text``."""

    operator: str
    start: int
    end: int
    text: str


class _Sites:
    """Byte offsets of AST nodes in one source text."""

    def __init__(self, source: str) -> None:
        self.data = source.encode("utf-8")
        self.line_starts = [0]
        for i, byte in enumerate(self.data):
            if byte == 0x0A:
                self.line_starts.append(i + 1)

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.line_starts[node.lineno - 1] + node.col_offset
        end = self.line_starts[node.end_lineno - 1] + node.end_col_offset
        return start, end

    def text(self, node: ast.AST) -> str:
        start, end = self.span(node)
        return self.data[start:end].decode("utf-8")


def _mutable_nodes(tree: ast.Module, skip_while: bool = True) -> Iterator[ast.AST]:
    """Nodes of function bodies and of top-level script code (standard-input programs),
    outside imports and docstrings (and ``while`` loops if asked)."""

    def visit(node: ast.AST, inside: bool) -> Iterator[ast.AST]:
        if skip_while and isinstance(node, ast.While):
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                body = body[1:]
            for stmt in body:
                yield from visit(stmt, True)
            return
        if inside:
            yield node
        for child in ast.iter_child_nodes(node):
            yield from visit(child, inside)

    for stmt in tree.body:
        script = not isinstance(stmt, (ast.ClassDef, ast.Expr)) or (
            isinstance(stmt, ast.Expr) and not isinstance(stmt.value, ast.Constant)
        )
        yield from visit(stmt, script)


def _edits_for(node: ast.AST, sites: _Sites) -> Iterator[Edit]:
    """Every single-operator edit applicable at ``node``."""
    if not hasattr(node, "lineno"):
        return
    start, end = sites.span(node)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
        new = copy.copy(node)
        new.op = _BINOP_SWAPS[type(node.op)]()
        yield Edit("binop_swap", start, end, f"({ast.unparse(new)})")
    elif isinstance(node, ast.Compare) and type(node.ops[0]) in _COMPARE_SWAPS:
        new = copy.copy(node)
        new.ops = [_COMPARE_SWAPS[type(node.ops[0])](), *node.ops[1:]]
        yield Edit("compare_swap", start, end, ast.unparse(new))
    elif isinstance(node, ast.BoolOp):
        new = copy.copy(node)
        new.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield Edit("boolop_swap", start, end, f"({ast.unparse(new)})")
    elif isinstance(node, ast.Constant) and type(node.value) in (int, float, bool, str):
        yield from _constant_edits(node, start, end)
    elif isinstance(node, (ast.If, ast.IfExp)):
        test_start, test_end = sites.span(node.test)
        yield Edit("negate_condition", test_start, test_end, f"not ({sites.text(node.test)})")
    elif isinstance(node, ast.Call) and len(node.args) >= 2:
        first, second = node.args[0], node.args[1]
        if not any(isinstance(a, ast.Starred) for a in (first, second)):
            a_start, a_end = sites.span(first)
            b_start, b_end = sites.span(second)
            middle = sites.data[a_end:b_start].decode("utf-8")
            text = f"{sites.text(second)}{middle}{sites.text(first)}"
            yield Edit("argument_swap", a_start, b_end, text)
    if (
        isinstance(node, ast.Call)
        and len(node.args) == 1
        and not node.keywords
        and not isinstance(node.args[0], ast.Starred)
    ):
        yield Edit("call_unwrap", start, end, f"({sites.text(node.args[0])})")
    yield from _statement_edits(node, sites, start, end)
    if isinstance(node, (ast.Subscript, ast.Call)) and _is_index_or_range(node):
        target = node.slice if isinstance(node, ast.Subscript) else node.args[-1]
        if not isinstance(target, (ast.Slice, ast.Tuple, ast.Starred)):
            t_start, t_end = sites.span(target)
            yield Edit("off_by_one", t_start, t_end, f"({sites.text(target)} + 1)")
            yield Edit("off_by_one", t_start, t_end, f"({sites.text(target)} - 1)")


def _is_index_or_range(node: ast.AST) -> bool:
    if isinstance(node, ast.Subscript):
        return hasattr(node.slice, "lineno")
    return isinstance(node.func, ast.Name) and node.func.id == "range" and bool(node.args)


def _constant_edits(node: ast.Constant, start: int, end: int) -> Iterator[Edit]:
    value = node.value
    if isinstance(value, bool):
        yield Edit("constant_change", start, end, repr(not value))
    elif isinstance(value, (int, float)):
        for new in (value + 1, value - 1, 0 if value else 1):
            yield Edit("constant_change", start, end, repr(new))
    elif isinstance(value, str) and end > start:
        yield Edit("constant_change", start, end, repr(value[1:] if value else " "))


def _statement_edits(node: ast.AST, sites: _Sites, start: int, end: int) -> Iterator[Edit]:
    if isinstance(node, ast.Return):
        if node.value is not None:
            v_start, v_end = sites.span(node.value)
            yield Edit("return_value", v_start, v_end, "None")
            if not isinstance(node.value, ast.Constant):
                yield Edit("return_value", v_start, v_end, f"not ({sites.text(node.value)})")
    elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr, ast.If, ast.For, ast.Raise)):
        yield Edit("statement_deletion", start, end, "pass")


def _apply(source: str, edits: list[Edit]) -> str:
    data = source.encode("utf-8")
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        data = data[: edit.start] + edit.text.encode("utf-8") + data[edit.end :]
    return data.decode("utf-8")


def _disjoint(edits: list[Edit]) -> bool:
    spans = sorted((e.start, e.end) for e in edits)
    return all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:], strict=False))


def all_edits(source: str, skip_while: bool = True) -> list[Edit]:
    """Every single-operator edit of ``source`` (empty when it does not parse)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    sites = _Sites(source)
    nodes = _mutable_nodes(tree, skip_while)
    return [edit for node in nodes for edit in _edits_for(node, sites)]


def _pick(rng: random.Random, by_operator: dict[str, list[Edit]], k: int) -> list[Edit]:
    """``k`` edits, each from an operator drawn uniformly (so cheap-to-find operators such as
    constant changes do not crowd out the rest)."""
    names = sorted(by_operator)
    return [rng.choice(by_operator[rng.choice(names)]) for _ in range(k)]


def _task_rng(seed: int, key: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}:mutants:{key}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def make_mutants(
    task_id: str,
    reference: str,
    count: int,
    seed: int,
    max_edits: int = 2,
    rng_key: str | None = None,
) -> list[Candidate]:
    """Up to ``count`` distinct, compilable mutants of ``reference``.

    The same (seed, task_id, reference) gives the same mutants in any process, so a shard
    or a resumed build produces identical rows. ``rng_key`` (default: the task id) names the
    random stream, so several programs of one task get their own draws.
    """
    if count <= 0:
        return []
    rng = _task_rng(seed, rng_key or task_id)
    out: list[Candidate] = []
    seen: set[str] = set()
    for skip_while in (True, False):  # loops only when the rest cannot give `count` mutants
        edits = all_edits(reference, skip_while)
        if edits and len(out) < count:
            _fill(out, seen, reference, edits, rng, count, max_edits, task_id)
    return out


def _fill(
    out: list[Candidate],
    seen: set[str],
    reference: str,
    edits: list[Edit],
    rng: random.Random,
    count: int,
    max_edits: int,
    task_id: str,
) -> None:
    by_operator: dict[str, list[Edit]] = {}
    for edit in edits:
        by_operator.setdefault(edit.operator, []).append(edit)
    seen.add(ast.dump(ast.parse(reference)))
    for _ in range(count * 30):
        if len(out) >= count:
            break
        chosen = _pick(rng, by_operator, rng.randint(1, max(1, max_edits)))
        if not _disjoint(chosen):
            continue
        program = _apply(reference, chosen)
        try:
            key = ast.dump(ast.parse(program))
            compile(program, "<mutant>", "exec")  # syntax check only; nothing is run
        except (SyntaxError, ValueError):
            continue
        if key in seen:
            continue
        seen.add(key)
        operators = "+".join(sorted({edit.operator for edit in chosen}))
        out.append(Candidate(task_id, program, f"mutant:{operators}", "mutant", len(out)))


def make_sample_mutants(
    parent: Candidate, prompt: str, count: int, seed: int, max_edits: int = 2
) -> list[Candidate]:
    """Up to ``count`` mutants of a real program (a sample), kind ``sample_mutant``.

    Why: mutants of the reference teach that *near the reference* means *broken*, which real
    generations contradict (the ones closest to the reference mostly pass). Mutants of each
    real program instead pair a program with its one-edit neighbours, whose verdicts differ
    by what string overlap cannot see. Only the text after ``prompt`` (the generator's own
    code, when the program starts with the prompt) is mutated: edits inside the prompt's
    stub would be redefined away. Row ids are ``task::sample_mutant::<parent index * count
    + j>``, stable for a fixed ``count``; ``source`` names the parent sample.
    """
    head = prompt if prompt and parent.program.startswith(prompt) else ""
    body = parent.program[len(head) :]
    mutants = make_mutants(
        parent.task_id, body, count, seed, max_edits, rng_key=f"{parent.task_id}#{parent.index}"
    )
    if not mutants and head:  # a body-only completion does not parse alone: mutate it all
        head, body = "", parent.program
        mutants = make_mutants(
            parent.task_id, body, count, seed, max_edits, rng_key=f"{parent.task_id}#{parent.index}"
        )
    return [
        Candidate(
            parent.task_id,
            head + mutant.program,
            f"{mutant.source} of {parent.kind}:{parent.index}",
            "sample_mutant",
            parent.index * count + j,
        )
        for j, mutant in enumerate(mutants)
    ]


def make_text_mutants(
    task_id: str, prompt: str, reference: str, count: int, seed: int
) -> list[Candidate]:
    """Up to ``count`` one-edit mutants of a C++/Java/JavaScript/Go/Rust reference, kind
    ``mutant``: a comparison, arithmetic operator, boolean or constant changed at a seeded
    site (:func:`data_builders.problems.multipl_e_rows.mutants`).

    Why textual: these languages have no parser in the standard library that could check a
    mutant the way :func:`make_mutants` does with ``ast``; a mutant that no longer compiles
    is a real candidate too (labelled ``compile_error``). Only the text after ``prompt`` is
    edited, so the declaration the tests call stays intact. The same (seed, task) gives the
    same mutants in any process.
    """
    from data_builders.problems.multipl_e_rows import mutants

    head = prompt if prompt and reference.startswith(prompt) else ""
    body = reference[len(head) :]
    edited = mutants(body, count, _task_rng(seed, task_id))
    return [
        Candidate(task_id, head + program, "mutant:one_edit", "mutant", index)
        for index, program in enumerate(edited)
    ]
