"""Isolation around the workers: bubblewrap namespaces, and installing a seccomp filter.

The bubblewrap sandbox itself (:func:`bwrap_args`) is the one both families run in: the
Python workers (:func:`bwrap_command`) and the compiled languages' compiles and runs
(``compiled/sandbox.py``).

Measured facts behind the choices (see docs/execution.md): wrapping each *worker* in
bubblewrap costs nothing per program (a bwrap launch costs ~7 ms, so it must never wrap a
single test); loading a prebuilt seccomp filter in each forked child costs ~0.2 ms.

* bubblewrap: ``--unshare-all`` (no network, own PID/IPC/UTS namespaces), read-only view of
  ``/``, private tmpfs ``/tmp`` for scratch and ``/dev/shm``, read-only ``/dev``, no
  capabilities, uid 65534 (the worker wipes what a program leaves in /tmp and /dev/shm).
* seccomp: the filter is built by ``seccomp.py`` (the profile ``PYTHON_CHILD``: no new
  processes, no execve, no sockets, no signals, no setsid/setpgid, ...), compiled to BPF once
  per worker and installed in each program's child by :class:`PreparedFilter`.

Which of the two an executor uses: ``isolation.py``. The Python worker imports this module:
it must stay free of ``threading``, ``subprocess`` and ``dataclasses`` at import.
"""

from __future__ import annotations

import ctypes
import functools
import os
import platform


def _paths_hidden_by_private_tmp() -> list[str]:
    """Interpreter and package folders that live under ``/tmp`` (a checkout or venv there).

    The private tmpfs on ``/tmp`` would hide them from the worker, which then cannot even
    start; they are bound back read-only on top of the tmpfs.
    """
    import sys

    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    candidates = {sys.prefix, sys.base_prefix, os.path.dirname(sys.executable), package_root}
    candidates.update(entry for entry in sys.path if entry)
    hidden = set()
    for path in candidates:
        for form in (os.path.abspath(path), os.path.realpath(path)):
            # Never /tmp itself (a script run from /tmp puts it on sys.path): the worker's
            # scratch lives there and must stay the writable private tmpfs.
            if form.startswith("/tmp/") and os.path.exists(form):
                hidden.add(form)
    # A folder already covered by a bound parent needs no bind of its own.
    return [p for p in sorted(hidden) if not any(p.startswith(q + "/") for q in hidden)]


def bwrap_args(
    *,
    tmp_size_mb: int | None = None,
    under_tmp: list[str] = (),  # type: ignore[assignment]
    binds: list[str] = (),  # type: ignore[assignment]
    uid: int | None = None,
    chdir: str = "/tmp",
) -> list[str]:
    """The bubblewrap sandbox every sandboxed process of either family runs in (without the
    closing ``--``): no network and namespaces of its own, a read-only ``/``, private
    ``/tmp`` and ``/dev/shm`` (``tmp_size_mb`` caps each), read-only ``/dev``, no
    capabilities. ``under_tmp``: bind arguments mounted on the private ``/tmp`` (paths it
    would hide); ``binds``: the process's own bind arguments; ``uid``: the user (and group)
    it runs as; ``chdir``: where it starts."""
    size = ["--size", str(tmp_size_mb * 1024 * 1024)] if tmp_size_mb is not None else []
    user = ["--uid", str(uid), "--gid", str(uid)] if uid is not None else []
    return [
        "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--ro-bind", "/", "/",
        *size, "--tmpfs", "/tmp", *under_tmp, "--dev", "/dev", *size, "--tmpfs", "/dev/shm",
        "--remount-ro", "/dev", "--proc", "/proc", "--cap-drop", "ALL", *binds, *user,
        "--chdir", chdir,
    ]  # fmt: skip


def bwrap_command() -> list[str]:
    """The bubblewrap prefix that every Python worker runs under (uid 65534, in ``/tmp``)."""
    rebinds = [arg for path in _paths_hidden_by_private_tmp() for arg in ("--ro-bind", path, path)]
    return [*bwrap_args(under_tmp=rebinds, uid=65534), "--"]


