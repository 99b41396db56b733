"""The per-worker import zygote: heavy imports served warm, labels unchanged, deaths survived.

The zygote is exercised with ``fractions`` standing in for a heavy library (it is not in the
workers' preload list, so a program sees it already imported only when the zygote did it),
and with numpy where it is installed.
"""

from __future__ import annotations

import importlib.util

import pytest

from data_builders.execution import CallTest, ExecutionLimits, Executor, Program
from data_builders.execution.python.zygote import heavy_imports

ALLOWED = frozenset({"numpy", "matplotlib", "fractions"})
SEES_FRACTIONS = (
    "import sys\n"
    "ALREADY = 'fractions' in sys.modules\n"
    "from fractions import Fraction\n"
    "def f(x):\n"
    "    return [ALREADY, str(Fraction(x, 4))]\n"
)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("import numpy as np\n", ["numpy"]),
        ("import os, numpy.linalg as la  # comment\n", ["numpy.linalg"]),
        ("from matplotlib import pyplot as plt\n", ["matplotlib"]),
        ("    import matplotlib.pyplot as plt\n", ["matplotlib.pyplot"]),
        ("import numpy\nimport numpy\nfrom fractions import Fraction\n", ["numpy", "fractions"]),
        ("import numpyro\nimport os\n", []),
        ("x = 'import numpy'\n", []),
        ("print(1)\n", []),
    ],
)
def test_heavy_imports_reads_import_statements(source: str, expected: list[str]) -> None:
    assert heavy_imports(source, ALLOWED) == expected


def _run(shared: tuple[str, ...], programs: list[Program], **kwargs) -> list:
    limits = ExecutionLimits(timeout=2.0)
    with Executor(workers=1, limits=limits, shared_imports=shared, **kwargs) as ex:
        return list(ex.map(programs))


def test_a_shared_import_is_already_loaded_and_labels_are_unchanged() -> None:
    program = Program(SEES_FRACTIONS, [CallTest([2]), CallTest([3])], entry_point="f")
    warm = _run(("fractions",), [program, program])
    cold = _run((), [program])
    assert [o.output for o in warm[0].outcomes] == [[True, "1/2"], [True, "3/4"]]
    assert [o.output for o in warm[1].outcomes] == [[True, "1/2"], [True, "3/4"]]
    assert [o.output for o in cold[0].outcomes] == [[False, "1/2"], [False, "3/4"]]


def test_zygote_programs_keep_their_failures() -> None:
    source = "from fractions import Fraction\ndef f(x):\n    return 1 // (x - 1)\n"
    program = Program(source, [CallTest([2], 1), CallTest([1], 0), CallTest([3], 7)], "f")
    result = _run(("fractions",), [program])[0]
    assert [o.status for o in result.outcomes] == ["pass", "runtime_error", "wrong_answer"]
    assert "ZeroDivisionError" in result.outcomes[1].detail


def test_a_program_that_kills_the_zygote_is_labelled_and_the_pool_goes_on() -> None:
    """Without seccomp a program can kill its parent — here the zygote, then the worker that
    takes the job over: every test is labelled and the next program runs normally."""
    killer = (
        "import os, signal\nfrom fractions import Fraction\n"
        "def f(x):\n    os.kill(os.getppid(), signal.SIGKILL)\n"
    )
    good = "from fractions import Fraction\ndef f(x):\n    return str(Fraction(x, 2))\n"
    results = _run(
        ("fractions",),
        [
            Program(killer, [CallTest([1], 2), CallTest([2], 3)], entry_point="f"),
            Program(good, [CallTest([1], "1/2")], entry_point="f"),
        ],
        isolation="rlimits",
    )
    assert [o.status for o in results[0].outcomes] == ["runtime_error", "runtime_error"]
    assert results[1].passed


@pytest.mark.skipif(importlib.util.find_spec("numpy") is None, reason="numpy not installed")
def test_numpy_programs_through_the_zygote() -> None:
    source = "import numpy as np\ndef f(n):\n    return int(np.arange(n).sum())\n"
    program = Program(source, [CallTest([4], 6), CallTest([5], 11)], entry_point="f")
    results = _run(("numpy",), [program, program])
    assert [[o.status for o in r.outcomes] for r in results] == [["pass", "wrong_answer"]] * 2


def test_modules_planted_by_a_program_are_never_imported_by_worker_or_zygote() -> None:
    """A program writes ``fractions.py`` and ``shutil.py`` wherever it can; the worker imports
    shutil on demand (a directory left in scratch) and the zygote imports fractions for the
    next program: both must get the real modules."""
    planter = (
        "import os\nfrom fractions import Fraction\n"
        "FAKE = 'class Fraction:\\n    def __init__(self, *a):\\n        pass\\n"
        '    def __str__(self):\\n        return "PLANTED"\\n\'\n'
        "def f(x):\n"
        "    os.makedirs('leftover', exist_ok=True)\n"
        "    for where in ('.', '/tmp', os.environ.get('TMPDIR', '.')):\n"
        "        for name, text in (('fractions.py', FAKE), ('shutil.py', 'import os\\nos._exit(3)\\n')):\n"
        "            try:\n"
        "                with open(os.path.join(where, name), 'w') as handle:\n"
        "                    handle.write(text)\n"
        "            except OSError:\n"
        "                pass\n"
        "    return x\n"
    )
    user = "from fractions import Fraction\ndef f(x):\n    return str(Fraction(x, 2))\n"
    limits = ExecutionLimits(timeout=2.0)
    with Executor(workers=1, limits=limits, shared_imports=("fractions",)) as ex:
        pid = ex.pool._workers[0].proc.pid
        assert ex.run(Program(planter, [CallTest([1], 1)], entry_point="f")).passed
        result = ex.run(Program(user, [CallTest([1], "1/2")], entry_point="f"))
        assert result.passed, result.outcomes[0].detail
        assert ex.pool._workers[0].proc.pid == pid  # the worker never died on a planted shutil


def test_one_module_name_as_a_string_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match=r"not one string: \('numpy',\)"):
        Executor(workers=1, shared_imports="numpy")
