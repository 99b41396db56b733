"""Extended test suites: what they hold, how they become executor tests, and their cache.

A suite keeps the original tests implicit (they are rebuilt from the problem each time, so
they are always there) and stores only the *new* cases with the reference's outputs, plus
the reference's CPU time on each of them, from which candidates' per-test limits follow.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from data_builders.execution import CallTest, StdioTest, decode_value, encode_value
from data_builders.jsonl import atomic_writer

SUITE_VERSION = 4  # bump when generation (or what the executor can capture) changes: stale entries
# are then rebuilt, not reused. 3: Counter & co. returns are captured (MBPP/88 gained its tests).
# 4: the reference's time on each new test is kept (per-test limits).
FLOAT_TOLERANCE = 1e-6


@dataclass
class ExtendedSuite:
    """New tests for one problem.

    Attributes:
        task_id: the problem.
        kind: ``"call"`` (function arguments -> return value) or ``"stdio"`` (stdin -> stdout).
        cases: ``(args, expected)`` for call suites, ``(stdin, stdout)`` for stdio suites.
        n_original: how many original tests the problem has (kept in front of the new ones).
        reference_time: slowest per-test CPU seconds of the reference on any kept test.
        reference_times: the reference's CPU seconds on each case (the slowest of its runs),
            from which each new test's limit follows (``configs/build/limits.yaml``).
        n_generated: candidate inputs tried (before filtering), for the statistics.
    """

    task_id: str
    kind: str
    cases: list[tuple[Any, Any]] = field(default_factory=list)
    n_original: int = 0
    reference_time: float = 0.0
    n_generated: int = 0
    reference_times: list[float] = field(default_factory=list)

    @property
    def n_tests(self) -> int:
        return self.n_original + len(self.cases)

    def new_tests(self) -> list[CallTest | StdioTest]:
        """The new cases as executor tests (floats compared within 1e-6, as EvalPlus does)."""
        if self.kind == "stdio":
            return [StdioTest(stdin, expected) for stdin, expected in self.cases]
        return [call_test(list(args), expected) for args, expected in self.cases]

    def to_json(self) -> dict[str, Any]:
        return {
            "version": SUITE_VERSION,
            "task_id": self.task_id,
            "kind": self.kind,
            "n_original": self.n_original,
            "reference_time": self.reference_time,
            "n_generated": self.n_generated,
            "reference_times": self.reference_times,
            "cases": [[encode_value(a), encode_value(b)] for a, b in self.cases],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ExtendedSuite:
        return cls(
            task_id=data["task_id"],
            kind=data["kind"],
            cases=[(decode_value(a), decode_value(b)) for a, b in data["cases"]],
            n_original=data["n_original"],
            reference_time=data["reference_time"],
            n_generated=data["n_generated"],
            reference_times=list(data["reference_times"]),
        )


def call_test(args: list[Any], expected: Any) -> CallTest:
    if isinstance(expected, float) and not isinstance(expected, bool):
        return CallTest(args, expected, compare="abs_le", tol=FLOAT_TOLERANCE)
    return CallTest(args, expected)


def suite_key(payload: dict[str, Any]) -> str:
    """A content hash of everything that determines a suite (problem, seed, settings)."""
    blob = json.dumps({"version": SUITE_VERSION, **payload}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


class SuiteCache:
    """Suites on disk, one JSON file per content hash, written atomically.

    A rebuild (or another shard, or a resumed build) with the same problem and settings finds
    the suite here and skips generation and the reference runs entirely.
    """

    def __init__(self, root: str | os.PathLike[str] | None) -> None:
        self.root = Path(root) if root else None

    def _path(self, key: str) -> Path | None:
        return self.root / key[:2] / f"{key}.json" if self.root else None

    def get(self, key: str) -> ExtendedSuite | None:
        path = self._path(key)
        if path is None or not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") != SUITE_VERSION:
                return None
            return ExtendedSuite.from_json(data)
        except (OSError, ValueError, KeyError, TypeError):
            return None  # a corrupt entry is rebuilt, not trusted

    def put(self, key: str, suite: ExtendedSuite) -> None:
        path = self._path(key)
        if path is None:
            return
        with atomic_writer(path) as handle:
            json.dump(suite.to_json(), handle)
