"""Per-test statuses, in a module of their own so the worker can import them alone.

Why a separate module: every module a worker imports makes each of its per-program forks
dearer (more memory to copy-on-write); ``types`` needs ``dataclasses`` and ``inspect``,
which the worker has no use for.
"""

STATUSES: tuple[str, ...] = (
    "pass",
    "wrong_answer",
    "runtime_error",
    "timeout",
    "memory",
    "signal",
    "compile_error",
)
"""Per-test statuses. Everything except ``pass`` and ``wrong_answer`` makes a program
non-executable."""
