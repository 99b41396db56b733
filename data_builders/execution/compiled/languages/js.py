"""JavaScript (Node.js).

HumanEval-X's JavaScript tests call ``console.assert``, which in Node only *prints* a failed
assertion and carries on: run as is, every program passes. Each ``console.assert(X, ...)``
becomes ``__unice_case(k, () => (X))``, which reports a falsy ``X`` as a failure. Node's
``assert(...)``/``assert.*(...)`` (MultiPL-E) become cases too; their ``AssertionError``
is a failure, any other exception a runtime error. A ``SyntaxError`` before any case runs
is a ``compile_error`` (JavaScript has no separate compile step).

Host-side verdicts (the token protocol, ``languages/base.py``): a ``console.assert`` whose
condition is ``X === L`` (``!==``, ``==``, ``!=``), ``JSON.stringify(X) === JSON.stringify(L)``,
``Math.abs(X - L) < T``, or a bare call ``f(...)`` / ``!f(...)``, with ``L`` a constant,
becomes ``__unice_value(k, () => (X))``: the program writes X's value and the host judges it
(``compiled/checks.py``); ``L`` is not in the driver. With a reference solution
(``languages/computed.py``), a ``console.assert`` comparing with a value the test computes
(in a loop too) writes only the candidate's side, and the reference's run writes the other.
The support code is the first statement
of the file, so it takes the report token (stdin, or the runner's ``workerData``) and every
built-in it uses before any of the program's code runs, and its names are ``const``: a
program cannot redefine them.
"""

from __future__ import annotations

import re
from pathlib import Path

from data_builders.execution.compiled.checks import Check
from data_builders.execution.compiled.languages.base import (
    Driver,
    Language,
    RunnerSpec,
    RunSpec,
    SplitError,
)
from data_builders.execution.compiled.languages.checks import abs_check, literal_side
from data_builders.execution.compiled.languages.computed import (
    Reference,
    computed_case,
    poly_case,
    sides,
)
from data_builders.execution.compiled.languages.source import (
    find_calls,
    inside_loop,
    replace_spans,
    single_call,
    split_top_level,
    strip_parens,
    top_level,
)
from data_builders.execution.compiled.literals import NotLiteral, is_literal, parse_literal

QUOTES = "\"'`"
_CONSOLE = r"console\.assert"
_NODE = r"assert(?:\.\w+)?"

