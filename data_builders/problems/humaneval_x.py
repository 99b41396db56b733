"""HumanEval-X problems (THUDM/humaneval-x layout) and how a completion becomes a program.

Records: ``task_id`` (``CPP/0``, ``Java/0``, ``JavaScript/0``, ``Go/0``, ``Rust/0``),
``prompt``, ``declaration``, ``canonical_solution``, ``test``, ``example_test`` (Go adds
``import`` and ``test_setup``). A completion continues the ``prompt``; the program and its
test are assembled as CodeGeeX's evaluator (``codegeex/benchmark/execution.py``,
``process_humaneval_test``) does, so labels mean the same thing:

* C++: the helper includes a completion commonly relies on are prepended when the prompt
  lacks them; program = helpers + prompt + completion;
* Java, JavaScript: program = prompt + completion;
* Go: the prompt's ``import`` block is dropped and the test setup's ``package``/imports
  plus the standard packages the completion uses are put first (Go rejects unused imports).

From a local file (``--problems-file``, gzipped or not) or the hub dataset
``THUDM/humaneval-x`` (one config per language) when online.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from data_builders.errors import UserError
from data_builders.jsonl import read_jsonl
from data_builders.languages import TABLE
from data_builders.problems.base import Problem, task_number
from data_builders.problems.mbpp import hub_offline
from data_builders.problems.stops import cut_at_stops

if TYPE_CHECKING:
    from data_builders.execution import Program

HUB_NAME = "THUDM/humaneval-x"
# From the language table: task-id prefix -> language, language -> hub config, and the
# languages HumanEval-X is read in -> their display names.
PREFIXES = {i.humaneval_x_prefix: i.name for i in TABLE if i.humaneval_x_prefix}
HUB_CONFIGS = {i.name: i.humaneval_x_config for i in TABLE if i.humaneval_x_config}
LANGUAGE_NAMES = {i.name: i.display for i in TABLE if i.humaneval_x_config}
CPP_HELPERS = (
    "#include<stdlib.h>", "#include<algorithm>", "#include<math.h>", "#include<stdio.h>",
    "#include<vector>", "#include<string>", "#include<climits>", "#include<cstring>",
    "#include<iostream>",
)  # fmt: skip
GO_HELPERS = (
    "math", "strings", "fmt", "strconv", "time", "bytes", "regexp", "sort", "math/rand",
    "crypto/md5",
)  # fmt: skip
RUST_CRATE_USES = ("use rand::Rng;", "use regex::Regex;", "use md5;")
_FIELDS = ("task_id", "prompt", "canonical_solution", "test")


def language_of(task_id: str) -> str | None:
    """``"cpp"`` for ``"CPP/0"`` and so on; None for an unknown prefix."""
    return PREFIXES.get(task_id.split("/", 1)[0])


def problem_from_record(record: dict[str, Any], where: str) -> Problem:
    """One HumanEval-X record -> Problem (metadata: language, declaration, test setup)."""
    for name in _FIELDS:
        if not isinstance(record.get(name), str):
            raise UserError(f"{where}: HumanEval-X task lacks a string {name!r}")
    language = language_of(record["task_id"])
    if language is None:
        raise UserError(
            f"{where}: task_id {record['task_id']!r} has no HumanEval-X language prefix"
            f" ({', '.join(p + '/' for p in PREFIXES)})"
        )
    metadata = {
        "dataset": "humaneval-x",
        "language": language,
        "declaration": record.get("declaration", ""),
        "example_test": record.get("example_test", ""),
        "test_setup": record.get("test_setup", ""),
        "import": record.get("import", ""),
    }
    return Problem(
        task_id=record["task_id"],
        prompt=record["prompt"],
        nl=record.get("text", "") or "",
        reference=record["prompt"] + record["canonical_solution"],  # see program_and_test
        entry_point=None,
        test=record["test"],
        metadata=metadata,
    )


def load_humaneval_x_file(path: str | Path) -> dict[str, Problem]:
    """Problems from a local HumanEval-X file (``.jsonl`` or ``.jsonl.gz``)."""
    path = Path(path)
    problems = {}
    for number, record in enumerate(read_jsonl(path, what="HumanEval-X task"), start=1):
        problem = problem_from_record(record, f"{path}:{number}")
        problems[problem.task_id] = problem
    if not problems:
        raise UserError(f"{path}: no tasks in the file")
    return problems


def load_humaneval_x_hub(language: str) -> dict[str, Problem]:
    """One language of ``THUDM/humaneval-x`` from the hub; one-line error when offline."""
    hint = f"pass --problems-file PATH (a HumanEval-X file, e.g. humaneval_{language}.jsonl.gz)"
    if hub_offline():
        raise UserError(
            f"HumanEval-X comes from the hub ({HUB_NAME}) but the hub is offline: {hint}"
        )
    try:
        import datasets

        loaded = datasets.load_dataset(HUB_NAME, HUB_CONFIGS[language], split="test")
    except Exception as exc:  # noqa: BLE001 - any hub failure becomes one actionable line
        raise UserError(
            f"cannot load {HUB_NAME} ({language}) from the hub ({type(exc).__name__}): {hint}"
        ) from None
    return {
        r["task_id"]: problem_from_record(dict(r), f"{HUB_NAME}:{r['task_id']}") for r in loaded
    }


def load_problems(source: str | Path | None = None, language: str | None = None) -> list[Problem]:
    """Language ``language``'s HumanEval-X tasks in task-number order: ``source`` (a
    THUDM/humaneval-x file, ``--problems-file``), else the hub's ``THUDM/humaneval-x``
    (offline: one line naming ``--problems-file``); ``language`` None: every task of
    ``source``, in file order (the hub needs a language). This source's loader, see
    :mod:`data_builders.problems`."""
    if language is None and source:
        return list(load_humaneval_x_file(source).values())
    if language not in LANGUAGE_NAMES:
        raise UserError(
            f"HumanEval-X problems need a language, one of {', '.join(LANGUAGE_NAMES)} "
            f"(got {language!r})"
        )
    problems = load_humaneval_x_file(source) if source else load_humaneval_x_hub(language)
    mine = [p for p in problems.values() if p.metadata["language"] == language]
    if not mine:
        found = sorted({p.metadata["language"] for p in problems.values()})
        raise UserError(
            f"{source}: no {LANGUAGE_NAMES[language]} task in the file (it holds "
            f"{', '.join(found)}); pass humaneval_{language}.jsonl[.gz] or --language "
            f"{found[0]}"
        )
    return sorted(mine, key=lambda p: task_number(p.task_id))


def problems_for(
    task_ids: Iterable[str], source: str | Path | None = None, language: str | None = None
) -> dict[str, Problem]:
    """The problems ``label``'s samples of ``task_ids`` are checked against, by task id: every
    task of ``source`` (a file), else, from the hub, every task in each language the ids name
    (``CPP/0``: C++). ``language`` is not used: the ids name theirs."""
    if source:
        return {p.task_id: p for p in load_problems(source)}
    ids = set(task_ids)
    languages = {language_of(t) for t in ids}
    if None in languages:
        bad = sorted(t for t in ids if language_of(t) is None)[0]
        raise UserError(
            f"task_id {bad!r} is not a HumanEval-X id ({', '.join(p + '/N' for p in PREFIXES)});"
            " check --samples or pass --problems-file"
        )
    names = sorted(str(name) for name in languages)
    return {p.task_id: p for name in names for p in load_problems(None, name)}


def program_language(problem: Problem) -> str:
    """The language of ``problem``'s programs (``cpp``, ``java``, ``js``, ``go``, ``rust``)."""
    return str(problem.metadata["language"])


