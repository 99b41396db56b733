"""Forgeries against the assertions judged from a reference run: none may earn a pass.

The forgery suite's second half (``test_forged_verdicts.py`` is the first): the assertions
whose expected side the test computes (a loop of random checks, a variable, two calls of the
program, HumanEval's ``find_zero`` property) are judged on the host against the reference
solution's run (``data_builders/execution/compiled/languages/computed.py``), so these programs carry a
``Program.reference``. Each attack is a *wrong* program (a wrong ``add``, a ``twice`` that
differs from call to call, a wrong root) that also forges reports: pass lines on every
descriptor or by the harness's names, values for a loop's turns, a redefined value case, an
equality that always holds, an early exit. Not one earns a pass; the controls (a correct
program) pass every assertion with none judged in the program, and a correct program that
changes the test's inputs (reseeding the generator) fails the loop, as documented.

Small fixtures written here, no shared data; each test skips where its toolchain is missing.
"""

from __future__ import annotations

import pytest

from data_builders.execution.types import Program, TestCode
from tests.languages.conftest import need, statuses
from tests.languages.test_forged_verdicts import _JAVA_FORGE


def run(ex, language: str, source: str, test: str, reference: str):
    need(language)
    return ex.run(Program(source, TestCode(test), language=language, reference=reference))


def run_attacks(ex, language: str, attacks: dict[str, str], test: str, reference: str) -> dict:
    """Every attack's result by name, run two at a time (``map``: the builds in parallel)."""
    need(language)
    names = sorted(attacks)
    programs = [
        Program(attacks[n], TestCode(test), language=language, reference=reference) for n in names
    ]
    return dict(zip(names, ex.map(programs), strict=True))


