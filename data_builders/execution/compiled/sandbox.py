"""The sandboxed command line of a foreign-language compile or run: prlimit, and bubblewrap
where the isolation level says so (the sandbox: ``sandbox.py``'s ``bwrap_args``, the one the
Python workers run in too; the run's seccomp filter: ``seccomp.py``'s ``COMPILED_RUN``; the
level: ``isolation.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from data_builders.execution.compiled.process import Command
from data_builders.execution.sandbox import bwrap_args


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
    binds = [arg for path in writable for arg in ("--bind", str(path), str(path))]
    binds += [arg for path in readonly for arg in ("--ro-bind", str(path), str(path))]
    inner_cwd = cwd if writable else Path("/tmp")
    bwrap = bwrap_args(tmp_size_mb=tmp_size_mb, binds=binds, chdir=str(inner_cwd))
    seccomp_file = None
    if seccomp and bpf_path is not None:
        seccomp_file = bpf_path
        bwrap += ["--seccomp", "{seccomp_fd}"]
    return Command([*prlimit, *bwrap, "--", *argv], cwd, seccomp_file)
