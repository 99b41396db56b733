"""Programs in other languages that try to forge their verdicts: none may earn a pass.

Each attack is a *wrong* program (every function returns a wrong value) that also attacks
the harness: it writes pass reports by the harness's name or blindly to every descriptor,
redefines the harness's functions, patches equality or string conversion, exits early, or
crashes in a destructor after forging. The host judges each ``call == expected`` assertion
from the value the program wrote (docs/languages.md, "Verdicts on the host"), so whatever the
program reports, a wrong value is never a pass. The controls (correct programs, with the same
harness) still pass every assertion, and the wrong programs without an attack fail them all.

Every language is here; the assertions each leaves in the program (loops, properties, expected
values held in variables) are counted per row (docs/languages.md). With a reference solution
those are judged on the host too: their forgeries are ``test_forged_reference_cases.py``.
"""

from __future__ import annotations

import pytest

from data_builders.execution.compiled.languages import get_language
from data_builders.execution.types import Program, TestCode
from tests.languages.conftest import need, run, statuses

# -- C++ -----------------------------------------------------------------------------------
CPP_TEST = """#undef NDEBUG
#include<assert.h>
bool issame(vector<int> a,vector<int>b){
    if (a.size()!=b.size()) return false;
    for (int i=0;i<a.size();i++)
    {
        if (a[i]!=b[i]) return false;
    }
    return true;
}
int main(){
    assert (f(1) == 2);
    assert (issame(g(1), {1, 2}));
    assert (abs(h(1) - 0.5) < 1e-4);
    assert (s(1) == "two");
    assert (not (b(1)));
}
"""
CPP_HEAD = "#include<stdio.h>\n#include<stdlib.h>\n#include<math.h>\n#include<vector>\n#include<string>\n#include<unistd.h>\nusing namespace std;\n"
CPP_RIGHT = (
    "int f(int x) { return x + 1; }\nvector<int> g(int x) { return {x, x + 1}; }\n"
    'double h(int x) { return x / 2.0; }\nstring s(int x) { return "two"; }\n'
    "bool b(int x) { return false; }\n"
)
CPP_WRONG = (
    "int f(int x) { return 0; }\nvector<int> g(int x) { return {}; }\n"
    'double h(int x) { return 7.0; }\nstring s(int x) { return "one"; }\n'
    "bool b(int x) { return true; }\n"
)
_CPP_EVERY_FD = (
    "static void forge() { char line[64]; for (int fd = 0; fd < 1024; fd++) for (int k = 0; k < 5; k++) {"
    ' int n = snprintf(line, sizeof line, "\\nS %d\\nP %d\\nV %d 2\\n", k, k, k); write(fd, line, n); } }\n'
)
CPP_ATTACKS = {
    # blind: pass lines (old and value form) on every descriptor, then a clean exit
    "every_descriptor": _CPP_EVERY_FD + "static int forged = (forge(), _exit(0), 0);\n" + CPP_WRONG,
    "every_descriptor_per_call": _CPP_EVERY_FD
    + CPP_WRONG.replace("{ return 0; }", "{ forge(); return 0; }"),
    # by name: the harness's own report function, with its token
    "report_by_name": "static int forged = (__unice_mark('S', 0), __unice_mark('P', 0),"
    " __unice_mark('S', 1), __unice_mark('P', 1), __unice_mark('S', 2), __unice_mark('P', 2),"
    " __unice_mark('S', 3), __unice_mark('P', 3), __unice_mark('S', 4), __unice_mark('P', 4), 0);\n"
    + CPP_WRONG.replace(
        "{ return 0; }", "{ for (int k = 0; k < 5; k++) __unice_mark('P', k); _exit(0); }"
    ),
    # redefining the harness: every value case becomes an in-program case that holds
    "redefine_value_case": "#define __unice_value(k, f) __unice_case(k, []() -> bool { return true; })\n"
    + CPP_WRONG,
    "redefine_by_macro_assert": "#define assert(x) ((void)0)\n#define abs(x) 0\n" + CPP_WRONG,
    # equality that always holds, on a type of the program's own
    "patched_operator_eq": "struct Any { template <class T> bool operator==(const T&) const { return true; }"
    " template <class T> bool operator!=(const T&) const { return false; } operator bool() const { return false; } };\n"
    "Any f(int) { return {}; }\nvector<int> g(int x) { return {}; }\ndouble h(int) { return 7.0; }\n"
    "Any s(int) { return {}; }\nbool b(int) { return true; }\n",
    # the token: stolen before the harness reads it (a lower constructor priority), forged
    # reports written with it, and put back through /proc so the harness finds it
    "steal_token": "#include<fcntl.h>\nstatic char stolen[80];\n"
    "__attribute__((constructor(0))) static void steal() { int n = read(0, stolen, 64); stolen[n > 0 ? n : 0] = 0;"
    ' int back = open("/proc/self/fd/0", O_WRONLY); if (back >= 0) { write(back, stolen, n); close(back); } }\n'
    "static void forge() { char tok[80]; int i = 0; while (stolen[i] && stolen[i] != '\\n') { tok[i] = stolen[i]; i++; } tok[i] = 0;"
    " char line[256]; for (int fd = 3; fd < 64; fd++) for (int k = 0; k < 5; k++) {"
    ' int n = snprintf(line, sizeof line, "\\nS %d %s\\nP %d %s\\nV %d %s 2\\n", k, tok, k, tok, k, tok); write(fd, line, n); } }\n'
    + CPP_WRONG.replace("{ return 0; }", "{ forge(); return 0; }"),
    # interposing libc's write: the harness's lines pass through the program's function
    "interposed_write": '#include<sys/syscall.h>\nextern "C" long write(int fd, const void* p, unsigned long n) {'
    " char* q = (char*)p; for (unsigned long i = 0; i + 1 < n; i++) if (q[i] == '\\n' && q[i + 1] == 'F') q[i + 1] = 'P';"
    " return syscall(SYS_write, fd, q, n); }\n" + CPP_WRONG,
    "exit_early": CPP_WRONG.replace("{ return 0; }", "{ exit(0); }"),
    # forged reports, then a crash in a destructor (of the returned value's owner)
    "abort_in_destructor": "struct Boom { ~Boom() { for (int k = 0; k < 5; k++) __unice_mark('P', k); abort(); } };\n"
    + CPP_WRONG.replace("{ return 0; }", "{ Boom boom; return 0; }").replace(
        '{ return "one"; }', '{ Boom boom; return "one"; }'
    ),
    "abort_at_exit": "struct Boom { ~Boom() { for (int k = 0; k < 5; k++) __unice_mark('P', k); abort(); } };\n"
    "static Boom boom;\n" + CPP_WRONG,
}