def make_program(problem: Problem, completion: str) -> Program:
    """The program ``label`` runs for a completion of ``problem``'s prompt: the source and
    test of :func:`program_and_test`, one case per assertion; the canonical solution's
    program is its ``reference`` (the expected values the test computes come from its run)."""
    from data_builders.execution import Program, TestCode

    source, test = program_and_test(problem, completion)
    reference = program_and_test(problem, canonical_solution(problem))[0]
    return Program(source, TestCode(test), language=program_language(problem), reference=reference)


def reference_program(problem: Problem) -> Program:
    """The task's canonical solution as a program (``label`` times it to calibrate each
    assertion's limit)."""
    return make_program(problem, canonical_solution(problem))


def program_and_test(problem: Problem, completion: str) -> tuple[str, str]:
    """(program source, test code) for a completion of ``problem``'s prompt."""
    language = problem.metadata["language"]
    prompt = problem.prompt
    if language == "cpp":
        helpers = "".join(h + "\n" for h in CPP_HELPERS if h not in prompt)
        using = "" if "using namespace std;" in prompt else "using namespace std;\n"
        return helpers + using + prompt + completion, problem.test or ""
    if language == "go":
        imports = problem.metadata.get("import", "")
        body = prompt.replace(imports, "") if imports else prompt
        setup = problem.metadata.get("test_setup", "")
        code = body + completion  # packages: those the completion uses, as CodeGeeX decides
        extra = [
            f'"{pkg}"'
            for pkg in GO_HELPERS
            if pkg not in setup and pkg.split("/")[-1] + "." in completion
        ]
        header = setup + (
            "\nimport (\n" + "".join(f"    {p}\n" for p in extra) + ")\n" if extra else ""
        )
        return code, header + "\n" + (problem.test or "")
    if language == "rust":
        # CodeGeeX: an empty main, the declaration (uses + signature), the prompt (a comment).
        # The rand/regex/md5 crates the declarations `use` are not available offline: their
        # `use` lines are dropped, so only programs that call them fail (to compile).
        source = "\nfn main(){ \n } \n" + continuation_prompt(problem) + completion
        return source, problem.test or ""
    return prompt + completion, problem.test or ""


