"""A plain, MultiPL-E-style harness: compile a whole program once, run it once, one verdict.

The reference that ``label``'s per-assertion verdicts are checked against
(``benchmarks/label_vs_plain_harness.py`` times the two side by side,
``benchmarks/multipl_e_agreement.py`` checks this harness against MultiPL-E's own evaluator):
MultiPL-E's per-language commands, timeouts and pass rules (C++, Java, JavaScript, Go, Rust),
no sandbox. Run it only on programs you are willing to run unconfined. For HumanEval-X
programs ``console.assert`` is made to throw (in Node it only prints, so every JavaScript
program would "pass"), so both harnesses judge the same thing.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from data_builders.execution.processes import kill_group
from data_builders.languages import COMPILED, language_info

JAVATUPLES = ("/usr/share/java/javatuples.jar",)
JS_ASSERT_THROWS = "console.assert = (ok, ...m) => { if (!ok) throw new Error('Assertion failed: ' + m.join(' ')); };\n"
TOOLS = {name: language_info(name).toolchain for name in COMPILED}  # the language table's


@dataclass
class Verdict:
    """One program's plain-harness outcome: passed (exit 0 everywhere) and why not."""

    passed: bool
    stage: str  # "ok", "compile", "run", "timeout"
    seconds: float


def javatuples_jar() -> str | None:
    """javatuples on this machine ($JAVATUPLES_JAR, else Debian's libjavatuples-java)."""
    for path in (os.environ.get("JAVATUPLES_JAR", ""), *JAVATUPLES):
        if path and Path(path).is_file():
            return path
    return None


def java_main_class(source: str) -> tuple[str, str]:
    """(file stem, class to run): the public class names the file; main's class is run."""
    public = re.search(r"^\s*public\s+(?:final\s+)?class\s+(\w+)", source, re.M)
    classes = list(re.finditer(r"\bclass\s+(\w+)", source))
    runner = None
    for i, match in enumerate(classes):
        end = classes[i + 1].start() if i + 1 < len(classes) else len(source)
        if "static void main(" in source[match.end() : end]:
            runner = match.group(1)
    name = runner or (classes[-1].group(1) if classes else "Main")
    return (public.group(1) if public else name), name


# MultiPL-E's evaluator, per language (nuprl/MultiPL-E evaluation/src/eval_*.py and its
# safe_subprocess, whose default timeout is 15 s): the commands, the timeouts and the pass rule.
# (compile timeout or None, run timeout); a compile that fails is a "SyntaxError".
TIMEOUTS = {"cpp": (15, 15), "java": (15, 15), "js": (None, 5), "go": (None, 30), "rust": (15, 5)}
GOPATH = "/usr/share/gocode"  # Debian's testify, for HumanEval-X's Go tests only


def run_plain(language: str, program: str, timeout: float | None = None) -> Verdict:
    """Compile once and run once, with MultiPL-E's commands, timeouts and pass rule.

    C++ ``g++ F -o B -std=c++17`` then ``B``; Java ``javac -encoding UTF8 -d OUT F`` (javatuples
    in ``CLASSPATH``) then ``java -ea -cp OUT:javatuples <main class>``; JavaScript ``node F``;
    Rust ``rustc F -o B`` (rustc's default edition, a debug build) then ``B``: a pass is exit
    code 0 within the timeout. Go ``go test F_test.go`` (compile, vet and run in one step, 30 s):
    a pass is a stdout without ``[setup failed]``, ``[build failed]`` or ``FAIL``, whatever the
    exit code. ``timeout`` (seconds) replaces every step's limit. HumanEval-X programs (not
    MultiPL-E's shape) need two extras: Rust ``#[cfg(test)]`` tests build with ``--edition 2021
    --test`` (as Cargo), and Go's testify comes from Debian's GOPATH.
    """
    started = time.monotonic()
    compile_limit, run_limit = TIMEOUTS[language]
    if timeout is not None:
        compile_limit, run_limit = timeout, timeout
    with tempfile.TemporaryDirectory(prefix="plain-") as folder:

        def step(
            cmd: list[str], stage: str, limit: float, env: dict[str, str] | None = None
        ) -> tuple[Verdict | None, str]:
            with subprocess.Popen(
                cmd, cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                stdin=subprocess.DEVNULL, env={**os.environ, **(env or {})},
                start_new_session=True,
            ) as proc:  # fmt: skip
                try:
                    stdout, _ = proc.communicate(timeout=limit)
                except subprocess.TimeoutExpired:
                    # the whole group: ``go test``'s test binary, a program's own children
                    # (killing the leader alone, as subprocess.run does, leaves them running)
                    kill_group(proc.pid)
                    proc.wait()
                    return Verdict(False, "timeout", time.monotonic() - started), ""
            out = stdout.decode("utf-8", "ignore")
            if proc.returncode != 0 and language != "go":
                return Verdict(False, stage, time.monotonic() - started), out
            return None, out

        failed: Verdict | None = None
        if language == "cpp":
            Path(folder, "main.cpp").write_text(program)
            failed = step(
                ["g++", "main.cpp", "-o", "main", "-std=c++17"], "compile", compile_limit
            )[0]
            failed = failed or step(["./main"], "run", run_limit)[0]
        elif language == "java":
            stem, runner = java_main_class(program)
            Path(folder, f"{stem}.java").write_text(program)
            jar = javatuples_jar() or ""
            env = {"CLASSPATH": jar}
            failed = step(
                ["javac", "-encoding", "UTF8", "-d", "out", f"{stem}.java"], "compile",
                compile_limit, env,
            )[0]  # fmt: skip
            failed = (
                failed
                or step(
                    ["java", "-ea", "-cp", f"out:{jar}" if jar else "out", runner],
                    "run",
                    run_limit,
                    env,
                )[0]
            )
        elif language == "js":
            Path(folder, "main.js").write_text(program)
            failed = step(["node", "main.js"], "run", run_limit)[0]
        elif language == "go":
            Path(folder, "main_test.go").write_text(program)
            env = {"GOPATH": GOPATH, "GO111MODULE": "off"} if "testify" in program else {}
            failed, out = step(["go", "test", "main_test.go"], "run", run_limit, env)
            if failed is None and ("[setup failed]" in out or "[build failed]" in out):
                failed = Verdict(False, "compile", time.monotonic() - started)
            elif failed is None and "FAIL" in out:
                failed = Verdict(False, "run", time.monotonic() - started)
        else:
            Path(folder, "main.rs").write_text(program)
            harness = ["--edition", "2021", "--test"] if "#[cfg(test)]" in program else []
            failed = step(["rustc", *harness, "main.rs", "-o", "main"], "compile", compile_limit)[0]
            failed = failed or step(["./main"], "run", run_limit)[0]
    return failed or Verdict(True, "ok", time.monotonic() - started)


def whole_program(language: str, source: str, test: str) -> str:
    """A HumanEval-X program and its test as this harness runs them: the test after the
    program (Go: the test's package clause and imports first), and in JavaScript a
    ``console.assert`` that throws."""
    if language == "go":  # the test's package clause and imports must come first
        from data_builders.execution.compiled.languages.go import join_program

        program = join_program(source, test)
    else:
        program = source + "\n" + test
    return JS_ASSERT_THROWS + program if language == "js" else program