@pytest.mark.parametrize("attack", sorted(CPP_ATTACKS))
def test_cpp_forgery_never_passes(foreign, attack: str) -> None:
    result = run(foreign, "cpp", CPP_HEAD + CPP_ATTACKS[attack], CPP_TEST)
    assert "pass" not in statuses(result), (attack, [(o.status, o.detail) for o in result.outcomes])
    assert result.judged_in_program == 0


def test_cpp_controls(foreign) -> None:
    right = run(foreign, "cpp", CPP_HEAD + CPP_RIGHT, CPP_TEST)
    assert statuses(right) == ["pass"] * 5, [o.detail for o in right.outcomes]
    assert right.judged_in_program == 0
    assert right.to_dict()["cases_judged_in_program"] == 0
    wrong = run(foreign, "cpp", CPP_HEAD + CPP_WRONG, CPP_TEST)
    assert statuses(wrong) == ["wrong_answer"] * 5


def test_cpp_in_program_cases_are_counted(foreign) -> None:
    """An assertion in a loop (even against a constant: it runs once per turn) or against a
    variable stays in the program, and is counted; two of them in one loop start in turn."""
    test = (
        "int main(){\n    for (int i = 0; i < 3; i++) assert (f(i) == i + 1);\n"
        "    for (int i = 0; i < 2; i++) {\n        assert (f(1) == 2);\n        assert (f(2) == 3);\n    }\n"
        "    int two = 2;\n    assert (f(1) == two);\n    assert (f(1) == 2);\n}\n"
    )
    result = run(foreign, "cpp", CPP_HEAD + CPP_RIGHT, test)
    assert statuses(result) == ["pass"] * 5, [o.detail for o in result.outcomes]
    assert result.judged_in_program == 4


