"""Python's family: the pool of pre-imported, sandboxed workers that label programs test by test.

``pool.py`` (:class:`~data_builders.execution.python.pool.PythonPool`, the pool behind
``Executor("python")``) schedules programs on one lane per worker (``lanes.py``) and talks to
each worker process (``process.py``); the worker (``worker.py``, run as ``python -m
data_builders.execution.python.worker``) supervises one forked child per program
(``worker_supervision.py``), judges assertion tests on its side (``judge.py``) and forks
programs that import heavy libraries from its import zygote (``zygote.py``); the child
(``child.py``, entered by ``child_entry.py``) runs function tests (``function_child.py``) or
standard-input tests (``stdio_child.py``).

Nothing is imported here: every worker imports this package, and each module it imports makes
every per-program fork dearer.
"""
