"""The compiled family: C++, Java, JavaScript, Go and Rust programs, compiled and run per
assertion in the sandbox (docs/languages.md).

``pool.py`` (:class:`~data_builders.execution.compiled.pool.ForeignPool`, the pool behind
``Executor(language)`` for every language but Python) builds each program's driver
(``build.py``; a warm compiler: ``compile_server.py``), runs its cases (``run.py``; a
long-lived runtime: ``runner.py``) as one sandboxed process (``process.py``, ``sandbox.py``)
whose reports ``watch.py`` reads, and judges value cases on the host (``checks.py``, with
the values of ``values.py`` read from the test by ``literals.py`` and ``tokens.py``, compared
by ``semantics.py`` and ``js_semantics.py``; computed expected values from a reference run:
``reference.py``). One module per language in ``languages/``. ``plain_harness.py``: a plain,
MultiPL-E-style harness that label's verdicts are checked against.
"""
