"""``label``'s resumable output: rows appended to ``OUT.partial`` as they come, ``OUT`` at the end.

Why: labelling a large sample file takes hours (on a cluster or not), and a killed run
should not start over. Rows arrive in sample order (every executor's ``map`` keeps it), so
the rows already written are always a prefix of the samples: a rerun checks that prefix
against the samples, cuts a torn last line (the only thing a kill can leave) and labels
the rest. ``OUT`` itself still appears only when complete, as before. ``OUT.partial.json``
records the settings that decide a row; a rerun with other settings is refused instead of
mixing two labellings in one file. Which executor ran (local or Ray) is not among them.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import IO, Any

from data_builders.errors import UserError
from data_builders.jsonl import atomic_writer, dumps

SYNC_EVERY = 256  # rows between fsyncs: a power cut loses at most this many


class PartialOutput:
    """The output of one ``label`` run, resumable after a kill.

    Args:
        out: the final file (``.jsonl`` or ``.jsonl.gz``).
        settings: what decides a row (samples digest, limits...), JSON-serialisable.
        samples: the samples in order; rows already in ``OUT.partial`` must match their
            ``task_id`` and ``completion`` one for one.
    """

    def __init__(self, out: Path, settings: dict[str, Any], samples: list[dict[str, Any]]) -> None:
        self.out = Path(out)
        self.partial = self.out.with_name(self.out.name + ".partial")
        self.manifest = self.out.with_name(self.out.name + ".partial.json")
        self.settings = settings
        self.done = 0  # rows already written (a prefix of the samples)
        self.passed = 0  # of them, rows that passed every test
        self._samples = samples
        self._handle: IO[str] | None = None
        self._unsynced = 0

    def __enter__(self) -> PartialOutput:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        started = self.partial.exists() and self.partial.stat().st_size > 0
        if started and self._manifest() == self.settings:
            self._read_prefix()
        else:
            if started:
                self._refuse()
            self.manifest.write_text(json.dumps(self.settings, sort_keys=True))
            self.partial.write_text("")
        self._handle = open(self.partial, "a", encoding="utf-8")  # noqa: SIM115 - kept open
        return self

    def _manifest(self) -> Any:
        try:
            return json.loads(self.manifest.read_text())
        except (OSError, ValueError):
            return None

    def _refuse(self) -> None:
        old = self._manifest() or {}
        changed = sorted(k for k in {*old, *self.settings} if old.get(k) != self.settings.get(k))
        raise UserError(
            f"{self.partial} holds rows of a run with other settings (differs in:"
            f" {', '.join(changed) or 'its settings file'}); rerun with the same options to"
            " resume, or delete it to start afresh"
        )

    def _read_prefix(self) -> None:
        """Count (and check) the complete rows already written; cut a torn last line."""
        good_end = 0
        with open(self.partial, "rb") as handle:
            for line in handle:
                if not line.endswith(b"\n"):
                    break
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    break
                if self.done >= len(self._samples) or any(
                    row.get(key) != self._samples[self.done][key]
                    for key in ("task_id", "completion")
                ):
                    raise UserError(
                        f"{self.partial}:{self.done + 1}: row does not match sample"
                        f" {self.done + 1} of the samples file; delete {self.partial} to start"
                        " afresh"
                    )
                self.done += 1
                self.passed += bool(row.get("passed"))
                good_end += len(line)
        with open(self.partial, "r+b") as handle:
            handle.truncate(good_end)

    def write(self, row: dict[str, Any]) -> None:
        assert self._handle is not None, "use PartialOutput as a context manager"
        self._handle.write(dumps(row) + "\n")
        self._handle.flush()
        self.passed += bool(row.get("passed"))
        self._unsynced += 1
        if self._unsynced >= SYNC_EVERY:
            os.fsync(self._handle.fileno())
            self._unsynced = 0

    def finish(self) -> None:
        """Every sample has its row: move them to ``OUT`` (atomically) and clean up."""
        self._close()
        if self.out.suffix == ".gz":
            with atomic_writer(self.out) as target, open(self.partial, encoding="utf-8") as rows:
                shutil.copyfileobj(rows, target)
            self.partial.unlink()
        else:
            os.replace(self.partial, self.out)
        self.manifest.unlink(missing_ok=True)

    def _close(self) -> None:
        if self._handle is not None:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None

    def __exit__(self, *exc_info: object) -> None:
        self._close()  # on an error the rows so far stay in OUT.partial for the rerun
