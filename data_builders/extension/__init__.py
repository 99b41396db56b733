"""Test extension: from a problem's few original tests to 100+ reliable ones.

``cases`` reads the original assertions, ``inputs``/``stdio_inputs``/``signature`` make new
inputs, ``extend`` runs the reference on them through the sandboxed executor, ``suite`` holds
and caches the result.
"""