# -- JavaScript ----------------------------------------------------------------------------
JS_TEST = """const testAll = () => {
  console.assert(f(1) === 2)
  console.assert(JSON.stringify(g(1)) === JSON.stringify([1, 2]))
  console.assert(Math.abs(h(1) - 0.5) < 1e-6)
  console.assert(s(1) === 'two')
  console.assert(!b(1))
}

testAll()
"""
JS_RIGHT = (
    "const f = (x) => x + 1\nconst g = (x) => [x, x + 1]\nconst h = (x) => x / 2\n"
    "const s = (x) => 'two'\nconst b = (x) => false\n"
)
JS_WRONG = (
    "const f = (x) => 0\nconst g = (x) => []\nconst h = (x) => 7\n"
    "const s = (x) => 'one'\nconst b = (x) => true\n"
)
_JS_EVERY_FD = (
    "const forge = () => { const fs = require('fs'); for (let fd = 0; fd < 64; fd++) for (let k = 0; k < 5; k++)"
    " try { fs.writeSync(fd, `\\nS ${k}\\nP ${k}\\nV ${k} 2\\n`) } catch (e) {} }\n"
)
JS_ATTACKS = {
    "every_descriptor": _JS_EVERY_FD + "forge()\nprocess.exit(0)\n" + JS_WRONG,
    "every_descriptor_per_call": _JS_EVERY_FD
    + JS_WRONG.replace("(x) => 0", "(x) => { forge(); return 0 }"),
    # by name: the harness's own case functions, run by the program
    "report_by_name": "for (let k = 0; k < 5; k++) __unice_case(k, () => true)\n" + JS_WRONG,
    "value_by_name_inside_the_case": JS_WRONG.replace(
        "(x) => 0", "(x) => { __unice_value(0, () => 2); __unice_case(0, () => true); return 0 }"
    ),
    "redefine_harness_function": "function __unice_value (k, f) { __unice_case(k, () => true) }\n"
    + JS_WRONG,
    "reassign_harness_function": "try { __unice_case = (k, f) => { __unice_mark('S', k); __unice_mark('P', k) } } catch (e) {}\n"
    "try { __unice_value = (k, f) => __unice_case(k, () => true) } catch (e) {}\n"
    "try { globalThis.__unice_value = (k, f) => __unice_case(k, () => true) } catch (e) {}\n"
    + JS_WRONG,
    "patched_builtins": "Math.abs = () => 0\nJSON.stringify = () => 'true'\nObject.is = () => true\n"
    "Array.isArray = () => false\nArray.prototype.join = function () { return '2' }\n"
    "String.prototype.toString = function () { return 'two' }\nNumber.prototype.valueOf = function () { return 2 }\n"
    + JS_WRONG,
    "patched_to_string_of_the_value": JS_WRONG.replace(
        "(x) => 0", "(x) => ({ toString: () => '2', valueOf: () => 2, toJSON: () => 2 })"
    ),
    "steal_token_from_worker_data": "const wt = require('worker_threads')\n"
    "const tok = (wt.workerData && wt.workerData.token) || ''\n"
    "for (let fd = 3; fd < 64; fd++) for (let k = 0; k < 5; k++) try { require('fs').writeSync(fd, `\\nS ${k} ${tok}\\nP ${k} ${tok}\\n`) } catch (e) {}\n"
    + JS_WRONG,
    "exit_early": JS_WRONG.replace("(x) => 0", "(x) => process.exit(0)"),
    "forge_at_exit": _JS_EVERY_FD + "process.on('exit', forge)\n" + JS_WRONG,
}


@pytest.fixture(scope="module")
def js_process_per_program(tmp_path_factory: pytest.TempPathFactory):
    from data_builders.execution.executor import Executor
    from tests.languages.conftest import LIMITS

    with Executor(
        "js",
        workers=2,
        limits=LIMITS,
        cache_dir=tmp_path_factory.mktemp("js-forge"),
        runners=False,
    ) as ex:
        yield ex


@pytest.mark.parametrize("mode", ["runner", "process"])
@pytest.mark.parametrize("attack", sorted(JS_ATTACKS))
def test_js_forgery_never_passes(foreign, js_process_per_program, attack: str, mode: str) -> None:
    ex = foreign if mode == "runner" else js_process_per_program
    result = run(ex, "js", JS_ATTACKS[attack], JS_TEST)
    assert "pass" not in statuses(result), (attack, [(o.status, o.detail) for o in result.outcomes])
    assert result.judged_in_program == 0