def program_from_continuation(problem: Problem, text: str) -> str:
    """The program a model's plain continuation of ``problem``'s prompt makes: the prompt,
    the text cut at the language's stop tokens (MultiPL-E's), then as many ``}`` as the
    prompt and the kept text leave open (braces in strings and comments do not count).

    MultiPL-E cuts where the function's closing brace would start (C++, Rust ``\n}``, Java
    ``\n    }\n``) because its tests close it; HumanEval-X's tests do not, so the closing
    braces are added back here (Go and JavaScript stops usually fall after the function,
    which then needs none). A continuation that closes more than it opened is kept as written:
    it does not compile, which is its label."""
    from data_builders.execution import code_mask, get_language

    language = get_language(problem.metadata["language"])
    kept = cut_at_stops(text, language.stop_tokens)
    program = problem.prompt + kept
    # the braces open in what the model saw and wrote (Rust: its signature's, in the declaration)
    seen = continuation_prompt(problem) + kept
    mask = code_mask(seen, language.quotes)
    depth = sum({"{": 1, "}": -1}.get(ch, 0) for ch, code in zip(seen, mask, strict=True) if code)
    if depth > 0:
        program = program.rstrip() + "\n" + "}\n" * depth
    return program


def continuation_prompt(problem: Problem) -> str:
    """The text a model continues for ``problem``: what comes before the completion in the
    program. HumanEval-X's Rust prompt is only the doc comment, its signature is in the
    declaration (``program_and_test`` puts the declaration first), so a model given the prompt
    alone sees no function to complete and writes another language; every other language's
    prompt holds its signature."""
    if problem.metadata["language"] != "rust":
        return problem.prompt
    declaration = "".join(
        line
        for line in problem.metadata.get("declaration", "").splitlines(keepends=True)
        if line.strip() not in RUST_CRATE_USES
    )
    return declaration + problem.prompt


def canonical_solution(problem: Problem) -> str:
    """The reference completion (``reference`` minus the prompt)."""
    return problem.reference[len(problem.prompt) :]
