"""Isolation around the workers: bubblewrap namespaces and a seccomp filter per child.

Measured facts behind the choices (see docs/execution.md): wrapping each *worker* in
bubblewrap costs nothing per program (a bwrap launch costs ~7 ms, so it must never wrap a
single test); loading a prebuilt seccomp filter in each forked child costs ~0.2 ms.

* bubblewrap: ``--unshare-all`` (no network, own PID/IPC/UTS namespaces), read-only view of
  ``/``, private tmpfs ``/tmp`` for scratch, no capabilities, uid 65534.
* seccomp (pyseccomp), loaded in each program's child: no new processes (fork, vfork, clone
  without CLONE_THREAD; clone3 -> ENOSYS so threads fall back to clone and still work), no
  execve, no sockets, no signals to other processes, no ptrace, mount, unshare, setns, bpf,
  io_uring, keyctl, setsid/setpgid (so a program cannot leave the process group we kill).
"""

from __future__ import annotations

import errno
import functools
import shutil
import subprocess
from typing import Any

ISOLATION_LEVELS = ("bwrap+seccomp", "bwrap", "seccomp", "rlimits")

_CLONE_THREAD = 0x00010000
_DENY_EPERM = (
    "fork", "vfork", "execve", "execveat", "socket", "socketpair", "ptrace", "mount",
    "umount2", "unshare", "setns", "bpf", "pivot_root", "chroot", "keyctl", "add_key",
    "request_key", "perf_event_open", "process_vm_readv", "process_vm_writev",
    "io_uring_setup", "userfaultfd", "kexec_load", "reboot", "setsid", "setpgid",
    "pidfd_send_signal", "pidfd_getfd",
)  # fmt: skip


def bwrap_command() -> list[str]:
    """The bubblewrap prefix that every worker runs under."""
    return [
        "bwrap", "--unshare-all", "--die-with-parent", "--new-session",
        "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--dev", "/dev", "--proc", "/proc",
        "--cap-drop", "ALL", "--uid", "65534", "--gid", "65534", "--chdir", "/tmp", "--",
    ]  # fmt: skip


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """None when bubblewrap works here, else why not (probed once per process)."""
    if shutil.which("bwrap") is None:
        return "bwrap not found (install the Debian/Ubuntu package 'bubblewrap')"
    try:
        proc = subprocess.run(
            [*bwrap_command(), "true"], capture_output=True, text=True, timeout=20, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap failed to start ({exc})"
    if proc.returncode != 0:
        return f"bwrap cannot create namespaces here ({proc.stderr.strip()[:200]})"
    return None


def seccomp_problem() -> str | None:
    """None when pyseccomp imports (whether the kernel accepts the filter is probed by the
    worker itself, which reports it at start-up)."""
    try:
        import pyseccomp  # noqa: F401
    except (ImportError, OSError) as exc:  # OSError: libseccomp shared library missing
        return f"pyseccomp unavailable ({exc}); pip install pyseccomp and apt install libseccomp2"
    return None


def build_filter(own_pid: int) -> Any:
    """The seccomp filter for one program's child (call in the child, after fork).

    Args:
        own_pid: the child's pid (as seen in its PID namespace); signals may target only it.
    """
    import pyseccomp as sc

    deny = sc.ERRNO(errno.EPERM)
    flt = sc.SyscallFilter(defaction=sc.ALLOW)
    for name in _DENY_EPERM:
        try:
            flt.add_rule(deny, name)
        except (RuntimeError, ValueError, OSError):  # syscall unknown on this architecture
            continue
    flt.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, _CLONE_THREAD, 0))
    flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for name in ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo"):
        flt.add_rule(deny, name, sc.Arg(0, sc.NE, own_pid))
    return flt
