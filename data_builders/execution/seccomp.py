"""The seccomp filters: one builder, one profile per kind of sandboxed process.

Every profile starts from the same deny list (:data:`DENIED`: new processes, ``execve``,
sockets, signals, ``ptrace``, ``mount``, namespaces, ``bpf``, ``io_uring``, keys, sessions,
...) and the same rules for ``clone`` (denied unless it makes a thread) and ``clone3``
(``ENOSYS``, so threads fall back to ``clone`` and still work). A :class:`SeccompProfile`
says which groups of calls its processes need back, and why:

* :data:`PYTHON_CHILD`: a Python program's forked child (loaded by the child itself through
  :class:`~data_builders.execution.sandbox.PreparedFilter`). Needs nothing back.
* :data:`COMPILED_RUN`: a compiled program's run (C++, Java, JavaScript, Go, Rust), loaded
  by bubblewrap (``--seccomp``) just before it executes the program, inside bubblewrap's own
  PID namespace.

Host and helper processes only: building a filter imports pyseccomp, which pulls in
``subprocess`` and ``threading`` (whose at-fork hooks would slow every fork of a Python
worker); the worker compiles its filter in a throwaway child and keeps only the BPF bytes.
"""

from __future__ import annotations

import contextlib
import errno
import os
from dataclasses import dataclass
from typing import Any

CLONE_THREAD = 0x00010000

DENIED = (
    "fork", "vfork", "execve", "execveat", "socket", "socketpair", "ptrace", "mount",
    "umount2", "unshare", "setns", "bpf", "pivot_root", "chroot", "keyctl", "add_key",
    "request_key", "perf_event_open", "process_vm_readv", "process_vm_writev",
    "io_uring_setup", "userfaultfd", "kexec_load", "reboot", "setsid", "setpgid",
    "pidfd_send_signal", "pidfd_getfd", "kill", "tkill", "tgkill", "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
)  # fmt: skip
"""Denied (``EPERM``) unless a profile's allowances give a call back. Calls unknown on this
architecture are skipped."""

EXEC_CALLS = ("execve",)
SIGNAL_CALLS = (
    "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_send_signal",
    "pidfd_getfd",
)  # fmt: skip
SOCKETPAIR_CALLS = ("socketpair",)
SESSION_CALLS = ("setsid", "setpgid")


@dataclass(frozen=True)
class SeccompProfile:
    """What one kind of sandboxed process gets back from :data:`DENIED`.

    Attributes:
        name: names the memfd the filter is exported through (seen in ``/proc``).
        execve: ``execve`` allowed (the loader of the filter then executes the program;
            without ``fork`` a later ``execve`` can only replace the program itself).
        signals: the kill family and the pidfd calls allowed (``kill``, ``tkill``,
            ``tgkill``, ``rt_*sigqueueinfo``, ``pidfd_send_signal``, ``pidfd_getfd``): safe
            only where the program is alone in its PID namespace; runtimes signal their own
            threads (Go's preemption, the JVM's safepoints).
        socketpair: ``socketpair`` allowed (a connected pair reaches nothing; the JVM's NIO
            makes one on first use of a file channel). ``socket`` stays denied everywhere.
        sessions: ``setsid``/``setpgid`` allowed: only where the process is not ended by
            killing the process group it was started in (a PID namespace that dies with
            its sandbox ends it wherever it went).
        binary_tree: libseccomp lays the syscall checks out as a binary tree (quicker for
            the kernel to check when the filter is attached) instead of a linear list.
    """

    name: str
    execve: bool = False
    signals: bool = False
    socketpair: bool = False
    sessions: bool = False
    binary_tree: bool = False

    def allowed(self) -> frozenset[str]:
        """The calls of :data:`DENIED` this profile gives back."""
        groups = (
            (self.execve, EXEC_CALLS),
            (self.signals, SIGNAL_CALLS),
            (self.socketpair, SOCKETPAIR_CALLS),
            (self.sessions, SESSION_CALLS),
        )
        return frozenset(name for on, names in groups if on for name in names)

    def denied(self) -> tuple[str, ...]:
        """The calls this profile denies with ``EPERM`` (besides non-thread ``clone``)."""
        allowed = self.allowed()
        return tuple(name for name in DENIED if name not in allowed)


PYTHON_CHILD = SeccompProfile("unice-seccomp", binary_tree=True)
"""A Python program's child: no new processes, no ``execve``, no sockets, no signals to any
process (CPU limits still work: the kernel delivers SIGPROF/SIGXCPU itself), no
``setsid``/``setpgid`` (so a program cannot leave the process group the worker kills)."""

COMPILED_RUN = SeccompProfile(
    "unice-run-filter", execve=True, signals=True, socketpair=True, sessions=True
)
"""A compiled program's run under bubblewrap: ``execve`` (bubblewrap loads the filter, then
executes the program), signals (alone in its PID namespace), ``socketpair`` (the JVM) and
sessions (the PID namespace dies with bubblewrap, whichever group a process is in) are
allowed."""


def build_filter(profile: SeccompProfile) -> Any:
    """The pyseccomp filter for ``profile`` (imports pyseccomp)."""
    import pyseccomp as sc

    deny = sc.ERRNO(errno.EPERM)
    flt = sc.SyscallFilter(defaction=sc.ALLOW)
    # SECCOMP_FILTER_FLAG_SPEC_ALLOW: without it the kernel turns on Spectre mitigations
    # (IBPB/STIBP, SSBD) for every filtered task; they defend against side channels, not
    # against anything this sandbox is meant to contain, and they cost CPU. Older
    # libseccomp versions lack the attribute: keep the mitigations there.
    with contextlib.suppress(OSError, RuntimeError, ValueError):
        flt.set_attr(sc.Attr.CTL_SSB, 1)
    if profile.binary_tree:
        with contextlib.suppress(OSError, RuntimeError, ValueError, AttributeError):
            flt.set_attr(sc.Attr.CTL_OPTIMIZE, 2)
    for name in profile.denied():
        # a call unknown on this architecture raises: there is nothing to deny
        with contextlib.suppress(RuntimeError, ValueError, OSError):
            flt.add_rule(deny, name)
    flt.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, CLONE_THREAD, 0))
    flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    return flt


def export_bpf(profile: SeccompProfile) -> bytes:
    """``profile``'s filter compiled to a raw BPF program (for
    :class:`~data_builders.execution.sandbox.PreparedFilter` or ``bwrap --seccomp``)."""
    flt = build_filter(profile)
    fd = os.memfd_create(profile.name)
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