def assert_no_pass(result, attack: str) -> None:
    assert "pass" not in statuses(result), (attack, [(o.status, o.detail) for o in result.outcomes])
    assert result.judged_in_program == 0


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
    int seven = 3 + 4;
    for (int i=0;i<5;i++)
    {
        int x=rand()%100;
        assert (add(x, 1) == x + 1);
    }
    assert (add(3, 4) == seven);
    assert (issame(twice({1, 2}), twice({1, 2})));
    vector<double> xs={-2, 1};
    double root = find_zero(xs);
    assert (abs(poly(xs, root)) < 1e-3);
}
"""
CPP_HEAD = (
    "#include<stdio.h>\n#include<stdlib.h>\n#include<math.h>\n#include<vector>\n"
    "#include<unistd.h>\nusing namespace std;\n"
    "double poly(vector<double> xs, double x){ double sum=0; for (int i=0;i<xs.size();i++)"
    " sum+=xs[i]*pow(x,i); return sum; }\n"
)
CPP_RIGHT = CPP_HEAD + (
    "int add(int x, int y) { return x + y; }\n"
    "vector<int> twice(vector<int> v) { return v; }\n"
    "double find_zero(vector<double> xs) { return 2.0; }\n"
)
CPP_WRONG_BODY = (
    "int add(int x, int y) { return x + y + 1; }\n"
    "vector<int> twice(vector<int> v) { static int n = 0; return {n++}; }\n"
    "double find_zero(vector<double> xs) { return 5.0; }\n"
)
CPP_WRONG = CPP_HEAD + CPP_WRONG_BODY
_CPP_EVERY_FD = (
    "static void forge() { char line[64]; for (int fd = 0; fd < 1024; fd++) for (int k = 0; k < 4; k++) {"
    ' int n = snprintf(line, sizeof line, "\\nS %d\\nP %d\\nV %d 8\\n", k, k, k); write(fd, line, n); } }\n'
)
_CPP_STEAL = (
    "#include<fcntl.h>\nstatic char stolen[80];\n"
    "__attribute__((constructor(0))) static void steal() { int n = read(0, stolen, 64); stolen[n > 0 ? n : 0] = 0;"
    ' int back = open("/proc/self/fd/0", O_WRONLY); if (back >= 0) { write(back, stolen, n); close(back); } }\n'
    "static void forge() { char tok[80]; int i = 0; while (stolen[i] && stolen[i] != '\\n') { tok[i] = stolen[i]; i++; } tok[i] = 0;"
    " char line[256]; for (int fd = 3; fd < 64; fd++) for (int k = 0; k < 4; k++) {"
    ' int n = snprintf(line, sizeof line, "\\nS %d %s\\nP %d %s\\nV %d %s 8\\n", k, tok, k, tok, k, tok); write(fd, line, n); } }\n'
)
_CPP_ADD = "{ return x + y + 1; }"
CPP_ATTACKS = {
    "every_descriptor": CPP_HEAD
    + _CPP_EVERY_FD
    + "static int forged = (forge(), _exit(0), 0);\n"
    + CPP_WRONG_BODY,
    "every_descriptor_per_call": CPP_HEAD
    + _CPP_EVERY_FD
    + CPP_WRONG_BODY.replace(_CPP_ADD, "{ forge(); return x + y + 1; }"),
    # the harness's report function by name: pass lines, and values for the loop's turns
    "report_by_name": CPP_WRONG.replace(
        _CPP_ADD,
        "{ for (int k = 0; k < 4; k++) { __unice_mark('S', k); __unice_mark('P', k); } _exit(0); }",
    ),
    "extra_turns_by_name": CPP_WRONG.replace(
        _CPP_ADD,
        "{ __unice_mark('V', 0, \"1\"); __unice_mark('S', 0); return x + y + 1; }",
    ),
    "redefine_value_case": "#define __unice_value(k, f) __unice_case(k, []() -> bool { return true; })\n"
    + CPP_WRONG,
    "redefine_by_macro_assert": "#define assert(x) ((void)0)\n#define abs(x) 0\n" + CPP_WRONG,
    # a macro turning the candidate's side into the test's own expected variable
    "macro_reads_expected_variable": CPP_WRONG + "#define add(a, b) seven\n",
    "patched_operator_eq": CPP_HEAD
    + "struct Any { template <class T> bool operator==(const T&) const { return true; } };\n"
    + CPP_WRONG_BODY.replace(
        "int add(int x, int y) " + _CPP_ADD, "Any add(int x, int y) { return {}; }"
    ),
    "steal_token": CPP_HEAD
    + _CPP_STEAL
    + CPP_WRONG_BODY.replace(_CPP_ADD, "{ forge(); return x + y + 1; }"),
    "exit_early": CPP_WRONG.replace(_CPP_ADD, "{ exit(0); }"),
}


@pytest.mark.parametrize("attack", sorted(CPP_ATTACKS))
def test_cpp_forgery_never_passes(foreign, attack: str) -> None:
    assert_no_pass(run(foreign, "cpp", CPP_ATTACKS[attack], CPP_TEST, CPP_RIGHT), attack)


def test_cpp_controls(foreign) -> None:
    right = run(foreign, "cpp", CPP_RIGHT, CPP_TEST, CPP_RIGHT)
    assert statuses(right) == ["pass"] * 4, [o.detail for o in right.outcomes]
    assert right.judged_in_program == 0
    # another right root passes the property: it is judged, not compared with the reference's
    other_root = CPP_RIGHT.replace("return 2.0;", "return 2.0 + 1e-9;")
    assert statuses(run(foreign, "cpp", other_root, CPP_TEST, CPP_RIGHT)) == ["pass"] * 4
    wrong = run(foreign, "cpp", CPP_WRONG, CPP_TEST, CPP_RIGHT)
    assert statuses(wrong) == ["wrong_answer"] * 4, [o.detail for o in wrong.outcomes]
    # without a reference these assertions stay in the program, as before
    plain = foreign.run(Program(CPP_RIGHT, TestCode(CPP_TEST), language="cpp"))
    assert statuses(plain) == ["pass"] * 4 and plain.judged_in_program == 4


def test_cpp_changed_inputs_fail(foreign) -> None:
    """A correct program that reseeds ``rand()`` is compared with the reference's turns for
    the test's own inputs, and fails the loop."""
    reseeded = CPP_RIGHT.replace(CPP_HEAD, CPP_HEAD + "static int seeded = (srand(7), 0);\n")
    result = run(foreign, "cpp", reseeded, CPP_TEST, CPP_RIGHT)
    assert statuses(result) == ["wrong_answer", "pass", "pass", "pass"]


