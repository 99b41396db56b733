"""What a language model is asked, and how its text becomes a complete program.

Two ways to ask, chosen per dataset in ``configs/build/<dataset>.yaml`` (``generation.prompt``):

* ``complete``: the model continues the problem's prompt (HumanEval: signature + docstring),
  the text is cut at the first stop sequence (Codex's ``\\ndef``, ``\\nclass``, ...) and at
  the first line that leaves the function, and appended to the prompt. This is how base
  code models are evaluated.
* ``chat``: an instruction (``generation.instruction``, a template) is sent as one user
  message, through the model's chat template when it has one; the code is pulled out of the
  reply (:func:`extract_code`), which chat models wrap in prose and markdown fences.

A served model (an OpenAI-compatible server) is always asked through chat, whatever the mode:
those servers speak chat completions. Why the reply is *assembled* with the prompt rather than
used alone: a chat model usually restates the whole function, but sometimes only its body,
and a HumanEval/MBPP prompt also carries imports and helper functions the tests need.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from data_builders.errors import UserError
from data_builders.problems.base import Problem, compiles
from data_builders.problems.stops import cut_at_stops

STOP = re.compile(r"\n(?=\S)")  # a line that starts at column 0 ends the function
SCRIPT_STOP = re.compile(r"\n(?=QUESTION:|ANSWER:|-{5})")  # APPS: the next problem begins
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*$", re.MULTILINE)
_CODE_START = re.compile(
    r"^(def |class |import |from |async def |@|[A-Za-z_]\w* *=|if |for |while )"
)
_NOT_PYTHON = {"text", "txt", "plaintext", "console", "bash", "sh", "shell", "output", "json"}
TEMPLATE_FIELDS = ("prompt", "nl", "starter_code", "entry_point", "io_format")


def template_values(problem: Problem) -> dict[str, str]:
    """The fields an instruction template may use (see ``configs/build/*.yaml``)."""
    meta = problem.metadata or {}
    entry = problem.entry_point or ""
    if meta.get("kind") == "stdio":
        io_format = "Read the input from standard input and print the answer to standard output."
    elif meta.get("kind") == "call":
        io_format = (
            f"Implement `{entry}` as in the starter code; it is called with the arguments, "
            "do not read input."
        )
    else:
        io_format = f"Implement the function `{entry}`."
    return {
        "prompt": problem.prompt or "",
        "nl": problem.nl or "",
        "starter_code": str(meta.get("starter_code") or ""),
        "entry_point": entry,
        "io_format": io_format,
    }


def render_instruction(template: str, problem: Problem) -> str:
    """``template`` with ``{prompt}``, ``{nl}``, ``{starter_code}``, ``{entry_point}``,
    ``{io_format}`` filled in (``{{`` and ``}}`` for literal braces)."""
    try:
        return template.format_map(template_values(problem)).strip() + "\n"
    except (KeyError, IndexError, ValueError) as exc:
        raise UserError(
            f"generation.instruction: bad placeholder {exc} in the template; use only "
            f"{', '.join('{' + f + '}' for f in TEMPLATE_FIELDS)} (and {{{{ }}}} for braces)"
        ) from None


def chat_messages(template: str, problem: Problem, system: str = "") -> list[dict[str, str]]:
    """The chat a chat model (local or served) is sent for ``problem``."""
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": render_instruction(template, problem)})
    return messages


def truncate_completion(text: str, whole_program: bool = False) -> str:
    """The completion up to (not including) the first line that starts at column 0 — or,
    for whole programs (APPS), up to a line that starts another problem."""
    match = (SCRIPT_STOP if whole_program else STOP).search(text)
    return text[: match.start() + 1] if match else text


def _fenced_blocks(reply: str) -> list[tuple[str, str]]:
    """``(language, code)`` of each fenced block; an unclosed last fence (a reply cut by the
    token limit) runs to the end of the reply."""
    blocks: list[tuple[str, str]] = []
    matches = list(_FENCE.finditer(reply))
    i = 0
    while i < len(matches):
        opening = matches[i]
        closing = next(
            (
                m
                for m in matches[i + 1 :]
                if m.group(1)[0] == opening.group(1)[0] and not m.group(2)
            ),
            None,
        )
        end = closing.start() if closing else len(reply)
        blocks.append((opening.group(2).lower(), reply[opening.end() + 1 : end]))
        if closing is None:
            break
        i = matches.index(closing) + 1
    return blocks


def extract_code(reply: str, entry_point: str | None = None) -> str:
    """The program in a chat reply.

    Fenced blocks first: the first Python (or untagged) block that defines the entry point's
    function, else the longest such block (a reply often shows the solution, then a usage
    example). Without fences: the reply from its first line that looks like code, when that
    compiles, else the reply as it is (so a broken answer keeps its compile error).
    """
    name = (entry_point or "").split(".")[-1]
    blocks = [code for lang, code in _fenced_blocks(reply) if lang not in _NOT_PYTHON]
    if blocks:
        if name:
            defining = [c for c in blocks if re.search(rf"^\s*def {re.escape(name)}\s*\(", c, re.M)]
            if defining:
                return _dedent_block(defining[0])
        return _dedent_block(max(blocks, key=len))
    lines = reply.splitlines(keepends=True)
    for start, line in enumerate(lines):
        if _CODE_START.match(line):
            code = "".join(lines[start:])
            return code if compiles(code) else reply
    return reply


def _dedent_block(code: str) -> str:
    import textwrap

    return textwrap.dedent(code).rstrip() + "\n"


def defines(code: str, entry_point: str | None) -> bool:
    """Whether ``code`` defines the entry point (``f`` or ``Solution.f``) at its top level."""
    if not entry_point:
        return False
    head = entry_point.split(".")[0]
    return re.search(rf"^(def|class) {re.escape(head)}\b", code, re.MULTILINE) is not None


def program_from_reply(problem: Problem, code: str) -> str:
    """A complete program from code extracted from a chat reply.

    Standard-input problems (and replies with no entry point to find): the code itself.
    Otherwise a reply that defines the function is put after the prompt, whose own stub is
    then redefined (the prompt's imports and helpers stay available); a bare body is
    appended to the prompt, as a completion would be.
    """
    meta = problem.metadata or {}
    if meta.get("kind") in ("stdio", "call") or not problem.entry_point:
        return code  # APPS: the reply is the whole program
    if defines(code, problem.entry_point):
        return f"{problem.prompt.rstrip()}\n\n{code}"
    if code[:1] in (" ", "\t"):
        return problem.program(code)
    return f"{problem.prompt.rstrip()}\n\n{code}"


def program_from_completion(
    problem: Problem, text: str, stops: Sequence[str], whole_program: bool
) -> str:
    """A complete program from a raw continuation of ``problem.prompt`` (``complete`` mode)."""
    completion = truncate_completion(cut_at_stops(text, stops), whole_program)
    return completion if whole_program else problem.program(completion)
