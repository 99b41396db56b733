"""What one foreign program's run reports, and whether the phase it is in passed its limit.

Why a module of its own: the reports (``S``/``P``/``F``/``E``/``M``/``V`` lines with the run's
token, ``languages/base.py``) are where a hostile program can lie, so the rules for which
report counts (``CaseWatch.report``, ``parse_report``) are kept apart from starting and
reading the process (``process.py``). The same watch serves a process of its own
(``process.supervise``) and a long-lived runner that runs many programs
(``runner.py``); the process tree it measures and the wall-clock backstop: ``processes.py``.

Why not one watch with Python's (``python/worker_supervision.py``): the reports are each
family's own wire format (these lines are written by the support code compiled into the
program), and a compiled program cannot stop itself at its CPU limit as a Python child does
(SIGPROF), so here the host polls the tree against each case's limit.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from data_builders.execution.processes import Tree, wall_backstop

_BAD = {"pass": 0, "wrong_answer": 1, "runtime_error": 2, "memory": 2, "timeout": 2, "signal": 2}
_CODES = {"P": "pass", "F": "wrong_answer", "E": "runtime_error", "M": "memory"}


@dataclass
class Watch:
    rss_mb: int
    wall_factor: float


@dataclass
class End:
    """What one process did: reported results, where it was, how it ended."""

    results: dict[int, str]
    times: dict[int, float]
    details: dict[int, str]
    running: int | None  # a case started and not finished when the process ended
    last: int | None  # the last case that started
    returncode: int
    killed: str | None  # "timeout" / "memory" when the host killed it
    stdout: str
    stderr: str
    cpu: float = 0.0  # CPU seconds of the process tree (sampled every poll)
    values: dict[int, bytes] = field(default_factory=dict)  # V reports: serialised values
    rejected: dict[int, str] = field(default_factory=dict)  # cases whose reports were refused
    series: dict[int, list[bytes]] = field(default_factory=dict)  # a loop's values, per turn
    errors: dict[int, tuple[str, str]] = field(default_factory=dict)  # a loop's worst error


class CaseWatch:
    """The reports of one program's run and the limit of the phase it is in (loading, then
    each case), checked against its process tree's CPU, memory and wall time.

    Shared by a process of its own (``process.supervise``) and a long-lived runner that runs
    many programs (``runner.py``): CPU is counted from ``cpu_origin``, the tree's
    CPU when this program started.
    """

    def __init__(
        self,
        case_limits: list[float],
        load_limit: float,
        watch: Watch,
        cpu_origin: float = 0.0,
        token: str | None = None,
        value_cases: frozenset[int] = frozenset(),
        repeated: frozenset[int] = frozenset(),
    ) -> None:
        self.case_limits = case_limits
        self.token = token.encode() if token is not None else None
        self.value_cases = value_cases | repeated
        self.repeated = repeated
        self.values: dict[int, bytes] = {}
        self.series: dict[int, list[bytes]] = {}
        self.errors: dict[int, tuple[str, str]] = {}
        self.rejected: dict[int, str] = {}
        self.watch = watch
        self.results: dict[int, str] = {}
        self.details: dict[int, str] = {}
        self.times: dict[int, float] = {}
        self.running: int | None = None
        self.last: int | None = None
        self.limit = load_limit
        self.phase_cpu, self.phase_wall = cpu_origin, time.monotonic()
        self._idle_since: float | None = None
        self._last_ticks = int(cpu_origin / Tree.tick)

    def report(self, line: bytes, tree: Tree) -> None:
        """Record one report line of the program (other lines are ignored).

        With a token (the token protocol, ``languages/base.py``), a line counts only when it
        carries this run's token, and the host checks what the program cannot be trusted
        with: a value case (judged here, ``checks.py``) is settled only by one ``V``
        line while it runs, after its ``S``; a pass or failure line for it, a second value,
        a value for a case not running, or a case started twice or out of order refuses
        that case's reports (``rejected``: a runtime error, never a pass).

        A *repeated* value case (an assertion in a loop, ``Check.each``) starts again on
        each turn while it is the last case started, and settles each turn with one value
        (``series``) or an error (kept beside the values: ``errors``), as an in-program case
        in a loop reports each turn."""
        event = parse_report(line, len(self.case_limits), self.token)
        if event is None:
            return
        code, k, text = event
        if self.token is not None and not self._in_order(code, k):
            return
        if k in self.repeated and code in "VEM":
            self._turn(code, k, text)
            return
        if code == "V":
            self.values[k] = text.encode() if isinstance(text, str) else text
            self.results[k] = "value"
            self.running = None
            return
        if code == "S":
            if k != self.last:
                cpu = tree.cpu()
                if self.last is not None:
                    self.times[self.last] = cpu - self.phase_cpu
                self.phase_cpu, self.phase_wall, self.last = cpu, time.monotonic(), k
                self.limit = self.case_limits[k]
            self.running = k
        elif k == self.running:
            status = _CODES[code]
            old = self.results.get(k)
            if old is None or _BAD[status] > _BAD[old]:
                self.results[k] = status
                if text:
                    self.details[k] = text
            self.running = None

    def _turn(self, code: str, k: int, text: str | bytes) -> None:
        """A repeated case's value or error (``report``)."""
        self.results[k] = "series"
        self.running = None
        if code == "V":
            self.series.setdefault(k, []).append(text.encode() if isinstance(text, str) else text)
            return
        status = _CODES[code]
        old = self.errors.get(k)
        if old is None or _BAD[status] > _BAD[old[0]]:
            self.errors[k] = (status, str(text))

    def _in_order(self, code: str, k: int) -> bool:
        """Whether a tokened report fits the run so far; if not, case ``k`` is refused."""
        value_case = k in self.value_cases
        repeated = k in self.repeated
        reason = None
        if code == "S":  # (an in-program case in a loop starts again, after later ones)
            if value_case and self.last is not None and k < self.last:
                reason = "started after a later case"
            elif value_case and not repeated and (k == self.last or k in self.results):
                reason = "started twice"
            elif repeated and k != self.last and k in self.results:
                reason = "started again after another case"
        elif code == "V":
            if not value_case:
                reason = "a value for a case judged in the program"
            elif k != self.running or (k in self.values and not repeated):
                reason = "a value outside its case, or twice"
        elif repeated and code in "EM" and k != self.running:
            reason = "an error outside its turn"
        elif value_case and code in "PF":
            reason = "a verdict for a case judged on the host"
        if reason is None:
            return True
        self.rejected.setdefault(k, f"report refused: {reason}")
        return False

    def over_limit(self, tree: Tree) -> str | None:
        """``"timeout"`` / ``"memory"`` when the current phase passed a limit, else None.

        Memory is checked first: a program that allocates without end also burns CPU, and when
        the host's watch is starved of CPU (a loaded machine) one poll can find both limits
        passed; the resident memory over its limit is then what the program did, not the CPU
        time it spent getting there."""
        now = time.monotonic()
        if self.over_memory(tree):
            return "memory"
        cpu = tree.cpu()
        if cpu - self.phase_cpu > self.limit:
            return "timeout"
        if now - self.phase_wall > wall_backstop(self.limit, self.watch.wall_factor):
            return "timeout"
        # Progress: the CPU time passed a clock tick (as /proc counts it: not every
        # nanosecond, a process blocked in a wait spends microseconds waking), or a thread
        # is runnable.
        ticks = int(cpu / tree.tick)
        if ticks > self._last_ticks or tree.runnable():
            self._idle_since, self._last_ticks = None, ticks
        elif self._idle_since is None:
            self._idle_since = now
        elif now - self._idle_since > max(self.limit, 0.5):  # blocked (sleeping, waiting)
            return "timeout"
        return None

    def over_memory(self, tree: Tree) -> bool:
        """Whether the process tree's resident memory is past the limit."""
        return tree.rss_mb() > self.watch.rss_mb

    def close_phase(self, final_cpu: float) -> None:
        """The last case's time, when the program ended before another started."""
        if self.last is not None and self.last not in self.times:
            self.times[self.last] = final_cpu - self.phase_cpu

    def end(self, returncode: int, killed: str | None, stdout: str, stderr: str, cpu: float) -> End:
        return End(
            self.results, self.times, self.details, self.running, self.last, returncode,
            killed, stdout, stderr, cpu, self.values, self.rejected, self.series, self.errors,
        )  # fmt: skip


def parse_report(
    line: bytes, n: int, token: bytes | None = None
) -> tuple[str, int, str | bytes] | None:
    """``(code, case, detail)`` of a report line (``E k message``: the error's text).

    With ``token``: ``code k token [rest]``, and a line with any other token is no report;
    ``V k token value`` keeps the whole value (bytes)."""
    if token is None:
        parts = line.split(maxsplit=2)
        rest = parts[2] if len(parts) > 2 else b""
    else:
        parts = line.split(b" ", 3)
        if len(parts) < 3 or parts[2] != token:
            return None
        rest = parts[3] if len(parts) > 3 else b""
    codes = (
        (b"S", b"P", b"F", b"E", b"M") if token is None else (b"S", b"P", b"F", b"E", b"M", b"V")
    )
    if len(parts) < 2 or parts[0] not in codes:
        return None
    try:
        k = int(parts[1])
    except ValueError:
        return None
    if not 0 <= k < n:
        return None
    if parts[0] == b"V":
        return "V", k, rest
    return parts[0].decode(), k, rest.decode(errors="replace")[:300]