@pytest.mark.parametrize("mode", ["runner", "process"])
def test_js_controls(foreign, js_process_per_program, mode: str) -> None:
    ex = foreign if mode == "runner" else js_process_per_program
    right = run(ex, "js", JS_RIGHT, JS_TEST)
    assert statuses(right) == ["pass"] * 5, [o.detail for o in right.outcomes]
    assert right.judged_in_program == 0
    wrong = run(ex, "js", JS_WRONG, JS_TEST)
    assert statuses(wrong) == ["wrong_answer"] * 5


def test_js_in_program_cases_are_counted(foreign) -> None:
    test = (
        "for (let i = 0; i < 3; i++) console.assert(f(i) === i + 1)\n"
        "for (let i = 0; i < 2; i++) {\n  console.assert(f(1) === 2)\n  console.assert(f(2) === 3)\n}\n"
        "[1, 2].forEach((x) => console.assert(f(1) === 2))\nconsole.assert(f(1) === 2)\n"
    )
    result = run(foreign, "js", JS_RIGHT, test)
    assert statuses(result) == ["pass"] * 5, [o.detail for o in result.outcomes]
    assert result.judged_in_program == 4


# -- Java ----------------------------------------------------------------------------------
JAVA_TEST = """public class Main {
    public static void main(String[] args) {
        Solution s = new Solution();
        List<Boolean> correct = Arrays.asList(
                s.f(1) == 2,
                s.g(1).equals(Arrays.asList(1, 2)),
                Math.abs(s.h(1) - 0.5) < 1e-6,
                Objects.equals(s.t(1), "two"),
                !s.b(1)
        );
        if (correct.contains(false)) {
            throw new AssertionError();
        }
    }
}
"""
_JAVA = "import java.util.*;\nimport java.lang.*;\n%s\nclass Solution {\n%s\n}\n"
JAVA_RIGHT_BODY = (
    "    public int f(int x) { return x + 1; }\n"
    "    public List<Integer> g(int x) { return Arrays.asList(x, x + 1); }\n"
    "    public double h(int x) { return x / 2.0; }\n"
    '    public String t(int x) { return "two"; }\n'
    "    public boolean b(int x) { return false; }\n"
)
JAVA_WRONG_BODY = (
    "    public int f(int x) { return 0; }\n"
    "    public List<Integer> g(int x) { return new ArrayList<>(); }\n"
    "    public double h(int x) { return 7.0; }\n"
    '    public String t(int x) { return "one"; }\n'
    "    public boolean b(int x) { return true; }\n"
)
JAVA_RIGHT = _JAVA % ("", JAVA_RIGHT_BODY)
JAVA_WRONG = _JAVA % ("", JAVA_WRONG_BODY)
_JAVA_FORGE = (
    "    static void forge(String token) { for (int fd = 0; fd < 64; fd++) for (int k = 0; k < 5; k++) {"
    ' try { java.io.FileOutputStream out = new java.io.FileOutputStream("/proc/self/fd/" + fd);'
    ' out.write(("\\nS " + k + " " + token + "\\nP " + k + " " + token + "\\nV " + k + " " + token + " 2\\n").getBytes());'
    " out.flush(); } catch (Throwable e) {} } }\n"
    '    static String steal() { try { java.lang.reflect.Field f = Main.class.getDeclaredField("__unice_token");'
    ' f.setAccessible(true); return (String) f.get(null); } catch (Throwable e) { return ""; } }\n'
)
JAVA_ATTACKS = {
    "every_descriptor": _JAVA
    % (
        "",
        _JAVA_FORGE
        + JAVA_WRONG_BODY.replace("{ return 0; }", '{ forge(""); System.exit(0); return 0; }'),
    ),
    "report_by_name": _JAVA
    % (
        "",
        JAVA_WRONG_BODY.replace(
            "{ return 0; }",
            '{ for (int k = 0; k < 5; k++) { Main.__unice_mark("S", k, null); Main.__unice_mark("P", k, null); }'
            " System.exit(0); return 0; }",
        ),
    ),
    "case_by_name": _JAVA
    % (
        "",
        JAVA_WRONG_BODY.replace(
            "{ return 0; }",
            "{ for (int k = 0; k < 5; k++) Main.__unice_case(k, () -> true); return 0; }",
        ),
    ),
    "stolen_token_by_reflection": _JAVA
    % ("", _JAVA_FORGE + JAVA_WRONG_BODY.replace("{ return 0; }", "{ forge(steal()); return 0; }")),
    # classes of the program's own that shadow java.lang.Math and java.util.Objects/Arrays
    "shadow_library_classes": _JAVA
    % (
        "class Math { static double abs(double x) { return 0; } }\n"
        "class Objects { static boolean equals(Object a, Object b) { return true; } }\n",
        JAVA_WRONG_BODY,
    ),
    "patched_equals": _JAVA
    % (
        "",
        JAVA_WRONG_BODY.replace(
            "return new ArrayList<>();",
            "return new ArrayList<Integer>() { public boolean equals(Object o) { return true; }"
            ' public String toString() { return "[1, 2]"; } };',
        ),
    ),
    "exit_early": _JAVA
    % ("", JAVA_WRONG_BODY.replace("{ return 0; }", "{ System.exit(0); return 0; }")),
    "forge_at_shutdown": _JAVA
    % (
        "",
        _JAVA_FORGE
        + JAVA_WRONG_BODY.replace(
            "{ return 0; }",
            "{ String tok = steal(); Runtime.getRuntime().addShutdownHook(new Thread(() -> forge(tok)));"
            " return 0; }",
        ),
    ),
}


