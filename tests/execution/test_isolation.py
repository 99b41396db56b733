"""One isolation planner and one seccomp builder for every language.

The planner: the level asked for or an error naming it and what is missing; ``auto`` picks
the best level the executor provides. The builder: the Python children's filter and the
compiled runs' filter come from one deny list, and differ only in the allowances each
profile names (the hostile and forgery suites check what the filters stop).
"""

from __future__ import annotations

import os
import re

import pytest

import data_builders.execution.isolation as isolation
import data_builders.execution.sandbox as sandbox
from data_builders.execution.isolation import (
    COMPILED_LEVELS,
    ExecutorUnavailableError,
    plan_isolation,
)
from data_builders.execution.seccomp import (
    COMPILED_RUN,
    DENIED,
    PYTHON_CHILD,
    SeccompProfile,
    build_filter,
)

# The deny lists as they were when each executor built its own filter by hand.
PYTHON_CHILD_DENIED = {
    "fork", "vfork", "execve", "execveat", "socket", "socketpair", "ptrace", "mount",
    "umount2", "unshare", "setns", "bpf", "pivot_root", "chroot", "keyctl", "add_key",
    "request_key", "perf_event_open", "process_vm_readv", "process_vm_writev",
    "io_uring_setup", "userfaultfd", "kexec_load", "reboot", "setsid", "setpgid",
    "pidfd_send_signal", "pidfd_getfd", "kill", "tkill", "tgkill", "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
}  # fmt: skip
COMPILED_RUN_DENIED = {
    "fork", "vfork", "execveat", "ptrace", "mount", "umount2", "unshare", "setns", "bpf",
    "pivot_root", "chroot", "keyctl", "add_key", "request_key", "perf_event_open",
    "process_vm_readv", "process_vm_writev", "io_uring_setup", "userfaultfd", "kexec_load",
    "reboot", "socket",
}  # fmt: skip
COMPILED_RUN_ALLOWS = {
    "execve", "socketpair", "setsid", "setpgid", "kill", "tkill", "tgkill", "rt_sigqueueinfo",
    "rt_tgsigqueueinfo", "pidfd_send_signal", "pidfd_getfd",
}  # fmt: skip


def test_the_deny_lists_are_what_each_sandbox_denied_before() -> None:
    assert set(PYTHON_CHILD.denied()) == PYTHON_CHILD_DENIED == set(DENIED)
    assert set(COMPILED_RUN.denied()) == COMPILED_RUN_DENIED
    assert len(set(DENIED)) == len(DENIED)


def test_the_profiles_differ_only_in_the_named_allowances() -> None:
    assert set(PYTHON_CHILD.denied()) - set(COMPILED_RUN.denied()) == COMPILED_RUN_ALLOWS
    assert set(COMPILED_RUN.denied()) <= set(PYTHON_CHILD.denied())
    assert COMPILED_RUN.allowed() == COMPILED_RUN_ALLOWS and not PYTHON_CHILD.allowed()
    # what can never be given back: new processes, sockets, the kernel's own business
    for profile in (SeccompProfile("any", True, True, True, True), PYTHON_CHILD, COMPILED_RUN):
        assert {"fork", "vfork", "socket", "ptrace", "mount", "unshare", "bpf"} <= set(
            profile.denied()
        )


def _rules(profile: SeccompProfile) -> dict[str, tuple[str, ...]]:
    """The compiled filter's rules by syscall name, read from libseccomp's pseudo code."""
    pytest.importorskip("pyseccomp")

    class Fileno:
        def __init__(self, fd: int) -> None:
            self.fd = fd

        def fileno(self) -> int:
            return self.fd

    fd = os.memfd_create("pfc")
    try:
        build_filter(profile).export_pfc(Fileno(fd))
        text = os.pread(fd, os.lseek(fd, 0, os.SEEK_END), 0).decode()
    finally:
        os.close(fd)
    rules: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        stripped = line.strip()
        named = re.match(r'# filter for syscall "(\w+)"', stripped)
        if named:
            current = rules.setdefault(named.group(1), [])
        elif stripped.startswith(("#", "else", "if ($syscall >", "action ALLOW")):
            current = None
        elif current is not None:
            current.append(stripped)
    return {name: tuple(lines) for name, lines in rules.items()}


def test_the_compiled_filters_differ_only_in_the_named_allowances() -> None:
    python_child, compiled_run = _rules(PYTHON_CHILD), _rules(COMPILED_RUN)
    known = set(python_child)  # calls this libseccomp knows on this architecture
    assert known - set(compiled_run) == COMPILED_RUN_ALLOWS & known
    assert set(compiled_run) <= known
    for name, lines in compiled_run.items():
        assert lines == python_child[name], name
    assert compiled_run["clone3"][-1] == "action ERRNO(38);"  # ENOSYS: threads fall back
    assert compiled_run["fork"][-1] == "action ERRNO(1);"
    assert any("0x00010000" in line for line in compiled_run["clone"])  # CLONE_THREAD


def _without(monkeypatch: pytest.MonkeyPatch, bwrap: bool = True, seccomp: bool = True) -> None:
    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: None if bwrap else "no bwrap (test)")
    monkeypatch.setattr(sandbox, "seccomp_problem", lambda: None if seccomp else "no bpf (test)")


def test_auto_picks_the_best_level_the_executor_provides(monkeypatch) -> None:
    _without(monkeypatch)
    assert plan_isolation("auto").level == "bwrap+seccomp"
    assert plan_isolation("auto", COMPILED_LEVELS).level == "bwrap+seccomp"
    _without(monkeypatch, seccomp=False)
    plan = plan_isolation("auto")
    assert (plan.bwrap, plan.seccomp, plan.missing) == (True, False, ("no bpf (test)",))
    # compiled languages' filter is loaded by bubblewrap: no bwrap-only level for them
    plan = plan_isolation("auto", COMPILED_LEVELS)
    assert (plan.level, plan.missing) == ("rlimits", ("no bpf (test)",))
    _without(monkeypatch, bwrap=False, seccomp=False)
    assert plan_isolation("auto").missing == ("no bwrap (test)", "no bpf (test)")


def test_a_level_asked_for_is_met_or_an_error_naming_it_and_why(monkeypatch) -> None:
    _without(monkeypatch, bwrap=False)
    for levels in (isolation.ISOLATION_LEVELS, COMPILED_LEVELS):
        with pytest.raises(ExecutorUnavailableError, match=r"'bwrap\+seccomp'.*no bwrap \(test\)"):
            plan_isolation("bwrap+seccomp", levels)
        assert plan_isolation("rlimits", levels).level == "rlimits"
    assert plan_isolation("seccomp").level == "seccomp"
    with pytest.raises(ValueError, match="isolation must be"):
        plan_isolation("bwrap", COMPILED_LEVELS)
    with pytest.raises(ValueError, match="isolation must be"):
        plan_isolation("none")


def test_foreign_fallback_warns_once(monkeypatch, capsys, tmp_path) -> None:
    from data_builders.execution.executor import Executor

    _without(monkeypatch, bwrap=False)
    monkeypatch.setattr(isolation, "_WARNED", set())
    for _ in range(2):
        with Executor("cpp", workers=1, cache_dir=tmp_path) as ex:
            assert ex.isolation == "rlimits"
    assert capsys.readouterr().err.count("warning: foreign programs run with rlimits only") == 1