@functools.lru_cache(maxsize=1)
def bwrap_problem() -> str | None:
    """None when bubblewrap works here, else why not (probed once per process)."""
    import shutil  # imported here: workers import this module, and subprocess pulls in
    import subprocess  # threading, whose at-fork hook would slow every fork down
    import sys

    if shutil.which("bwrap") is None:
        return "bwrap not found (install the Debian/Ubuntu package 'bubblewrap')"
    try:
        proc = subprocess.run(
            # The real interpreter, so a sandbox that cannot see it is caught here, not later.
            [*bwrap_command(), sys.executable, "-c", "import data_builders.execution"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap failed to start ({exc})"
    if proc.returncode != 0:
        return f"bwrap cannot run the interpreter here ({proc.stderr.strip()[:200]})"
    return None


def seccomp_problem() -> str | None:
    """None when pyseccomp imports (whether the kernel accepts the filter is probed by the
    worker itself, which reports it at start-up)."""
    try:
        import pyseccomp  # noqa: F401
    except (ImportError, OSError) as exc:  # OSError: libseccomp shared library missing
        return f"pyseccomp unavailable ({exc}); pip install pyseccomp and apt install libseccomp2"
    return None


_SYS_SECCOMP = {"x86_64": 317, "aarch64": 277}
_PR_SET_NO_NEW_PRIVS = 38
_PR_GET_NO_NEW_PRIVS = 39
_SECCOMP_GET_ACTION_AVAIL = 2
_SECCOMP_RET_ALLOW = 0x7FFF0000
_SECCOMP_SET_MODE_FILTER = 1
_SECCOMP_FILTER_FLAG_SPEC_ALLOW = 4


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class PreparedFilter:
    """A BPF program compiled once per worker; installing it in a child is two syscalls.

    ``SyscallFilter.load()`` regenerates the program each time (~0.35 ms, ~1 ms with building);
    installing the exported bytes with ``seccomp(2)`` costs ~20 us and needs only ctypes.
    """

    def __init__(self, bpf: bytes) -> None:
        if not bpf or len(bpf) % 8:
            raise ValueError("not a BPF program")
        number = _SYS_SECCOMP.get(platform.machine())
        if number is None:
            raise OSError(f"no seccomp syscall number known for {platform.machine()}")
        self._number = number
        self._buffer = ctypes.create_string_buffer(bpf, len(bpf))
        self._program = _SockFprog(len(bpf) // 8, ctypes.addressof(self._buffer))
        self._libc = ctypes.CDLL(None, use_errno=True)

    def warm_up(self) -> None:
        """Make both foreign calls once, harmlessly, in the worker before any fork.

        Why: ctypes prepares a foreign call on its first use; done in each child after the
        fork, that preparation touches fresh memory and costs ~0.1 ms per program.
        """
        self._libc.prctl(_PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
        allow = ctypes.c_uint32(_SECCOMP_RET_ALLOW)
        self._libc.syscall(
            ctypes.c_long(self._number),
            ctypes.c_long(_SECCOMP_GET_ACTION_AVAIL),
            ctypes.c_long(0),
            ctypes.byref(allow),
        )

    def install(self) -> None:
        """Apply the filter to the calling process (irreversible)."""
        libc = self._libc
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        for flags in (_SECCOMP_FILTER_FLAG_SPEC_ALLOW, 0):  # flag unknown before Linux 4.17
            result = libc.syscall(
                ctypes.c_long(self._number),
                ctypes.c_long(_SECCOMP_SET_MODE_FILTER),
                ctypes.c_long(flags),
                ctypes.byref(self._program),
            )
            if result == 0:
                return
        raise OSError(ctypes.get_errno(), "seccomp(SECCOMP_SET_MODE_FILTER) failed")
