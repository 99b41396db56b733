"""Hostile programs per language are contained: each attack ends in a status, never escapes.

Every program's first assertion runs the attack (``attack() == 0`` holds when it was
stopped), the second is an ordinary one that must still pass (resumed in a fresh process
when the attack ended the first). Limits: 256 MB as in tests/languages/conftest, but 3 s CPU
per assertion: a memory attack must touch every page up to the limit (Node's native buffers:
~640 MB, 0.7 s of CPU on an idle core here), and with 1 s a loaded machine let the CPU limit
win the race, so the attack was labelled ``timeout`` instead of ``memory``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from data_builders.execution.compiled.languages import get_language
from data_builders.execution.executor import Executor
from data_builders.execution.types import Program, ProgramResult, TestCode
from tests.languages.conftest import LIMITS, need, open_executor, run, statuses

ATTACK_LIMITS = replace(LIMITS, timeout=3.0)

CPP_TEST = """#include<assert.h>
int main(){
    assert (attack() == 0);
    assert (ok() == 1);
}
"""
CPP_HEAD = "#include<cstdio>\n#include<cstdlib>\n#include<vector>\n#include<unistd.h>\nint ok() { return 1; }\n"
CPP = {
    "fork": "int attack() { int made = 0; for (int i = 0; i < 50; i++) { pid_t p = fork();"
    ' if (p == 0) { for (;;) {} } if (p > 0) made++; } return made + (system("true") == 0); }',
    "memory": "int attack() { std::vector<std::vector<char>> v;"
    " for (;;) v.emplace_back(64 << 20, 1); return 0; }",
    "flood": "int attack() { static char line[4096]; for (int i = 0; i < 4095; i++) line[i] = 'x';"
    " for (;;) fputs(line, stdout); return 0; }",
    "sleep": "int attack() { sleep(1000); return 0; }",
    "network": "#include<sys/socket.h>\nint attack() { return socket(AF_INET, SOCK_STREAM, 0) >= 0"
    " || socket(AF_UNIX, SOCK_STREAM, 0) >= 0; }",
}
CPP_EXPECTED = {
    "fork": ["pass", "pass"],
    "memory": ["memory", "pass"],
    "flood": ["runtime_error", "pass"],
    "sleep": ["timeout", "pass"],
    "network": ["pass", "pass"],
}

JAVA_TEST = """public class Main {
    public static void main(String[] args) {
        Solution s = new Solution();
        List<Boolean> correct = Arrays.asList(s.attack() == 0, s.ok() == 1);
        if (correct.contains(false)) {
            throw new AssertionError();
        }
    }
}
"""
_JAVA = "import java.util.*;\nclass Solution {\n    public int ok() { return 1; }\n    public int attack() {\n%s\n    }\n}\n"
JAVA = {
    "fork": _JAVA
    % 'try { new ProcessBuilder("sh", "-c", "sleep 100").start(); return 1; } catch (Exception e) { return 0; }',
    "memory": _JAVA % "List<long[]> l = new ArrayList<>(); while (true) l.add(new long[1 << 20]);",
    "flood": _JAVA % 'String s = "x".repeat(4096); while (true) System.out.print(s);',
    "network": _JAVA
    % 'try { new java.net.Socket("127.0.0.1", 22).close(); return 1; } catch (Exception e) { return 0; }',
}
JAVA_EXPECTED = {
    "fork": ["pass", "pass"],
    "memory": ["memory", "pass"],
    "flood": None,  # the JVM ignores SIGXFSZ: writes fail, the loop runs to the CPU limit
    "network": ["pass", "pass"],
}

JS_TEST = """const testF = () => {
  console.assert(attack() === 0)
  console.assert(ok() === 1)
}
testF()
"""
_JS = "const ok = () => 1\nconst attack = () => {\n%s\n}\n"
JS = {
    "fork": _JS
    % "try { require('child_process').execSync('sleep 100'); return 1 } catch (e) { return 0 }",
    "memory": _JS % "const a = []; while (true) { a.push(new Array(1e6).fill(1.5)) }",
    "native_memory": _JS % "const a = []; while (true) { a.push(Buffer.alloc(64 << 20, 1)) }",
    "flood": _JS % "const s = 'x'.repeat(4096); while (true) { process.stdout.write(s) }",
}
JS_EXPECTED = {
    "fork": ["pass", "pass"],
    "memory": ["memory", "pass"],
    "native_memory": ["memory", "pass"],
    "flood": None,
}

RUST_TEST = """
#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn test_attack() {
        assert_eq!(attack(), 0);
        assert_eq!(ok(), 1);
    }
}
"""
_RUST = "fn main() {}\nfn ok() -> i32 { 1 }\nfn attack() -> i32 {\n%s\n}\n"
RUST = {
    "fork": _RUST % '    std::process::Command::new("true").status().map(|_| 1).unwrap_or(0)',
    "memory": _RUST
    % "    let mut v: Vec<Vec<u8>> = Vec::new();\n    loop { v.push(vec![1u8; 64 << 20]); }",
    "network": _RUST % '    std::net::TcpStream::connect("127.0.0.1:22").map(|_| 1).unwrap_or(0)',
}
RUST_EXPECTED = {
    "fork": ["pass", "pass"],
    "memory": None,  # Rust aborts on a failed allocation (SIGABRT): a signal
    "network": ["pass", "pass"],
}

CASES = [
    ("cpp", {k: CPP_HEAD + v for k, v in CPP.items()}, CPP_TEST, CPP_EXPECTED),
    ("java", JAVA, JAVA_TEST, JAVA_EXPECTED),
    ("js", JS, JS_TEST, JS_EXPECTED),
    ("rust", RUST, RUST_TEST, RUST_EXPECTED),
]


@pytest.fixture(scope="module")
def attacks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Executor]:
    """2 workers, 3 s CPU per assertion, 256 MB (see the module docstring for why 3 s)."""
    yield from open_executor(ATTACK_LIMITS, tmp_path_factory, "attack-builds")


@pytest.fixture(autouse=True)
def _full_sandbox(attacks) -> None:
    if attacks.isolation != "bwrap+seccomp":
        pytest.skip(f"isolation here is {attacks.isolation!r}: install bubblewrap and pyseccomp")


@pytest.fixture(scope="module")
def results(attacks) -> dict[tuple[str, str], ProgramResult]:
    """Every attack of every installed language, run two at a time."""
    jobs = [
        (lang, name, Program(source, TestCode(test), language=lang))
        for lang, programs, test, _ in CASES
        if get_language(lang).missing_toolchain() is None
        for name, source in programs.items()
    ]
    return {
        (lang, name): result
        for (lang, name, _), result in zip(jobs, attacks.map(p for _, _, p in jobs), strict=True)
    }


@pytest.mark.parametrize(
    ("language", "attack"), [(lang, name) for lang, programs, _, _ in CASES for name in programs]
)
def test_attack_is_contained(results, language: str, attack: str) -> None:
    need(language)
    _, _, _, expected = next(c for c in CASES if c[0] == language)
    result = results[(language, attack)]
    got = statuses(result)
    if expected[attack] is None:  # the attack fails its assertion somehow; the next one runs
        assert got[0] in ("runtime_error", "timeout", "memory", "signal") and got[1] == "pass", got
    else:
        assert got == expected[attack], [o.detail for o in result.outcomes]


WRITE_CPP = CPP_HEAD + (
    "int attack() { int escaped = 0; const char* paths[] = {%s};"
    ' for (const char* p : paths) { FILE* f = fopen(p, "w"); if (f) { fputs("x", f); fclose(f); escaped++; } }'
    " return escaped; }"
)


def test_writes_outside_the_scratch_never_reach_the_host(attacks, tmp_path: Path) -> None:
    """``/`` is read-only and ``/tmp`` private: nothing a program writes appears on the host."""
    home = Path.home() / f".unice-hostile-{uuid.uuid4().hex}"
    host_tmp = tmp_path / "escape.txt"
    paths = ", ".join(f'"{p}"' for p in (home, host_tmp, Path.cwd() / "unice-escape.txt"))
    result = run(attacks, "cpp", WRITE_CPP % paths, CPP_TEST)
    assert statuses(result)[1] == "pass"
    assert (
        not home.exists()
        and not host_tmp.exists()
        and not (Path.cwd() / "unice-escape.txt").exists()
    )


LEAVE_JS = """const ok = () => 1
const attack = () => {
  const fs = require('fs')
  fs.writeFileSync('/tmp/unice-left-behind', 'x')
  fs.writeFileSync('/dev/shm/unice-left-behind', 'x')
  fs.writeFileSync('unice-left-behind', 'x')
  return 0
}
"""
FIND_JS = """const ok = () => 1
const attack = () => {
  const fs = require('fs')
  return ['/tmp/unice-left-behind', '/dev/shm/unice-left-behind', 'unice-left-behind']
    .filter((p) => fs.existsSync(p)).length
}
"""


def test_no_program_leaves_files_for_the_next(attacks) -> None:
    assert statuses(run(attacks, "js", LEAVE_JS, JS_TEST)) == ["pass", "pass"]
    assert statuses(run(attacks, "js", FIND_JS, JS_TEST)) == ["pass", "pass"]