# -- JavaScript ----------------------------------------------------------------------------
JS_TEST = """const testAll = () => {
  for (let i = 0; i < 5; i++) {
    const x = Math.floor(Math.random() * 100)
    console.assert(add(x, 1) === x + 1)
  }
  const seven = 3 + 4
  console.assert(add(3, 4) === seven)
  console.assert(JSON.stringify(twice([1, 2])) === JSON.stringify(twice([1, 2])))
  const xs = [-2, 1]
  const root = findZero(xs)
  console.assert(Math.abs(poly(xs, root)) < 1e-3)
}

testAll()
"""
_JS_POLY = "const poly = (xs, x) => xs.reduce((prev, item, index) => prev + item * Math.pow(x, index), 0)\n"
JS_RIGHT = _JS_POLY + (
    "const add = (x, y) => x + y\nconst twice = (v) => v\nconst findZero = (xs) => 2\n"
)
_JS_ADD = "const add = (x, y) => x + y + 1"
JS_WRONG = _JS_POLY + (
    _JS_ADD + "\nlet n = 0\nconst twice = (v) => [n++]\nconst findZero = (xs) => 5\n"
)
_JS_EVERY_FD = (
    "const forge = () => { const fs = require('fs'); for (let fd = 0; fd < 64; fd++) for (let k = 0; k < 4; k++)"
    " try { fs.writeSync(fd, `\\nS ${k}\\nP ${k}\\nV ${k} 8\\n`) } catch (e) {} }\n"
)
JS_ATTACKS = {
    "every_descriptor": _JS_EVERY_FD + "forge()\nprocess.exit(0)\n" + JS_WRONG,
    "every_descriptor_per_call": _JS_EVERY_FD
    + JS_WRONG.replace(_JS_ADD, "const add = (x, y) => { forge(); return x + y + 1 }"),
    "report_by_name": "for (let k = 0; k < 4; k++) __unice_case(k, () => true)\n" + JS_WRONG,
    "report_by_name_then_exit": JS_WRONG.replace(
        _JS_ADD,
        "const add = (x, y) => { for (let k = 0; k < 4; k++) __unice_case(k, () => true);"
        " process.exit(0) }",
    ),
    # values for the running turn by the harness's own function, and extra turns
    "value_by_name_inside_the_turn": JS_WRONG.replace(
        _JS_ADD,
        "const add = (x, y) => { __unice_value(0, () => x + y); __unice_case(0, () => true); return 0 }",
    ),
    "reassign_harness_function": "try { __unice_value = (k, f) => __unice_case(k, () => true) } catch (e) {}\n"
    "try { globalThis.__unice_value = (k, f) => __unice_case(k, () => true) } catch (e) {}\n"
    + JS_WRONG,
    "patched_builtins": "Math.abs = () => 0\nMath.pow = () => 0\nJSON.stringify = () => 'same'\n"
    "Object.is = () => true\n" + JS_WRONG,
    "steal_token_from_worker_data": "const wt = require('worker_threads')\n"
    "const tok = (wt.workerData && wt.workerData.token) || ''\n"
    "for (let fd = 3; fd < 64; fd++) for (let k = 0; k < 4; k++) try { require('fs').writeSync(fd, `\\nS ${k} ${tok}\\nP ${k} ${tok}\\nV ${k} ${tok} 8\\n`) } catch (e) {}\n"
    + JS_WRONG,
    "exit_early": JS_WRONG.replace(_JS_ADD, "const add = (x, y) => process.exit(0)"),
}


@pytest.fixture(scope="module")
def js_processes(tmp_path_factory: pytest.TempPathFactory):
    """An executor that runs each JavaScript program in a process of its own (no runner)."""
    from data_builders.execution.executor import Executor
    from tests.languages.conftest import LIMITS

    cache = tmp_path_factory.mktemp("js-reference-forge")
    with Executor("js", workers=2, limits=LIMITS, cache_dir=cache, runners=False) as ex:
        yield ex


@pytest.mark.parametrize("mode", ["runner", "process"])
@pytest.mark.parametrize("attack", sorted(JS_ATTACKS))
def test_js_forgery_never_passes(foreign, js_processes, attack: str, mode: str) -> None:
    ex = foreign if mode == "runner" else js_processes
    assert_no_pass(run(ex, "js", JS_ATTACKS[attack], JS_TEST, JS_RIGHT), attack)


@pytest.mark.parametrize("mode", ["runner", "process"])
def test_js_controls(foreign, js_processes, mode: str) -> None:
    ex = foreign if mode == "runner" else js_processes
    right = run(ex, "js", JS_RIGHT, JS_TEST, JS_RIGHT)
    assert statuses(right) == ["pass"] * 4, [o.detail for o in right.outcomes]
    assert right.judged_in_program == 0
    wrong = run(ex, "js", JS_WRONG, JS_TEST, JS_RIGHT)
    assert statuses(wrong) == ["wrong_answer"] * 4, [o.detail for o in wrong.outcomes]


def test_js_changed_inputs_fail(foreign) -> None:
    """A correct program that replaces the seeded ``Math.random`` fails the loop."""
    result = run(foreign, "js", "Math.random = () => 0.5\n" + JS_RIGHT, JS_TEST, JS_RIGHT)
    assert statuses(result) == ["wrong_answer", "pass", "pass", "pass"]