@pytest.mark.parametrize("attack", sorted(JAVA_ATTACKS))
def test_java_forgery_never_passes(foreign, attack: str) -> None:
    result = run(foreign, "java", JAVA_ATTACKS[attack], JAVA_TEST)
    assert "pass" not in statuses(result), (attack, [(o.status, o.detail) for o in result.outcomes])
    assert result.judged_in_program == 0


def test_java_controls(foreign) -> None:
    right = run(foreign, "java", JAVA_RIGHT, JAVA_TEST)
    assert statuses(right) == ["pass"] * 5, [o.detail for o in right.outcomes]
    assert right.judged_in_program == 0
    wrong = run(foreign, "java", JAVA_WRONG, JAVA_TEST)
    assert statuses(wrong) == ["wrong_answer"] * 5


def test_java_in_program_cases_are_counted(foreign) -> None:
    test = JAVA_TEST.replace(
        "s.f(1) == 2,", 's.f(1) == 2, s.t(1) == "two", s.f(1) == s.f(1),'
    ).replace("List<Boolean> correct", "int one = 1;\n        List<Boolean> correct")
    result = run(foreign, "java", JAVA_RIGHT, test)
    # a string literal == is identity (the returned literal is the interned instance: it holds),
    # judged on the host; s.f(1) == s.f(1) stays in the program without a reference solution
    assert statuses(result) == ["pass"] * 7
    assert result.judged_in_program == 1


# -- Go ------------------------------------------------------------------------------------
GO_TEST = """package main

import (
    "fmt"
    "math"
    "os"
    "testing"
    "github.com/stretchr/testify/assert"
)

func TestAll(t *testing.T) {
    assert := assert.New(t)
    assert.Equal(2, F(1))
    assert.Equal([]int{1, 2}, G(1))
    assert.Equal(true, math.Abs(H(1)-0.5) < 1e-6)
    assert.Equal("two", S(1))
    assert.Equal(false, B(1))
    _, _ = fmt.Sprint(), os.Args // the attacks' packages, used (Go rejects an unused import)
}
"""
GO_RIGHT = (
    "func F(x int) int { return x + 1 }\nfunc G(x int) []int { return []int{x, x + 1} }\n"
    'func H(x int) float64 { return float64(x) / 2 }\nfunc S(x int) string { return "two" }\n'
    "func B(x int) bool { return false }\n"
)
GO_WRONG = (
    "func F(x int) int { return 0 }\nfunc G(x int) []int { return []int{} }\n"
    'func H(x int) float64 { return 7 }\nfunc S(x int) string { return "one" }\n'
    "func B(x int) bool { return true }\n"
)
_GO_FORGE = (
    "func forge(token string) {\n\tfor fd := 0; fd < 64; fd++ {\n\t\tfor k := 0; k < 5; k++ {\n"
    '\t\t\tos.NewFile(uintptr(fd), "x").WriteString(fmt.Sprintf("\\nS %d %s\\nP %d %s\\nV %d %s 2\\n", k, token, k, token, k, token))\n'
    "\t\t}\n\t}\n}\n"
)
GO_ATTACKS = {
    "every_descriptor": _GO_FORGE
    + GO_WRONG.replace("{ return 0 }", '{ forge(""); os.Exit(0); return 0 }'),
    "token_by_name": _GO_FORGE
    + GO_WRONG.replace("{ return 0 }", "{ forge(__unice_token); return 0 }"),
    "report_by_name": GO_WRONG.replace(
        "{ return 0 }",
        '{ for k := 0; k < 5; k++ { __unice_mark("S", k); __unice_mark("P", k); __unice_case(k, func() bool { return true }) }; return 0 }',
    ),
    "skip_every_case": "func init() { __unice_start = 99 }\n" + GO_WRONG,
    "blank_token": 'func init() { __unice_token = "" }\n' + GO_WRONG,
    "steal_stdin_first": "var stolen = func() string { b := make([]byte, 64); n, _ := os.Stdin.Read(b); return string(b[:n]) }()\n"
    + _GO_FORGE
    + GO_WRONG.replace("{ return 0 }", "{ forge(stolen); return 0 }"),
    "forge_in_defer_then_panic": GO_WRONG.replace(
        "{ return 0 }",
        '{ defer func() { for k := 0; k < 5; k++ { __unice_mark("P", k) }; panic("boom") }(); return 0 }',
    ),
    "exit_early": GO_WRONG.replace("{ return 0 }", "{ os.Exit(0); return 0 }"),
}


