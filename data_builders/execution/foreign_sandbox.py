"""Isolation for the foreign-language runner: which level to use, the seccomp filter
bubblewrap loads before it executes a program (threads yes, new processes and sockets no),
and the sandboxed command line of a compile or a run."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sys
from pathlib import Path

from data_builders.execution.foreign_process import Command

_CLONE_THREAD = 0x00010000
_DENY = (
    "fork", "vfork", "execveat", "ptrace", "mount", "umount2", "unshare", "setns", "bpf",
    "pivot_root", "chroot", "keyctl", "add_key", "request_key", "perf_event_open",
    "process_vm_readv", "process_vm_writev", "io_uring_setup", "userfaultfd", "kexec_load",
    "reboot", "socket",
)  # fmt: skip
"""Denied in runs. ``socketpair`` stays allowed: the JVM's NIO makes one on first use of a
file channel, and a connected pair reaches nothing (the network namespace is empty)."""


_WARNED = False


def plan_isolation(isolation: str) -> str:
    """The isolation level to use for ``isolation`` (warns once when ``auto`` falls back)."""
    global _WARNED
    from data_builders.execution.sandbox import bwrap_problem, seccomp_problem

    if isolation == "rlimits":
        return "rlimits"
    issues = [p for p in (bwrap_problem(), seccomp_problem()) if p]
    if not issues:
        return "bwrap+seccomp"
    if isolation == "auto":
        if not _WARNED:
            _WARNED = True
            print(
                f"warning: foreign programs run with rlimits only: {'; '.join(issues)}",
                file=sys.stderr,
            )
        return "rlimits"
    raise RuntimeError(f"isolation {isolation!r} unavailable: {'; '.join(issues)}")


def run_filter_bpf() -> bytes:
    """The seccomp filter for runs, compiled to BPF for ``bwrap --seccomp``.

    Unlike the Python children's filter, ``execve`` stays allowed (bubblewrap loads the
    filter and then executes the program; without ``fork`` a later ``execve`` can only
    replace the program itself) and so do signals (the program is alone in its PID
    namespace; runtimes signal their own threads: Go's preemption, the JVM's safepoints).
    """
    import pyseccomp as sc

    flt = sc.SyscallFilter(defaction=sc.ALLOW)
    deny = sc.ERRNO(errno.EPERM)
    with contextlib.suppress(OSError, RuntimeError, ValueError):
        flt.set_attr(sc.Attr.CTL_SSB, 1)
    for name in _DENY:
        with contextlib.suppress(RuntimeError, ValueError, OSError):
            flt.add_rule(deny, name)
    flt.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
    flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    fd = os.memfd_create("unice-run-filter")
    try:
        flt.export_bpf(_Fileno(fd))
        return os.pread(fd, os.lseek(fd, 0, os.SEEK_END), 0)
    finally:
        os.close(fd)


class _Fileno:
    def __init__(self, fd: int) -> None:
        self._fd = fd

    def fileno(self) -> int:
        return self._fd


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
