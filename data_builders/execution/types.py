"""The executor's data model: programs, the three kinds of test, limits and results.

Why plain dataclasses: every other area (dataset builders, the label CLI, benchmarks) builds
``Program`` objects and reads ``ProgramResult`` objects, and results must serialise to JSON
without surprises. Nothing here runs code.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from data_builders.execution.statuses import STATUSES

NON_EXECUTABLE: frozenset[str] = frozenset(STATUSES) - {"pass", "wrong_answer"}


class _Missing:
    """Sentinel type: no expected value given, so the test runs in capture mode."""

    _instance: _Missing | None = None

    def __new__(cls) -> _Missing:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "MISSING"

    def __bool__(self) -> bool:
        return False


MISSING: Any = _Missing()
"""``CallTest(args)`` without ``expected``: the outcome's ``output`` holds the return value."""

CALL_COMPARISONS = ("eq", "is", "truthy", "falsy", "abs_lt", "abs_le")


@dataclass(frozen=True)
class AssertionTest:
    """One assertion, run inside the sandbox with ``candidate`` bound to the entry point.

    ``source`` may hold several statements (e.g. a ``for`` loop of asserts, or assignments the
    assert needs); it runs as the body of a function ``f(candidate)`` in the program's globals,
    so names it assigns never clobber the program's own globals. ``candidate`` is wrapped so
    that its return values must be of plain builtin types (``type(x) is int`` and so on,
    recursively) — an object whose ``__eq__`` always returns True fails instead of passing.
    """

    source: str


@dataclass(frozen=True)
class CallTest:
    """Call ``entry_point(*args)`` in the sandbox; compare the return value in the host.

    Args:
        args: positional arguments (plain Python values; they travel through the values codec).
        expected: the expected return value, or ``MISSING`` for capture mode.
        compare: how the host compares: ``eq`` (``==``), ``is`` (identity with True/False/None),
            ``truthy``/``falsy`` (``bool(value)``), ``abs_lt``/``abs_le``
            (``abs(value - expected) < tol`` / ``<= tol``).
        tol: tolerance for the ``abs_*`` comparisons.
    """

    args: Sequence[Any] = ()
    expected: Any = MISSING
    compare: str = "eq"
    tol: float = 0.0

    def __post_init__(self) -> None:
        if self.compare not in CALL_COMPARISONS:
            raise ValueError(f"CallTest.compare must be one of {CALL_COMPARISONS}")

    @property
    def capture(self) -> bool:
        """Capture mode: nothing to compare with (``truthy``/``falsy`` need no expected)."""
        return self.expected is MISSING and self.compare not in ("truthy", "falsy")


@dataclass(frozen=True)
class StdioTest:
    """Run the program as ``__main__`` with ``stdin`` on fd 0; compare stdout in the host.

    ``expected=None`` is capture mode. Comparison rules: :func:`compare.stdout_matches`.
    """

    stdin: str = ""
    expected: str | None = None


Test = AssertionTest | CallTest | StdioTest


@dataclass(frozen=True)
class TestCode:
    """A compiled language's own test code, one text (HumanEval-X's or MultiPL-E's test):
    the tests of a C++, Java, JavaScript, Go or Rust program.

    Why a type of its own and not a ``str`` in ``Program.tests``: a string is also a sequence
    (of characters), so ``Sequence[Test] | str`` let a Python program's tests be text by
    mistake and every reader test which family it had. Here the family is the type: a Python
    program's tests are :data:`Test` objects, run one by one; a compiled program's are one
    ``TestCode``, which its language module splits into one case per assertion
    (``execution/compiled/languages/``).
    """

    __test__ = False  # not a pytest class

    text: str

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):
            raise TypeError(f"TestCode.text must be the test's source text, got {self.text!r:.60}")


@dataclass
class Program:
    """A program in ``language`` and the tests to run against it (every executor's input).

    Args:
        source: the complete program text.
        tests: Python (``language="python"``): all of one family, AssertionTest/CallTest
            (function programs, may be mixed) or StdioTest (standard-input programs). Any
            other language: its own test code, one :class:`TestCode` (HumanEval-X's or
            MultiPL-E's test), which its language module splits into one case per assertion
            (``execution/compiled/languages/``).
        entry_point: function called by CallTest / bound to ``candidate``; ``"Solution.method"``
            instantiates ``Solution()`` first (APPS/LeetCode style). Python only.
        setup: code run after ``source`` in the same globals, before the tests (e.g. the
            module-level part of a HumanEval test file). Python only.
        timeout: per-test CPU-time limit in seconds overriding the limits' ``timeout``
            (builders derive it from the reference solution's own run time). In Python it is
            also the limit for loading the program (its top-level code).
        test_timeouts: one CPU-time limit per test (same order as ``tests``; for another
            language one per case of its test code), overriding ``timeout`` test by test
            (``label`` derives them from the reference's time on each test:
            :mod:`data_builders.execution.calibrate`).
        language: ``"python"`` (the Python pool) or a compiled language's name (``cpp``,
            ``java``, ``js``, ``go``, ``rust``: the compiled languages' pool).
        reference: a trusted reference program for the same test (the task's canonical
            solution), or None. With it, an assertion whose expected side
            the test computes is judged on the host against that side's value in the
            reference's own run instead of in the program
            (``execution/compiled/languages/computed.py``).
    """

    source: str
    tests: Sequence[Test] | TestCode
    entry_point: str | None = None
    setup: str = ""
    timeout: float | None = None
    test_timeouts: Sequence[float] | None = None
    language: str = "python"
    reference: str | None = None

    def __post_init__(self) -> None:
        if isinstance(self.tests, str):
            raise TypeError(
                "Program.tests is a str: a compiled language's test code goes in as"
                " TestCode(text); a Python program's tests as a list of AssertionTest, CallTest"
                " or StdioTest"
            )

    def kind(self) -> str:
        """``"stdio"`` or ``"function"``; raises ValueError on a mix of the two families
        (and on a program in another language, which the Python executor cannot run)."""
        if self.language != "python":
            raise ValueError(
                f"a {self.language!r} program runs on the foreign executor, not the Python one"
                " (open_executor(program.language, limits, backend))"
            )
        if isinstance(self.tests, TestCode):
            raise TypeError("Program.tests must hold AssertionTest, CallTest or StdioTest")
        stdio = [isinstance(t, StdioTest) for t in self.tests]
        if any(stdio) and not all(stdio):
            raise ValueError("a Program cannot mix StdioTest with CallTest/AssertionTest")
        if not all(isinstance(t, (StdioTest, CallTest, AssertionTest)) for t in self.tests):
            raise TypeError("Program.tests must hold AssertionTest, CallTest or StdioTest")
        if stdio and all(stdio):
            return "stdio"
        if any(isinstance(t, CallTest) for t in self.tests) and not self.entry_point:
            raise ValueError("CallTest needs Program.entry_point")
        return "function"


