"""One extended test (Python args + expected value) as an assertion statement in C++, Java,
JavaScript, Go or Rust, in the shape HumanEval-X's own tests use.

============  =================================================================================
language      statement (``f`` the function under test; floats compare within a tolerance)
============  =================================================================================
cpp           ``assert ((f(a, b) == expected));`` (the macro would split ``{1, 2}`` at commas) / ``assert (std::abs(f(a) - 0.5) < 1e-06);``
java          ``if (!(Objects.equals(s.f(a), expected))) throw new AssertionError();`` (``s`` is
              the ``Solution`` instance, as in HumanEval-X's ``Main``)
js            ``assert.deepStrictEqual(f(a), expected);`` (``console.assert`` does not fail in
              Node, so the extended tests use ``node:assert``, see :data:`PRELUDES`)
go            ``assert.Equal(expected, F(a))`` / ``assert.InDelta(0.5, F(a), 1e-06)`` (testify,
              inside HumanEval-X's ``func TestF(t *testing.T)`` with ``assert := assert.New(t)``)
rust          ``assert_eq!(f(a), expected);`` / ``assert!((f(a) - 0.5).abs() < 1e-06);``
============  =================================================================================

C++ compares with ``==`` rather than HumanEval-X's per-task ``issame`` helpers, which exist only
for some element types; ``std::vector``/``std::map``/``std::string`` equality is the same test.
As in HE-Eval's Python suites, only a top-level float is compared within the tolerance (1e-6;
1e-4 for a 32-bit ``float``/``f32`` result, as HumanEval-X's C++ tests use); floats
nested in lists compare exactly (the expected values come from the same language's reference).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from data_builders.extension.suite import FLOAT_TOLERANCE
from data_builders.test_translation.literals import Untranslatable, float_text, js_literal, literal
from data_builders.test_translation.types import ANY, Signature, Type

FLOAT32_TOLERANCE = 1e-4  # HumanEval-X's own C++ tests compare float results within 1e-4

# What a program needs above the extended assertions (the executor side assembles programs).
PRELUDES = {
    "cpp": "#include <cassert>\n#include <cmath>\n#include <map>\n#include <string>\n#include <tuple>\n#include <utility>\n#include <vector>\n",
    "java": "import java.util.*;\n",
    "js": 'const assert = require("node:assert");\n',
    "go": 'import (\n    "testing"\n    "github.com/stretchr/testify/assert"\n)\n',
    "rust": "use std::collections::HashMap;\n",
}


def _check_arity(sig: Signature, args: Sequence[Any]) -> None:
    declared = len(sig.params)
    # JavaScript ignores missing arguments: HumanEval-X's JS sumProduct declares an unused one
    if len(args) == declared or (sig.language == "js" and len(args) < declared):
        return
    raise Untranslatable(f"{len(args)} arguments where {sig.name} declares {declared}")


def _opaque_check(sig: Signature) -> None:
    for name, t in (*sig.params, ("return value", sig.returns)):
        if t.kind in ("opaque", "void"):
            raise Untranslatable(f"{sig.name}: {name} is declared {t.spelling or t.kind}")


def call_expression(sig: Signature, args: Sequence[Any]) -> str:
    """``f(lit1, lit2)`` with each argument translated through its declared parameter type."""
    _check_arity(sig, args)
    texts = [
        js_literal(value) if sig.language == "js" else literal(sig.language, value, t)
        for value, (_, t) in zip(args, sig.params, strict=False)  # JS may pass fewer
    ]
    prefix = "s." if sig.language == "java" else ""
    return f"{prefix}{sig.name}({', '.join(texts)})"


def _is_float_result(returns: Type, expected: Any) -> bool:
    if returns.kind == "float":
        return True
    if returns.kind in ("any", "object"):
        return isinstance(expected, float)
    return False


def assertion(sig: Signature, args: Sequence[Any], expected: Any, tol: float | None = None) -> str:
    """The assertion statement checking ``f(*args) == expected`` in ``sig.language``.

    Raises:
        Untranslatable: an argument or the expected value has no literal of its declared type,
            the argument count differs from the declaration, or a type has no literal form.
    """
    _opaque_check(sig)
    call = call_expression(sig, args)
    language, returns = sig.language, sig.returns
    if tol is None:  # a 32-bit float result is only good to ~1e-7 relative: HumanEval-X's 1e-4
        single = returns.kind == "float" and returns.bits == 32
        tol = FLOAT32_TOLERANCE if single else FLOAT_TOLERANCE
    if _is_float_result(returns, expected):
        if returns.kind == "float":
            text = literal(language, expected, returns)
        else:
            if isinstance(expected, bool) or not math.isfinite(expected):
                raise Untranslatable(f"{expected!r} cannot be compared within a tolerance")
            text = float_text(float(expected))
            if language == "java":  # an Object result: unbox before subtracting
                call = f"((Number) {call}).doubleValue()"
        return _float_assertion(language, call, text, float_text(tol))
    if language == "js":
        return f"assert.deepStrictEqual({call}, {js_literal(expected, ANY)});"
    text = literal(language, expected, returns)
    if language == "cpp":
        return f"assert (({call} == {text}));"  # inner parentheses: braces' commas
    if language == "java":
        return f"if (!(Objects.equals({call}, {text}))) throw new AssertionError();"
    if language == "go":
        return f"assert.Equal({text}, {call})"
    return f"assert_eq!({call}, {text});"


def _float_assertion(language: str, call: str, expected: str, tol: str) -> str:
    if language == "cpp":
        return f"assert (std::abs({call} - {expected}) < {tol});"
    if language == "java":
        return f"if (!(Math.abs({call} - {expected}) < {tol})) throw new AssertionError();"
    if language == "js":
        return f"assert.ok(Math.abs({call} - {expected}) < {tol});"
    if language == "go":
        return f"assert.InDelta({expected}, {call}, {tol})"
    return f"assert!(({call} - {expected}).abs() < {tol});"