HEAD = r"""const __unice_rt = (() => {
  'use strict'
  const fs = require('fs')
  const wt = require('worker_threads')
  const writeSync = fs.writeSync
  const readSync = fs.readSync
  const BufferF = Buffer
  const stringify = JSON.stringify
  const StringF = String
  const NumberF = Number
  const isArray = Array.isArray
  const keys = Object.keys
  const apply = Reflect.apply
  const push = Array.prototype.push
  const join = Array.prototype.join
  const replace = String.prototype.replace
  const slice = String.prototype.slice
  const bigintString = BigInt.prototype.toString
  const mapSize = Object.getOwnPropertyDescriptor(Map.prototype, 'size').get
  const setSize = Object.getOwnPropertyDescriptor(Set.prototype, 'size').get
  const mapForEach = Map.prototype.forEach
  const setForEach = Set.prototype.forEach
  const isFiniteF = Number.isFinite
  let token = ''
  if (!wt.isMainThread) {
    const data = wt.workerData
    if (data && typeof data.token === 'string') { token = data.token; data.token = '' }
  } else {
    const buf = BufferF.alloc(80)
    let n = 0
    try {
      while (n < 72) {
        if (readSync(0, buf, n, 1, null) <= 0 || buf[n] === 10) break
        n++
      }
    } catch (e) {}
    token = buf.toString('latin1', 0, n)
  }
  const argv = process.argv
  const fd = argv.length > 3 ? NumberF(argv[3]) : 2
  const start = argv.length > 3 ? NumberF(argv[2]) : 0
  const write = (text) => {
    const bytes = BufferF.from(text)
    let done = 0
    while (done < bytes.length) done += writeSync(fd, bytes, done, bytes.length - done)
  }
  const mark = (what, k, detail) => {
    let text = ''
    if (detail !== undefined) {
      try { text = ' ' + apply(slice, apply(replace, StringF(detail), [/\s+/g, ' ']), [0, 300]) } catch (e) { text = ' ?' }
    }
    write('\n' + what + ' ' + k + ' ' + token + text + '\n')
  }
  const isMap = (v) => { try { apply(mapSize, v, []); return true } catch (e) { return false } }
  const isSet = (v) => { try { apply(setSize, v, []); return true } catch (e) { return false } }
  const ser = (v, depth) => {
    if (depth > 200) throw new RangeError('value nested too deep')
    switch (typeof v) {
      case 'number':
        if (isFiniteF(v)) return v === 0 ? '0' : StringF(v)
        return v !== v ? '{"$float":"nan"}' : v > 0 ? '{"$float":"inf"}' : '{"$float":"-inf"}'
      case 'string': return stringify(v)
      case 'boolean': return v ? 'true' : 'false'
      case 'undefined': return '{"$undefined":1}'
      case 'bigint': return '{"$bigint":"' + apply(bigintString, v, []) + '"}'
      case 'function': return '{"$function":1}'
      case 'symbol': return '{"$symbol":1}'
    }
    if (v === null) return 'null'
    const parts = []
    if (isArray(v)) {
      for (let i = 0; i < v.length; i++) apply(push, parts, [ser(v[i], depth + 1)])
      return '[' + apply(join, parts, [',']) + ']'
    }
    if (isMap(v)) {
      apply(mapForEach, v, [(item, key) => apply(push, parts, ['[' + ser(key, depth + 1) + ',' + ser(item, depth + 1) + ']'])])
      return '{"$map":[' + apply(join, parts, [',']) + ']}'
    }
    if (isSet(v)) {
      apply(setForEach, v, [(item) => apply(push, parts, [ser(item, depth + 1)])])
      return '{"$set":[' + apply(join, parts, [',']) + ']}'
    }
    const names = keys(v)
    for (let i = 0; i < names.length; i++) apply(push, parts, ['[' + stringify(names[i]) + ',' + ser(v[names[i]], depth + 1) + ']'])
    return '{"$object":[' + apply(join, parts, [',']) + ']}'
  }
  const value = (k, f) => {
    if (k < start) return
    mark('S', k)
    let text
    try { text = ser(f(), 0) } catch (e) { mark('E', k, e); return }
    if (text.length > 1048576) text = '{"$toolong":1}'
    write('\n' + 'V ' + k + ' ' + token + ' ' + text + '\n')
  }
  const kase = (k, f) => {
    if (k < start) return
    mark('S', k)
    let ok
    try { ok = f() } catch (e) {
      if (e && e.code === 'ERR_ASSERTION') { mark('F', k) } else { mark('E', k, e) }
      return
    }
    mark(ok ? 'P' : 'F', k)
  }
  // Node's Math.random cannot be seeded, and four HumanEval-X tests (JavaScript/32, /38, /50,
  // /53) draw their inputs with it: one program passed in one run and failed in the next. A
  // fixed-seed generator (mulberry32) gives every run of a program the same draws, as the
  // Python tests' random.Random(42) does. A program may still replace it for itself.
  const imul = Math.imul
  let seed = 42
  Math.random = () => {
    seed = (seed + 0x6D2B79F5) | 0
    let t = imul(seed ^ (seed >>> 15), seed | 1)
    t ^= t + imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return Object.freeze({ value, kase })
})(); const __unice_case = __unice_rt.kase, __unice_value = __unice_rt.value;
"""
"""The first statement of every driver: the report token and every built-in the support code
uses are taken before any of the program's code runs; ``const`` names, so a program cannot
redefine or reassign them."""

JS_ABS = r"Math\s*\.\s*abs\s*\("
_JSON = r"JSON\s*\.\s*stringify\s*\("


def _json_literal(text: str) -> tuple[bool, object]:
    """``(True, value)`` when ``text`` is ``JSON.stringify(L)`` of a constant ``L``."""
    match = re.match(_JSON, text)
    if match is None or not single_call(text, QUOTES):
        return False, None
    try:
        return True, parse_literal(text[match.end() : -1], "js")
    except (NotLiteral, ValueError, IndexError):
        return False, None


_NODE_ASSERT = re.compile(
    r"assert(?:\.(ok|equal|strictEqual|deepEqual|deepStrictEqual|notEqual|notStrictEqual))?\s*\("
)


