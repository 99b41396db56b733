"""Dataset builders for APPS-Eval, MBPP-Eval and HE-Eval, and the sandboxed executor they use.

Run ``python -m data_builders --help`` for the command line (``label``, ``build``, ``merge``,
``sample``, ``coverage``).
This package must stay importable without torch: the executor's workers are plain Python.
"""

__version__ = "0.1.0"
