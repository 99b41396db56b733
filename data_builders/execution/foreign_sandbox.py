"""Isolation for the foreign-language runner: which level to use, and the seccomp filter
bubblewrap loads before it executes a program (threads yes, new processes and sockets no)."""

from __future__ import annotations

import contextlib
import errno
import os
import sys

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
