"""The sandboxed command line of a foreign-language compile or run: prlimit, and bubblewrap
where the isolation level says so (the run's seccomp filter: ``seccomp.py``'s
``COMPILED_RUN``; the level: ``isolation.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from data_builders.execution.compiled.process import Command


def sandbox_command(
    argv: list[str],
    rlimits: dict[str, int],
    cwd: Path,
    isolation: str,
    tmp_size_mb: int,
    bpf_path: Path | None,
    writable: list[Path] = (),  # type: ignore[assignment]
    readonly: list[Path] = (),  # type: ignore[assignment]
    seccomp: bool = True,
) -> Command:
    """``argv`` under ``rlimits`` (prlimit), in bubblewrap where ``isolation`` says so: no
    network, read-only ``/`` but for ``writable``, private size-capped ``/tmp`` and
    ``/dev/shm``, no capabilities, and the run filter at ``bpf_path`` when ``seccomp``."""
    # The host's PATH finds the tool (a toolchain outside /usr/bin, e.g. under ~/.cargo).
    argv = [shutil.which(argv[0]) or argv[0], *argv[1:]] if "/" not in argv[0] else argv
    prlimit = ["prlimit", *(f"--{name}={value}" for name, value in rlimits.items()), "--"]
    if not isolation.startswith("bwrap"):
        return Command([*prlimit, *argv], cwd, None)
    bwrap = [
        "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
        "--size", str(tmp_size_mb * 1024 * 1024), "--tmpfs", "/tmp",
        "--dev", "/dev", "--size", str(tmp_size_mb * 1024 * 1024), "--tmpfs", "/dev/shm",
        "--remount-ro", "/dev", "--proc", "/proc", "--cap-drop", "ALL",
    ]  # fmt: skip
    for path in writable:
        bwrap += ["--bind", str(path), str(path)]
    for path in readonly:
        bwrap += ["--ro-bind", str(path), str(path)]
    inner_cwd = cwd if writable else Path("/tmp")
    bwrap += ["--chdir", str(inner_cwd)]
    seccomp_file = None
    if seccomp and bpf_path is not None:
        seccomp_file = bpf_path
        bwrap += ["--seccomp", "{seccomp_fd}"]
    return Command([*prlimit, *bwrap, "--", *argv], cwd, seccomp_file)
