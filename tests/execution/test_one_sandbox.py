"""Both families run in one bubblewrap sandbox (``execution/sandbox.py``'s ``bwrap_args``).

Why: the Python workers and the compiled languages' compiles and runs had a command builder
each; a hardening added to one could be missing from the other. The flags that make the
sandbox (no network, read-only root, private /tmp and /dev/shm, read-only /dev, own /proc, no
capabilities) must be in both command lines, in the same order.
"""

from __future__ import annotations

from pathlib import Path

from data_builders.execution.compiled.sandbox import sandbox_command
from data_builders.execution.sandbox import bwrap_command

ISOLATION = [
    ("--unshare-all",), ("--die-with-parent",), ("--new-session",), ("--ro-bind", "/", "/"),
    ("--tmpfs", "/tmp"), ("--dev", "/dev"), ("--tmpfs", "/dev/shm"), ("--remount-ro", "/dev"),
    ("--proc", "/proc"), ("--cap-drop", "ALL"),
]  # fmt: skip


def _positions(command: list[str]) -> list[int]:
    """Where each isolation flag (with its arguments) starts in ``command``; -1 if missing."""
    found = []
    for flag in ISOLATION:
        hits = [i for i in range(len(command)) if tuple(command[i : i + len(flag)]) == flag]
        found.append(hits[0] if hits else -1)
    return found


def test_the_python_worker_and_a_compiled_run_share_the_sandbox(tmp_path: Path) -> None:
    worker = bwrap_command()
    run = sandbox_command(
        ["./main"], {"cpu": 2}, tmp_path, "bwrap+seccomp", 64, tmp_path / "run.bpf",
        writable=[tmp_path], readonly=[Path("/opt/x")],
    ).argv  # fmt: skip
    for command in (worker, run[run.index("bwrap") :]):
        positions = _positions(command)
        assert -1 not in positions, [f for f, p in zip(ISOLATION, positions, strict=True) if p < 0]
        assert positions == sorted(positions)
    assert worker[worker.index("--uid") : worker.index("--uid") + 4] == [
        "--uid", "65534", "--gid", "65534",
    ]  # fmt: skip
    assert run.count("--size") == 2  # the compiled run's /tmp and /dev/shm are capped
    assert run[run.index("--chdir") + 1] == str(tmp_path)