@pytest.mark.slow
@pytest.mark.parametrize("attack", sorted(GO_ATTACKS))
def test_go_forgery_never_passes(foreign, attack: str) -> None:
    result = run(foreign, "go", GO_ATTACKS[attack], GO_TEST)
    assert "pass" not in statuses(result), (attack, [(o.status, o.detail) for o in result.outcomes])
    assert result.judged_in_program == 0


@pytest.mark.slow
def test_go_controls(foreign) -> None:
    right = run(foreign, "go", GO_RIGHT, GO_TEST)
    assert statuses(right) == ["pass"] * 5, [o.detail for o in right.outcomes]
    assert right.judged_in_program == 0
    wrong = run(foreign, "go", GO_WRONG, GO_TEST)
    assert statuses(wrong) == ["wrong_answer"] * 5
    # testify's Equal is reflect.DeepEqual: an int64 is not an int
    typed = GO_RIGHT.replace(
        "func G(x int) []int { return []int{x, x + 1} }", "func G(x int) []int { return nil }"
    )
    typed = typed.replace(
        "func F(x int) int { return x + 1 }", "func F(x int) int64 { return int64(x + 1) }"
    )
    assert statuses(run(foreign, "go", typed, GO_TEST)) == ["wrong_answer"] * 2 + ["pass"] * 3


