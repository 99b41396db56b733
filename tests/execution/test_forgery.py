"""Programs that try to forge an assertion test's pass: each attack is run against a test its
(wrong) function fails, and must not turn it into a pass.

Every verdict is decided in the worker (data_builders/execution/python/judge.py); the program's
process only answers calls with plain values. These attacks target what a program can reach
in its own process: builtins, modules, ``sys.modules``, its return values' ``__eq__``/
``__hash__``, the result pipe, the harness code, its callers' frames and its memory.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from data_builders.execution import AssertionTest, ExecutionLimits, Executor, Program

FORGE_PASS = '{"k": %d, "s": "pass", "t": 0, "d": "", "c": 0}\n'

# name -> (program, assertion tests it fails honestly). Each program returns a wrong value.
ATTACKS: dict[str, tuple[str, list[str]]] = {
    "patch_abs": (
        "import builtins\nbuiltins.abs = lambda x: 0\ndef f(x):\n    return 0\n",
        ["assert abs(candidate(1) - 2) < 1e-9"],
    ),
    "patch_round": (
        "import builtins\nbuiltins.round = lambda *a: 2.0\ndef f(x):\n    return 0.0\n",
        ["assert round(candidate(1), 3) == 2.0"],
    ),
    "patch_sorted": (
        "import builtins\nbuiltins.sorted = lambda *a, **k: [1, 2]\ndef f(x):\n    return [3]\n",
        ["assert sorted(candidate(1)) == [1, 2]"],
    ),
    "patch_set": (
        "import builtins\nbuiltins.set = lambda *a: {1, 2}\ndef f(x):\n    return [3]\n",
        ["assert set(candidate(1)) == {1, 2}"],
    ),
    "patch_isinstance": (
        "import builtins\nbuiltins.isinstance = lambda *a: True\ndef f(x):\n    return 'x'\n",
        ["assert isinstance(candidate(1), int)"],
    ),
    "patch_math_isclose": (
        "import math\nmath.isclose = lambda *a, **k: True\ndef f(x):\n    return 0.0\n",
        [
            "import math\nassert math.isclose(candidate(1), 2.0)",
            "assert math.isclose(candidate(1), 2.0)",
        ],
    ),
    "fake_math_in_sys_modules": (
        "import sys, types\nfake = types.ModuleType('math')\n"
        "fake.isclose = lambda *a, **k: True\nsys.modules['math'] = fake\nmath = fake\n"
        "def f(x):\n    return 0.0\n",
        [
            "import math\nassert math.isclose(candidate(1), 2.0)",
            "assert math.isclose(candidate(1), 2.0)",
        ],
    ),
    "shadow_builtins_with_globals": (
        "def sorted(*a, **k):\n    return [1, 2]\ndef len(x):\n    return 2\n"
        "def f(x):\n    return [3]\n",
        ["assert sorted(candidate(1)) == [1, 2] and len(candidate(1)) == 2"],
    ),
    "eq_always_true": (
        "class E:\n    def __eq__(self, other):\n        return True\n    __hash__ = object.__hash__\n"
        "def f(x):\n    return E()\n",
        ["assert candidate(1) == 2", "r = candidate(1)\nassert r == 1 and r == 2"],
    ),
    "int_subclass_eq": (
        "class I(int):\n    def __eq__(self, other):\n        return True\n"
        "    def __ne__(self, other):\n        return False\n    __hash__ = int.__hash__\n"
        "def f(x):\n    return I(0)\n",
        ["assert candidate(1) == 2", "r = candidate(1)\nassert r == 1 and r == 2"],
    ),
    "str_subclass_eq": (
        "class S(str):\n    def __eq__(self, other):\n        return True\n    __hash__ = str.__hash__\n"
        "def f(x):\n    return S('x')\n",
        ["assert candidate(1) == 'ab'"],
    ),
    "list_subclass_eq_and_len": (
        "class L(list):\n    def __eq__(self, other):\n        return True\n"
        "    def __len__(self):\n        return 2\n"
        "def f(x):\n    return L()\n",
        ["assert candidate(1) == [1, 2] and len(candidate(1)) == 2"],
    ),
    "dict_subclass_in_a_list": (
        "class D(dict):\n    def __eq__(self, other):\n        return True\n"
        "def f(x):\n    return [D()]\n",
        ["assert candidate(1) == [{'a': 1}]"],
    ),
    "hash_and_eq_trick": (
        "class H:\n    def __hash__(self):\n        return hash(2)\n"
        "    def __eq__(self, other):\n        return True\n"
        "def f(x):\n    return H()\n",
        ["assert candidate(1) in {2}", "assert {candidate(1): 1} == {2: 1}"],
    ),
    "patch_json_encoder_to_claim_pass": (
        "import json\n_orig = json.JSONEncoder.encode\n"
        "def enc(self, o):\n"
        "    if isinstance(o, dict) and o.get('s') in ('serve', 'wrong_answer'):\n"
        "        o = dict(o, s='pass')\n"
        "    if isinstance(o, dict) and 'x' in o:\n"
        "        o = {'r': 2}\n"
        "    return _orig(self, o)\n"
        "json.JSONEncoder.encode = enc\n"
        "import pickle\npickle.loads = lambda *a, **k: True\npickle.dumps = lambda *a, **k: b''\n"
        "def f(x):\n    return 0\n",
        ["assert candidate(1) == 2"],
    ),
    "patch_the_harness": (
        "import sys\nchild = sys.modules['data_builders.execution.python.child']\n"
        "mode = sys.modules['data_builders.execution.python.function_child']\n"
        "child.classify = mode.classify = lambda exc: ('pass', '')\n"
        "mode.serve_assertion = lambda index, *a: child.Channel.send(a[3], {'k': index, 's': 'pass'})\n"
        "def f(x):\n    return 0\n",
        ["assert candidate(1) == 2", "assert candidate(2) == 3"],
    ),
    "write_pass_lines_on_every_fd": (
        "import os\ndef f(x):\n"
        "    for fd in range(3, 64):\n"
        "        for k in range(4):\n"
        "            try:\n"
        f"                os.write(fd, ({FORGE_PASS!r} % k).encode())\n"
        "            except OSError:\n"
        "                pass\n"
        "    return 0\n",
        ["assert candidate(1) == 2", "assert candidate(2) == 3"],
    ),
    "frame_inspection_of_the_caller": (
        "import sys\n"
        "def skip(frame, event, arg):\n"
        "    if event == 'line' and frame.f_code.co_name == '_unice_test':\n"
        "        try:\n"
        "            frame.f_lineno = frame.f_code.co_firstlineno + 2\n"
        "        except ValueError:\n"
        "            pass\n"
        "    return skip\n"
        "def f(x):\n"
        "    frame = sys._getframe(1)\n"
        "    while frame is not None:\n"
        "        for name, value in list(frame.f_locals.items()):\n"
        "            if name == 'expected':\n"
        "                return value\n"
        "        frame.f_trace = skip\n"
        "        frame = frame.f_back\n"
        "    sys.settrace(skip)\n"
        "    return 0\n",
        ["assert candidate(1) == 2\nx = 0"],
    ),
    "read_the_test_source_and_answer_every_channel": (
        "import gc, os, re, sys\n"
        "def f(x):\n"
        "    sources = [o['source'] for o in gc.get_objects()\n"
        "               if type(o) is dict and o.get('kind') == 'assert' and 'source' in o]\n"
        "    for fd in range(3, 64):\n"
        "        for k in range(4):\n"
        "            for line in ('{\"r\": 7}\\n', '{\"r\": 8}\\n', "
        + repr(FORGE_PASS)
        + " % k):\n"
        "                try:\n"
        "                    os.write(fd, line.encode())\n"
        "                except OSError:\n"
        "                    pass\n"
        "    numbers = [int(n) for s in sources for n in re.findall(r'== (\\d+)', s)]\n"
        "    return numbers[0] if numbers else 0\n",
        ["r = candidate(1)\nassert r == 7 and r == 8"],
    ),
}


@pytest.fixture(scope="module", params=["worker", "zygote"])
def pool(request: pytest.FixtureRequest) -> Iterator[tuple[Executor, str]]:
    """Attacks run on plain workers and, prefixed by an import served from the zygote, there."""
    shared = ("fractions",) if request.param == "zygote" else ()
    prefix = "from fractions import Fraction\n" if shared else ""
    limits = ExecutionLimits(timeout=1.0, memory_mb=1024)
    with Executor(workers=1, limits=limits, shared_imports=shared) as ex:
        yield ex, prefix


@pytest.mark.parametrize("name", sorted(ATTACKS))
def test_forgery_attempt_does_not_pass(pool: tuple[Executor, str], name: str) -> None:
    executor, prefix = pool
    source, bodies = ATTACKS[name]
    tests = [AssertionTest(body) for body in bodies]
    result = executor.run(Program(prefix + source, tests, entry_point="f"))
    assert [o.status for o in result.outcomes if o.status == "pass"] == [], result.outcomes
    # the pool is fine afterwards: an honest program still passes the same kind of test
    honest = Program(
        prefix + "def f(x):\n    return x + 1\n",
        [AssertionTest("assert candidate(1) == 2")],
        entry_point="f",
    )
    assert executor.run(honest).passed


def test_honest_versions_of_the_attacked_tests_pass(pool: tuple[Executor, str]) -> None:
    """The attacked tests are passable by plain values (so the failures above are the
    attacks being refused, not tests that nothing passes)."""
    executor, prefix = pool
    source = "def f(x):\n    return {'abs': 2, 'round': 2.0, 'list': [2, 1], 'int': 5}[x]\n"
    tests = [
        AssertionTest("assert abs(candidate('abs') - 2) < 1e-9"),
        AssertionTest("assert round(candidate('round'), 3) == 2.0"),
        AssertionTest(
            "assert sorted(candidate('list')) == [1, 2] and set(candidate('list')) == {1, 2}"
        ),
        AssertionTest("assert isinstance(candidate('int'), int)"),
        AssertionTest("import math\nassert math.isclose(candidate('round'), 2.0)"),
        AssertionTest("assert candidate('int') in {5} and {candidate('int'): 1} == {5: 1}"),
    ]
    result = executor.run(Program(prefix + source, tests, entry_point="f"))
    assert [o.status for o in result.outcomes] == ["pass"] * len(tests), result.outcomes


def test_a_subclass_of_the_expected_type_is_a_wrong_answer(pool: tuple[Executor, str]) -> None:
    """Documented choice: non-builtin types (subclasses included) are rejected in the child,
    by type identity, never converted through their own methods."""
    executor, prefix = pool
    source = "class I(int):\n    pass\ndef f(x):\n    return I(2)\n"
    result = executor.run(
        Program(prefix + source, [AssertionTest("assert candidate(1) == 2")], entry_point="f")
    )
    assert result.outcomes[0].status == "wrong_answer"
    assert "cannot cross" in result.outcomes[0].detail


def test_a_test_that_swallows_everything_still_fails_a_crashed_program(
    pool: tuple[Executor, str],
) -> None:
    """A test body with ``except BaseException`` cannot turn the program's crash into a
    pass: the worker labels the test from the child's end, not from the body's outcome."""
    executor, prefix = pool
    source = "import ctypes\ndef f(x):\n    return ctypes.string_at(0)\n"
    body = "try:\n    candidate(1)\nexcept BaseException:\n    pass\nassert True"
    tests = [AssertionTest(body), AssertionTest("assert candidate(2) == 3")]
    result = executor.run(Program(prefix + source, tests, entry_point="f"))
    assert [o.status for o in result.outcomes] == ["signal", "signal"], result.outcomes
