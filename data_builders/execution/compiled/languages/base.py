"""What a language module provides to the language-agnostic runner (``compiled/pool.py``).

A language says four things and nothing else: how to assemble a program and its test into
the files of one *driver* (the test rewritten so that each assertion is a numbered case
that reports itself), how to compile those files (if it compiles), how to run the result
from case ``start`` on, and which toolchain it needs. The runner owns everything shared:
the sandbox, limits, the compile cache, the result protocol and the statuses. Adding a
language is adding one module and one entry in ``languages/__init__.py``.

The result protocol (written by the driver's support code to the file descriptor named on
its command line, one line per event): ``S k`` (case k starts), then ``P k`` (held),
``F k`` (failed), ``E k [message]`` (raised an error; the message becomes the outcome's
detail), or ``M k`` (ran out of memory). A case
may report several times (an assertion inside a loop): it passes only if every run held.

**Token protocol** (languages with ``token_protocol``: C++, JavaScript): the host hands the
run a fresh random token on stdin (JavaScript's runner: in the worker's ``workerData``),
which the support code takes before the program's own code runs; every report line is
``code k token [rest]``, and lines without the token are no reports (a program that writes
pass lines to every descriptor reports nothing). A case whose assertion is ``actual OP
expected`` with a constant ``expected`` (``Driver.checks[k]``, a
:class:`~data_builders.execution.compiled.checks.Check`) reports ``V k token value``: the
serialised ``actual``, judged on the host; ``expected`` is not in the driver. Cases without a
check (``None``: loops, properties, expected values the host cannot read) still report
``P``/``F`` from the program and are counted as judged in the program.
"""

from __future__ import annotations

import functools
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from data_builders.languages import language_info


@functools.cache
def fast_linker() -> tuple[str, ...]:
    """``-fuse-ld=gold`` where binutils' gold linker is installed, else nothing (the default
    ``ld``), for C++. A HumanEval-X program is one small object file; GNU ld spends about a
    fifth of a C++ compile's CPU time linking it, gold half of that (``label`` 4.4 -> 5.9 C++
    programs/s, ``benchmarks/label_vs_plain_harness.py``; Rust gained nothing, its compile is
    rustc's own). The linker changes how fast a program is built, not what it runs: the same
    objects and libraries go into the binary, and the benchmark checks the verdicts against a
    plain build."""
    return ("-fuse-ld=gold",) if shutil.which("ld.gold") else ()


class SplitError(ValueError):
    """The test has no assertion this language's splitter recognises."""


@dataclass(frozen=True)
class Prelude:
    """System headers a driver includes first, compiled once and shared by every driver that
    starts with the same ones (C++: a GCC precompiled header).

    The driver includes ``name``; the runner writes ``text`` under that name into a shared
    folder, precompiles it there (``Language.prelude_argv``) and puts the folder on the
    include path. The compiler uses the precompiled form only when it is valid for the
    compile and reads ``text`` otherwise, so a prelude changes how fast a program compiles,
    never what it compiles to.
    """

    name: str
    text: str


@dataclass(frozen=True)
class Driver:
    """The files of one program-plus-test, and how many assertion cases it reports."""

    files: dict[str, str]
    n_cases: int
    mode: str = ""
    """A language's own variant of how to build and run this driver (Java: the class that
    holds ``main``; Rust: ``"test"`` for a ``#[test]`` harness, ``"main"`` for ``fn main``)."""
    prelude: Prelude | None = None
    """Headers shared with other drivers, compiled once (see :class:`Prelude`)."""
    checks: tuple[Any, ...] | None = None
    """Per case, the host-side check of a value case, or None for a case judged in the
    program; None for a language without the token protocol (every case in the program)."""
    shareable: bool = False
    """Whether this driver may be compiled in one build with others (``Language.batch``):
    the language says so only where that build runs it exactly as its own build would."""

    @property
    def judged_in_program(self) -> int:
        if self.checks is None:
            return self.n_cases
        return sum(check is None for check in self.checks)

    @property
    def value_cases(self) -> frozenset[int]:
        return frozenset(k for k, c in enumerate(self.checks or ()) if c is not None)


@dataclass(frozen=True)
class Batch:
    """Several drivers compiled as one build (``Language.batch``): one compiler start-up and
    one link for all of them, each member run alone from the shared binary.

    ``driver`` holds every member's files; ``run_args[i]`` are the arguments that make the
    binary run member ``i``'s cases and nothing else (Rust: a test filter).
    """

    driver: Driver
    run_args: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class RunSpec:
    """How to start a built driver inside the sandbox.

    ``argv`` may use ``{build}`` (the read-only build folder), ``{start}`` (first case to
    run) and ``{fd}`` (the result descriptor). ``address_space_limit``: whether RLIMIT_AS
    can cap memory (native code) or the runtime reserves large address ranges it never
    touches (JVM, V8, Go), in which case memory is capped by resident size instead.
    """

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    address_space_limit: bool = True


