"""JavaScript (Node.js).

HumanEval-X's JavaScript tests call ``console.assert``, which in Node only *prints* a failed
assertion and carries on: run as is, every program passes. Each ``console.assert(X, ...)``
becomes ``__unice_case(k, () => (X))``, which reports a falsy ``X`` as a failure. Node's
``assert(...)``/``assert.*(...)`` (MultiPL-E) become cases too; their ``AssertionError``
is a failure, any other exception a runtime error. A ``SyntaxError`` before any case runs
is a ``compile_error`` (JavaScript has no separate compile step).
"""

from __future__ import annotations

from pathlib import Path

from data_builders.execution.languages.base import (
    Driver,
    Language,
    RunnerSpec,
    RunSpec,
    SplitError,
)
from data_builders.execution.languages.source import find_calls, replace_spans, split_top_level

QUOTES = "\"'`"
_CONSOLE = r"console\.assert"
_NODE = r"assert(?:\.\w+)?"

SUPPORT = r"""
function __unice_mark(what, k, detail) {
  const fd = process.argv.length > 3 ? Number(process.argv[3]) : 2
  const text = detail === undefined ? '' : ' ' + String(detail).replace(/\s+/g, ' ').slice(0, 300)
  require('fs').writeSync(fd, what + ' ' + k + text + '\n')
}
function __unice_case(k, f) {
  if (k < (process.argv.length > 3 ? Number(process.argv[2]) : 0)) return
  __unice_mark('S', k)
  let ok
  try { ok = f() } catch (e) {
    if (e && e.code === 'ERR_ASSERTION') { __unice_mark('F', k) } else { __unice_mark('E', k, e) }
    return
  }
  __unice_mark(ok ? 'P' : 'F', k)
}
"""
"""Only function declarations: hoisted, so the support code can go last, after a test
that runs at load time, and never inside a function the program left open."""


RUNNER = Path(__file__).with_name("node_runner.js")
# Globally installed packages (HumanEval-X's JavaScript/162 requires js-md5, which
# `make system-deps` installs with npm), as CodeGeeX's evaluation image has them.
NODE_ENV = {"NODE_PATH": "/usr/lib/node_modules:/usr/local/lib/node_modules"}


class JavaScript(Language):
    name = "js"
    stop_tokens = ("\nfunction ", "\n/*", "\n//", "\nconsole.log")
    quotes = "\"'`"
    executables = ("node",)
    install_hint = "apt install nodejs"
    compiled = False

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

    def driver(self, source: str, test: str) -> Driver:
        edits = []
        for k, (start, open_, close, console) in enumerate(self._calls(test)):
            args = test[open_ + 1 : close]
            if console:
                first = split_top_level(args, quotes=QUOTES)
                body = f"() => ({first[0] if first else 'undefined'})"
            else:
                body = f"() => {{ {test[start : close + 1]}; return true; }}"
            edits.append((start, close + 1, f"__unice_case({k}, {body})"))
        rewritten = replace_spans(test, edits)
        return Driver({"main.js": f"{source}\n{rewritten}\n{SUPPORT}"}, len(edits))

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