def node_assert_check(call: str) -> tuple[str, Check] | None:
    """MultiPL-E's ``node:assert`` calls: ``assert(X)`` / ``assert.ok(X)`` as
    ``console.assert(X)``; ``assert.strictEqual(X, L)`` (``===``), ``assert.equal`` (``==``),
    ``assert.notStrictEqual``/``notEqual``, ``assert.deepStrictEqual(X, L)`` and
    ``assert.deepEqual`` (Node's deep equality), with ``L`` a constant (second argument)."""
    match = _NODE_ASSERT.match(call)
    if match is None or not call.endswith(")"):
        return None
    args = split_top_level(call[match.end() : -1], quotes=QUOTES)
    method = match.group(1)
    if method in (None, "ok"):
        return js_check(args[0]) if args else None
    if len(args) < 2 or not is_literal(args[1], "js") or is_literal(args[0], "js"):
        return None
    try:
        expected = parse_literal(args[1], "js")
    except (NotLiteral, ValueError, IndexError):
        return None
    if method.startswith("deep"):
        check = Check("js", "deep", expected, strict="Strict" in method, text=call)
    else:
        strict = "Strict" in method
        check = Check(
            "js", "eq", expected, strict=strict, negate=method.startswith("not"), text=call
        )
    return args[0], check


def js_check(condition: str) -> tuple[str, Check] | None:
    """``(X, check)`` when ``console.assert(condition)`` compares an expression X with a
    constant the host can read; None leaves it to the program."""
    text = strip_parens(condition, QUOTES)
    negate = False
    while text.startswith("!") and not text.startswith("!="):
        rest = text[1:].lstrip()
        grouped = rest.startswith("(") and strip_parens(rest, QUOTES) != rest
        if not grouped and not single_call(rest, QUOTES):
            return None
        text, negate = strip_parens(rest, QUOTES), not negate
    try:
        if not text or top_level(text, ("&&", "||", "?", ",", "=>"), QUOTES):
            return None
        equal = top_level(text, ("===", "!==", "==", "!="), QUOTES)
        if len(equal) > 1:
            return None
        if equal:
            ((i, op),) = equal
            left, right = text[:i].strip(), text[i + len(op) :].strip()
            negate = negate != op.startswith("!")
            for actual, other in ((left, right), (right, left)):
                is_json, expected = _json_literal(other)
                if is_json and not _json_literal(actual)[0] and not is_literal(actual, "js"):
                    # == is === here only when both sides are JSON.stringify's string (or undefined)
                    if len(op) != 3 and not (
                        re.match(_JSON, actual) and single_call(actual, QUOTES)
                    ):
                        return None
                    return actual, Check("js", "json", expected, negate=negate, text=condition)
            sides = literal_side(left, right, "js")
            if sides is None:
                return None
            actual, literal = sides
            expected = parse_literal(literal, "js")
            check = Check("js", "eq", expected, strict=len(op) == 3, negate=negate, text=condition)
            return actual, check
        absolute = abs_check(text, "js", JS_ABS, negate, condition, QUOTES)
        if absolute is not None:
            return absolute
        if single_call(text, QUOTES) and not is_literal(text, "js"):
            return text, Check("js", "truthy", negate=negate, text=condition)
    except (NotLiteral, ValueError, IndexError):
        return None
    return None


def js_computed(condition: str, names: frozenset[str]) -> tuple[str, str, Check] | None:
    """``(candidate side, expected side, check)`` when ``console.assert(condition)`` compares
    the candidate with a value the test computes (``X === Y``, ``!==``, ``==``, ``!=``,
    HumanEval's ``Math.abs(poly(xs, x)) < T``): ``languages/computed.py``; None otherwise."""
    text = strip_parens(condition, QUOTES)
    try:
        if not text or top_level(text, ("&&", "||", "?", ",", "=>"), QUOTES):
            return None
        equal = top_level(text, ("===", "!==", "==", "!="), QUOTES)
    except ValueError:
        return None
    if len(equal) == 1:
        ((i, op),) = equal
        left, right = _json_argument(text[:i].strip()), _json_argument(text[i + len(op) :].strip())
        kind = "json_both" if left is not None and right is not None else "eq"
        if kind == "eq":
            left, right = text[:i].strip(), text[i + len(op) :].strip()
        found = sides(left, right, names)
        if found is None:
            return None
        check = Check(
            "js", kind, strict=len(op) == 3, negate=op.startswith("!"), text=condition,
            origin=found[2],
        )  # fmt: skip
        return found[0], found[1], check
    if equal:
        return None
    return poly_case(text, JS_ABS, names, "js", condition)