@dataclass(frozen=True)
class RunnerSpec:
    """How to start a language's long-lived runner, which runs many built drivers one after
    another (``compiled/runner.py``). ``argv`` may use ``{fd}`` (the result descriptor) and
    ``{keep}`` (``:``-separated folders bound into the sandbox, which the runner must not
    empty). ``max_programs``: the runner is replaced after that many programs."""

    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    max_programs: int = 200
    read_only: tuple[str, ...] = ()
    """Folders the runner reads besides the system's (its own script: the package may live
    under ``/tmp``, which the sandbox replaces with its own)."""


class Language:
    """Base class: subclasses set the class attributes and implement the methods."""

    name: str = ""
    """The language's name in the language table (:mod:`data_builders.languages`), whose row
    gives ``executables``, ``install_hint`` and ``stop_tokens``."""
    quotes: str = "\"'"
    """The language's string quotes (for finding code outside strings and comments)."""
    compiled: bool = True
    compiler_address_space_limit: bool = False
    """Whether RLIMIT_AS can cap the compiler (g++: yes; javac and go reserve large address
    ranges they never touch, so their resident size is capped instead)."""
    shared_cache_env: str | None = None
    """An environment variable naming a build cache the compiler may share between programs
    (Go's ``GOCACHE``); the runner points it at one writable folder per executor."""
    token_protocol: bool = False
    """Whether the driver reads a report token and writes value cases (module docstring)."""

    @property
    def executables(self) -> tuple[str, ...]:
        """The toolchain's executables (the table's ``toolchain``)."""
        return language_info(self.name).toolchain

    @property
    def install_hint(self) -> str:
        """What to install when an executable is missing."""
        return language_info(self.name).install_hint

    @property
    def stop_tokens(self) -> tuple[str, ...]:
        """Where a model's continuation of a function prompt is cut (MultiPL-E's stop tokens
        for the language): ``build humaneval-x --generate`` stops generating there."""
        return language_info(self.name).stop_tokens

    def missing_toolchain(self) -> str | None:
        """None when the toolchain is installed, else one line saying what to install."""
        missing = [tool for tool in self.executables if shutil.which(tool) is None]
        if missing:
            return f"{self.name}: {', '.join(missing)} not found ({self.install_hint})"
        return None

    def split(self, test: str) -> list[str]:
        """The single assertions of ``test``, as source text (for reports and tests)."""
        raise NotImplementedError

    reference_cases: bool = False
    """Whether the driver takes a :class:`~data_builders.execution.compiled.languages.computed.Reference`
    (``driver(..., reference=...)``): assertions whose expected side the test computes are
    then judged on the host from the reference solution's run (``compiled/reference.py``)."""

    def driver(self, source: str, test: str) -> Driver:
        """The program plus its test rewritten into numbered, self-reporting cases."""
        raise NotImplementedError

    compile_batch: int = 1
    """How many shareable drivers one build may hold (``batch``); 1: each compiles alone."""

    def batch(self, drivers: list[Driver]) -> Batch:
        """One build of ``drivers`` (each ``shareable``), in which every member's program and
        test are exactly its own build's; only languages with ``compile_batch`` > 1."""
        raise NotImplementedError

    def batch_culprits(self, log: str, n_members: int) -> set[int]:
        """The members of a failed batch build whose own files the compiler's ``log`` names
        (empty when it names none: the caller then builds every member alone)."""
        return set()

    compile_server: Any = None
    """A :class:`~data_builders.execution.compiled.compile_server.ServerSpec` when one long-lived
    compiler serves every program (Java); the command line is the fallback."""

    def compile_argv(
        self, build: Path, mode: str = "", prelude_dir: Path | None = None
    ) -> list[str] | None:
        """The compile command run in ``build`` (None: nothing to compile); ``prelude_dir``
        holds the driver's :class:`Prelude` when it has one."""
        return None

    def prelude_argv(self, prelude: Prelude) -> list[str] | None:
        """The command, run in the prelude's folder, that precompiles it (None: it is only
        included)."""
        return None

    def compile_env(self, build: Path) -> dict[str, str]:
        """Extra environment for the compile step."""
        return {}

    def run_spec(self, memory_mb: int, mode: str = "") -> RunSpec:
        """How to run the built driver with a memory cap of ``memory_mb``."""
        raise NotImplementedError

    def runner_spec(self, memory_mb: int) -> RunnerSpec | None:
        """A runner that runs many drivers in one process (None: one process per program)."""
        return None

    def runner_request(
        self, build: Path, start: int, memory_mb: int, max_output_bytes: int
    ) -> dict[str, object]:
        """What the runner reads to run the driver built in ``build`` from case ``start``."""
        raise NotImplementedError

    def load_status(self, returncode: int, stderr: str) -> str | None:
        """A status for a run that ended before any case started, when the language can
        tell (e.g. a JavaScript ``SyntaxError`` is a ``compile_error``); None otherwise."""
        return None

    def crash_status(self, returncode: int, stderr: str) -> str | None:
        """A status for a run that ended during a case, when the language can tell from
        its exit (e.g. V8's heap limit); None lets the runner decide."""
        return None