@dataclass(frozen=True)
class ExecutionLimits:
    """Resource limits for every program (one dataclass of defaults for the whole tool).

    Args:
        timeout: per-test CPU-time limit (s). CPU time, not wall time, so labels do not
            depend on machine load; a wall-clock backstop catches sleeping/blocked programs.
        memory_mb: address-space cap per program (RLIMIT_AS).
        max_output_bytes: cap on stdout/stderr/files a program writes (RLIMIT_FSIZE) and on
            one encoded return value.
        max_wall_factor: absolute wall-clock backstop per test = factor * timeout + 10 s.
        nofile: cap on open file descriptors (RLIMIT_NOFILE).
        max_timeouts: after this many tests of a program time out, its remaining tests are
            labelled ``timeout`` without running. None (default) runs every test, so
            PassRatio is exact; a small number bounds the cost of programs that hang on every
            input (each hung test costs a full timeout) at the price of possibly
            under-counting passes of a program that only hangs on some inputs. The verdict
            (``passed``, ``executable``) is the same either way.
        after_timeout: once a test of a program has timed out, its remaining tests run under
            ``min(their limit, after_timeout)`` seconds. None (default) keeps every limit.
            Every test still runs and PassRatio stays the share of tests passed under the
            limits applied; a program that hung once pays at most this much per further
            hang (``label`` sets it to the calibration floor; docs/execution.md).
    """

    timeout: float = 3.0
    memory_mb: int = 2048
    max_output_bytes: int = 8 * 1024 * 1024
    max_wall_factor: float = 10.0
    nofile: int = 256
    max_timeouts: int | None = None
    after_timeout: float | None = None

    def __post_init__(self) -> None:
        if self.max_timeouts is not None and self.max_timeouts < 1:
            raise ValueError("ExecutionLimits.max_timeouts must be None or at least 1")
        if self.after_timeout is not None and not self.after_timeout > 0:
            raise ValueError("ExecutionLimits.after_timeout must be None or positive seconds")


@dataclass
class TestOutcome:
    """What happened on one test. ``output`` is filled in capture mode (and on wrong answers,
    for debugging): the decoded return value (CallTest) or the stdout text (StdioTest)."""

    __test__ = False  # not a pytest class

    status: str
    time: float = 0.0
    output: Any = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "time": self.time, "detail": self.detail}


@dataclass
class ProgramResult:
    """All outcomes of one program plus the isolation level it ran under."""

    outcomes: list[TestOutcome] = field(default_factory=list)
    isolation: str = ""
    judged_in_program: int | None = None
    """Programs in other languages: how many assertions were judged inside the program's
    own process (forgeable by a hostile program; docs/languages.md), the rest on the host.
    None for Python, whose every assertion is judged outside the program."""

    @property
    def n_tests(self) -> int:
        return len(self.outcomes)

    @property
    def status_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(STATUSES, 0)
        for outcome in self.outcomes:
            counts[outcome.status] += 1
        return counts

    @property
    def pass_ratio(self) -> float:
        """passed tests / tests; 0.0 for a program with no tests (nothing was verified)."""
        if not self.outcomes:
            return 0.0
        return sum(o.status == "pass" for o in self.outcomes) / len(self.outcomes)

    @property
    def executable(self) -> bool:
        """No compile/runtime error, timeout, memory or signal on any test."""
        return all(o.status not in NON_EXECUTABLE for o in self.outcomes)

    @property
    def passed(self) -> bool:
        return bool(self.outcomes) and all(o.status == "pass" for o in self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        return {
            "pass_ratio": self.pass_ratio,
            "executable": self.executable,
            "passed": self.passed,
            "n_tests": self.n_tests,
            "status_counts": self.status_counts,
            "isolation": self.isolation,
            **(
                {"cases_judged_in_program": self.judged_in_program}
                if self.judged_in_program is not None
                else {}
            ),
        }