def _json_argument(text: str) -> str | None:
    """``X`` of ``JSON.stringify(X)`` (one argument), else None: both sides of such a
    comparison are written as values and stringified on the host (``json_both``), so a
    program that replaces ``JSON.stringify`` changes nothing."""
    match = re.match(_JSON, text)
    if match is None or not single_call(text, QUOTES):
        return None
    args = split_top_level(text[match.end() : -1], quotes=QUOTES)
    return args[0] if len(args) == 1 and args[0] else None


def js_pair(first: str, second: str) -> str:
    """Both sides of a self-compared assertion as one JavaScript value (an array)."""
    return f"[({first}), ({second})]"


RUNNER = Path(__file__).with_name("node_runner.js")
# Globally installed packages (HumanEval-X's JavaScript/162 requires js-md5, which
# `make system-deps` installs with npm), as CodeGeeX's evaluation image has them.
NODE_ENV = {"NODE_PATH": "/usr/lib/node_modules:/usr/local/lib/node_modules"}


class JavaScript(Language):
    name = "js"
    quotes = "\"'`"
    compiled = False
    token_protocol = True
    reference_cases = True

    def _calls(self, test: str) -> list[tuple[int, int, int, bool]]:
        console = [(*c, True) for c in find_calls(test, _CONSOLE, QUOTES)]
        node = [(*c, False) for c in find_calls(test, _NODE, QUOTES)]
        inside = [(s, e) for s, _, e, _ in console]
        node = [c for c in node if not any(s <= c[0] <= e for s, e in inside)]
        calls = sorted(console + node)
        if not calls:
            raise SplitError("no console.assert(...) or assert(...) in the JavaScript test")
        return calls

    def split(self, test: str) -> list[str]:
        return [test[start : close + 1] for start, _, close, _ in self._calls(test)]

    def driver(self, source: str, test: str, reference: Reference | None = None) -> Driver:
        edits, checks = [], []
        for k, (start, open_, close, console) in enumerate(self._calls(test)):
            args = test[open_ + 1 : close]
            found = None
            if console:
                first = split_top_level(args, quotes=QUOTES)
                in_loop = inside_loop(test, start, QUOTES)
                found = js_check(first[0]) if first and not in_loop else None
                if found is None and first and reference is not None:
                    computed = js_computed(first[0], reference.names)
                    found = computed_case(k, computed, in_loop, reference, js_pair)
                body = f"() => ({found[0] if found else first[0] if first else 'undefined'})"
            elif not inside_loop(test, start, QUOTES):
                found = node_assert_check(test[start : close + 1])
            if not console:
                body = (
                    f"() => ({found[0]})"
                    if found
                    else f"() => {{ {test[start : close + 1]}; return true; }}"
                )
            checks.append(found[1] if found else None)
            case = "__unice_value" if found else "__unice_case"
            edits.append((start, close + 1, f"{case}({k}, {body})"))
        rewritten = replace_spans(test, edits)
        text = f"{HEAD.strip()}\n{source}\n{rewritten}\n"
        return Driver({"main.js": text}, len(edits), checks=tuple(checks))

    def run_spec(self, memory_mb: int, mode: str = "") -> RunSpec:
        return RunSpec(
            ["node", f"--max-old-space-size={memory_mb}", "{build}/main.js", "{start}", "{fd}"],
            env=dict(NODE_ENV),
            address_space_limit=False,
        )

    def runner_spec(self, memory_mb: int) -> RunnerSpec:
        # Past memory_mb of resident size after a program, the runner is replaced.
        return RunnerSpec(
            ["node", str(RUNNER), "{fd}", "{keep}", str(memory_mb)],
            env=dict(NODE_ENV),
            read_only=(str(RUNNER.parent),),
        )

    def runner_request(
        self, build: Path, start: int, memory_mb: int, max_output_bytes: int
    ) -> dict[str, object]:
        return {
            "file": str(build / "main.js"),
            "start": start,
            "heap_mb": memory_mb,
            "max_output": max_output_bytes,
        }

    def load_status(self, returncode: int, stderr: str) -> str | None:
        return "compile_error" if "SyntaxError" in stderr else None

    def crash_status(self, returncode: int, stderr: str) -> str | None:
        if any(m in stderr for m in ("heap out of memory", "Reached heap limit", "OUT_OF_MEMORY")):
            return "memory"
        return None