# -- Rust ----------------------------------------------------------------------------------
RUST_TEST = """#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_all() {
        assert!(f(1) == 2);
        assert_eq!(g(1), vec![1, 2]);
        assert!((h(1) - 0.5).abs() < 1e-6);
        assert_eq!(s(1), "two");
        assert!(!b(1));
    }
}
"""
RUST_RIGHT = (
    "fn main() {}\nfn f(x: i32) -> i32 { x + 1 }\nfn g(x: i32) -> Vec<i32> { vec![x, x + 1] }\n"
    'fn h(x: i32) -> f64 { x as f64 / 2.0 }\nfn s(_x: i32) -> String { "two".to_string() }\n'
    "fn b(_x: i32) -> bool { false }\n"
)
RUST_WRONG = (
    "fn main() {}\nfn f(_x: i32) -> i32 { 0 }\nfn g(_x: i32) -> Vec<i32> { vec![] }\n"
    'fn h(_x: i32) -> f64 { 7.0 }\nfn s(_x: i32) -> String { "one".to_string() }\n'
    "fn b(_x: i32) -> bool { true }\n"
)
_RUST_FORGE = (
    "fn forge(token: &str) { use std::io::Write; for fd in 0..64 { for k in 0..5 {"
    ' if let Ok(mut out) = std::fs::OpenOptions::new().write(true).open(format!("/proc/self/fd/{}", fd)) {'
    ' let _ = out.write_all(format!("\\nS {k} {t}\\nP {k} {t}\\nV {k} {t} 2\\n", k = k, t = token).as_bytes()); } } } }\n'
)
RUST_ATTACKS = {
    "every_descriptor": _RUST_FORGE
    + RUST_WRONG.replace(
        "fn f(_x: i32) -> i32 { 0 }", 'fn f(_x: i32) -> i32 { forge(""); std::process::exit(0) }'
    ),
    "token_by_name": _RUST_FORGE
    + RUST_WRONG.replace(
        "fn f(_x: i32) -> i32 { 0 }", "fn f(_x: i32) -> i32 { forge(__unice_token()); 0 }"
    ),
    "report_by_name": RUST_WRONG.replace(
        "fn f(_x: i32) -> i32 { 0 }",
        'fn f(_x: i32) -> i32 { for k in 0..5 { __unice_mark("S", k); __unice_mark("P", k); __unice_case(k, || true); } 0 }',
    ),
    "shadow_assert_macros": "macro_rules! assert { ($($t:tt)*) => {}; }\n"
    "macro_rules! assert_eq { ($($t:tt)*) => {}; }\n" + RUST_WRONG,
    "patched_partial_eq": "#[derive(Debug)] pub struct Any;\n"
    "impl PartialEq<i32> for Any { fn eq(&self, _: &i32) -> bool { true } }\n"
    "impl PartialEq<Vec<i32>> for Any { fn eq(&self, _: &Vec<i32>) -> bool { true } }\n"
    "impl PartialEq<&str> for Any { fn eq(&self, _: &&str) -> bool { true } }\n"
    "fn main() {}\nfn f(_x: i32) -> Any { Any }\nfn g(_x: i32) -> Any { Any }\n"
    "fn h(_x: i32) -> f64 { 7.0 }\nfn s(_x: i32) -> Any { Any }\nfn b(_x: i32) -> bool { true }\n",
    "exit_early": RUST_WRONG.replace(
        "fn f(_x: i32) -> i32 { 0 }", "fn f(_x: i32) -> i32 { std::process::exit(0) }"
    ),
    "abort_in_drop": "struct Boom;\nimpl Drop for Boom { fn drop(&mut self) {"
    ' for k in 0..5 { __unice_mark("P", k); } std::process::abort(); } }\n'
    + RUST_WRONG.replace(
        "fn f(_x: i32) -> i32 { 0 }", "fn f(_x: i32) -> i32 { let _boom = Boom; 0 }"
    ),
    "steal_stdin": _RUST_FORGE
    + RUST_WRONG.replace(
        "fn f(_x: i32) -> i32 { 0 }",
        "fn f(_x: i32) -> i32 { let mut t = String::new(); let _ = std::io::stdin().read_line(&mut t); forge(t.trim()); 0 }",
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("attack", sorted(RUST_ATTACKS))
def test_rust_forgery_never_passes(foreign, attack: str) -> None:
    result = run(foreign, "rust", RUST_ATTACKS[attack], RUST_TEST)
    assert "pass" not in statuses(result), (attack, [(o.status, o.detail) for o in result.outcomes])
    assert result.judged_in_program == 0


@pytest.mark.slow
def test_rust_controls(foreign) -> None:
    right = run(foreign, "rust", RUST_RIGHT, RUST_TEST)
    assert statuses(right) == ["pass"] * 5, [o.detail for o in right.outcomes]
    assert right.judged_in_program == 0
    wrong = run(foreign, "rust", RUST_WRONG, RUST_TEST)
    assert statuses(wrong) == ["wrong_answer"] * 5


@pytest.mark.slow
def test_rust_forgery_never_passes_in_a_shared_build(foreign) -> None:
    """Every attack compiled into one build with the right and the wrong program (``map``
    builds consecutive Rust programs together): no attack passes, and no member changes
    another's verdict (the right program still passes, the wrong one still fails)."""
    need("rust")
    names = sorted(RUST_ATTACKS)
    sources = [RUST_ATTACKS[name] for name in names] + [RUST_RIGHT, RUST_WRONG]
    rust = get_language("rust")
    assert all(rust.driver(source, RUST_TEST).shareable for source in sources)
    results = list(foreign.map([Program(s, TestCode(RUST_TEST), language="rust") for s in sources]))
    for name, result in zip(names, results, strict=False):
        assert "pass" not in statuses(result), (name, [o.detail for o in result.outcomes])
    assert statuses(results[-2]) == ["pass"] * 5
    assert statuses(results[-1]) == ["wrong_answer"] * 5
