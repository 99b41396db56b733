"""JavaScript's comparisons (``===``, ``==``, Node's ``assert.deepEqual``/``deepStrictEqual``,
``JSON.stringify``), applied on the host to a program's value and a constant read from the
test (``checks.py`` picks one per assertion)."""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from typing import Any

from data_builders.execution.compiled.values import UNDEFINED, JsObject, Tagged


def _js_kind(value: Any) -> str:
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Tagged) and value.tag == "$bigint":
        return "bigint"
    return "object"


def js_truthy(value: Any) -> bool:
    kind = _js_kind(value)
    if kind in ("undefined", "null"):
        return False
    if kind == "number":
        return not (value == 0 or math.isnan(value))
    if kind in ("boolean", "string"):
        return bool(value)
    if kind == "bigint":
        return value.value != 0
    return True


def js_strict_eq(actual: Any, expected: Any) -> bool:
    """``actual === expected`` for a literal ``expected`` (an array or object literal is a
    new object: never identical to anything)."""
    kind = _js_kind(actual)
    if kind != _js_kind(expected) or kind == "object":
        return False
    if kind == "bigint":
        return actual.value == expected.value
    return actual == expected


def js_to_number(value: Any) -> float:
    kind = _js_kind(value)
    if kind == "number":
        return float(value)
    if kind == "boolean":
        return 1.0 if value else 0.0
    if kind == "null":
        return 0.0
    if kind == "undefined":
        return math.nan
    if kind == "string":
        text = value.strip()
        if not text:
            return 0.0
        try:
            if re.fullmatch(r"[+-]?(Infinity|\d+\.?\d*(e[+-]?\d+)?|\.\d+(e[+-]?\d+)?)", text, re.I):
                return float(text.replace("Infinity", "inf"))
            if re.fullmatch(r"0[xob][0-9a-f]+", text, re.I):
                return float(int(text, 0))
        except ValueError:
            pass
        return math.nan
    if kind == "bigint":
        raise TypeError("Cannot mix BigInt and other types")
    return js_to_number(js_to_primitive(value))


def js_to_primitive(value: Any) -> Any:
    if isinstance(value, list):
        return ",".join("" if v is None or v is UNDEFINED else js_to_string(v) for v in value)
    if _js_kind(value) == "object":
        return "[object Object]"
    return value


def js_to_string(value: Any) -> str:
    kind = _js_kind(value)
    if kind == "string":
        return value
    if kind == "number":
        return js_number_to_string(float(value))
    if kind == "boolean":
        return "true" if value else "false"
    if kind in ("null", "undefined"):
        return kind
    if kind == "bigint":
        return str(value.value)
    return js_to_string(js_to_primitive(value))


def js_loose_eq(actual: Any, expected: Any) -> bool:
    """``actual == expected`` (the abstract equality of primitives; an object against a
    primitive through its primitive value)."""
    a, b = _js_kind(actual), _js_kind(expected)
    if a == b:
        return js_strict_eq(actual, expected)
    if {a, b} == {"null", "undefined"}:
        return True
    if "null" in (a, b) or "undefined" in (a, b):
        return False
    if a == "object" and b == "object":
        return False
    if a == "object":
        return js_loose_eq(js_to_primitive(actual), expected)
    if b == "object":
        return js_loose_eq(actual, js_to_primitive(expected))
    if a == "bigint" or b == "bigint":
        big, other = (actual, expected) if a == "bigint" else (expected, actual)
        number = js_to_number(other)
        return math.isfinite(number) and big.value == number
    return js_to_number(actual) == js_to_number(expected)


def js_deep_equal(actual: Any, expected: Any, strict: bool) -> bool:
    """Node's ``assert.deepStrictEqual`` (``strict``) / ``assert.deepEqual``: arrays element
    by element, objects by their own enumerable keys, primitives by ``Object.is`` (strict)
    or ``==`` (NaN equals NaN in both); an array is never equal to a non-array."""
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(js_deep_equal(a, e, strict) for a, e in zip(actual, expected, strict=True))
        )
    if isinstance(expected, JsObject):
        if not isinstance(actual, JsObject):
            return False
        mine, want = dict(actual.items), dict(expected.items)
        return set(mine) == set(want) and all(js_deep_equal(mine[k], want[k], strict) for k in want)
    if isinstance(actual, list | JsObject | Tagged) and _js_kind(actual) == "object":
        return False if strict else js_loose_eq(actual, expected)
    kinds = (_js_kind(actual), _js_kind(expected))
    if kinds == ("number", "number") and math.isnan(actual) and math.isnan(expected):
        return True
    if strict:
        if kinds == ("number", "number") and actual == 0 and expected == 0:
            return math.copysign(1, actual) == math.copysign(1, expected)
        return js_strict_eq(actual, expected)
    return js_loose_eq(actual, expected)


def js_number_to_string(x: float) -> str:
    """ECMAScript's Number::toString (shortest round-trip digits, JavaScript's layout)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number_to_string(-x)
    sign, digits_t, exponent = Decimal(repr(x)).normalize().as_tuple()
    digits = "".join(map(str, digits_t))
    k = len(digits)
    n = exponent + k  # x = 0.digits * 10**n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
    return f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"


def js_json(value: Any) -> str | None:
    """``JSON.stringify(value)`` (None for ``undefined``)."""
    kind = _js_kind(value)
    if kind == "undefined" or (isinstance(value, Tagged) and value.tag in ("$function", "$symbol")):
        return None
    if kind == "null":
        return "null"
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "number":
        return js_number_to_string(float(value)) if math.isfinite(value) else "null"
    if kind == "string":
        return json.dumps(value, ensure_ascii=False)
    if kind == "bigint":
        raise TypeError("Do not know how to serialize a BigInt")
    if isinstance(value, list):
        return "[" + ",".join(js_json(v) or "null" for v in value) + "]"
    if isinstance(value, JsObject):
        parts = []
        for key, item in value.items:
            text = js_json(item)
            if text is not None:
                parts.append(json.dumps(key, ensure_ascii=False) + ":" + text)
        return "{" + ",".join(parts) + "}"
    return "{}"  # Map, Set: no enumerable own keys