# -- Java ----------------------------------------------------------------------------------
JAVA_TEST = """public class Main {
    public static void main(String[] args) {
        Solution s = new Solution();
        Random rand = new Random(42);
        List<Boolean> correct = Arrays.asList(
                (String) s.pick("1", "2") == "2"
        );
        if (correct.contains(false)) {
            throw new AssertionError();
        }
        for (int i = 0; i < 5; i++) {
            int x = rand.nextInt(100);
            if (s.add(x, 1) != x + 1) {
                throw new AssertionError();
            }
        }
        for (int i = 0; i < 3; i++) {
            String w = "ab" + i;
            if (!Objects.equals(s.echo(w), w)) {
                throw new AssertionError();
            }
        }
        List<Double> xs = new ArrayList<>(Arrays.asList(-2.0, 1.0));
        double root = s.findZero(xs);
        for (int i = 0; i < 1; i++) {
            if (Math.abs(s.poly(xs, root)) > 1e-4) {
                throw new AssertionError();
            }
        }
        int seven = 3 + 4;
        assert s.add(3, 4) == seven;
        if (!(Objects.equals(s.echo("x"), "x"))) throw new AssertionError();
    }
}
"""
_JAVA = "import java.util.*;\nimport java.lang.*;\n%s\nclass Solution {\n%s\n}\n"
_JAVA_POLY = (
    "    public double poly(List<Double> xs, double x) { double result = 0;"
    " for (int i = 0; i < xs.size(); i++) result += xs.get(i) * Math.pow(x, i); return result; }\n"
)
JAVA_RIGHT_BODY = _JAVA_POLY + (
    "    public Object pick(Object a, Object b) { return b; }\n"
    "    public int add(int x, int y) { return x + y; }\n"
    "    public String echo(String w) { return w; }\n"
    "    public double findZero(List<Double> xs) { return 2.0; }\n"
)
_JAVA_ADD = "{ return x + y + 1; }"
JAVA_WRONG_BODY = _JAVA_POLY + (
    "    public Object pick(Object a, Object b) { return new String((String) b); }\n"
    "    public int add(int x, int y) " + _JAVA_ADD + "\n"
    '    public String echo(String w) { return w + "!"; }\n'
    "    public double findZero(List<Double> xs) { return 5.0; }\n"
)
JAVA_RIGHT = _JAVA % ("", JAVA_RIGHT_BODY)
JAVA_WRONG = _JAVA % ("", JAVA_WRONG_BODY)
JAVA_ATTACKS = {
    "every_descriptor": _JAVA
    % (
        "",
        _JAVA_FORGE
        + JAVA_WRONG_BODY.replace(_JAVA_ADD, '{ forge(""); System.exit(0); return 0; }'),
    ),
    "stolen_token_by_reflection": _JAVA
    % (
        "",
        _JAVA_FORGE + JAVA_WRONG_BODY.replace(_JAVA_ADD, "{ forge(steal()); return x + y + 1; }"),
    ),
    "report_by_name": _JAVA
    % (
        "",
        JAVA_WRONG_BODY.replace(
            _JAVA_ADD,
            '{ for (int k = 0; k < 5; k++) { Main.__unice_mark("S", k, null); Main.__unice_mark("P", k, null); }'
            " System.exit(0); return 0; }",
        ),
    ),
    # the loop's turns by the harness's own functions: a forged list of turns, and extra turns
    "turns_by_name": _JAVA
    % (
        "",
        JAVA_WRONG_BODY.replace(
            _JAVA_ADD,
            '{ Main.__unice_mark("V", 1, "{\\"$turns\\":[[],null]}");'
            " Main.__unice_series(1, (t) -> {}); return x + y + 1; }",
        ),
    ),
    "shadow_library_classes": _JAVA
    % (
        "class Math { static double abs(double x) { return 0; } static double pow(double a, double b) { return 0; } }\n"
        "class Objects { static boolean equals(Object a, Object b) { return true; } }\n",
        JAVA_WRONG_BODY,
    ),
    "exit_early": _JAVA % ("", JAVA_WRONG_BODY.replace(_JAVA_ADD, "{ System.exit(0); return 0; }")),
}


@pytest.mark.parametrize("attack", sorted(JAVA_ATTACKS))
def test_java_forgery_never_passes(foreign, attack: str) -> None:
    assert_no_pass(run(foreign, "java", JAVA_ATTACKS[attack], JAVA_TEST, JAVA_RIGHT), attack)


def test_java_controls(foreign) -> None:
    right = run(foreign, "java", JAVA_RIGHT, JAVA_TEST, JAVA_RIGHT)
    assert statuses(right) == ["pass"] * 6, [o.detail for o in right.outcomes]
    assert right.judged_in_program == 0
    wrong = run(foreign, "java", JAVA_WRONG, JAVA_TEST, JAVA_RIGHT)
    assert statuses(wrong) == ["wrong_answer"] * 6, [o.detail for o in wrong.outcomes]
    # string identity, as Java's ==: an equal copy fails, the pooled instance of it passes
    pooled = JAVA_WRONG.replace("new String((String) b)", "new String((String) b).intern()")
    assert statuses(run(foreign, "java", pooled, JAVA_TEST, JAVA_RIGHT))[0] == "pass"
