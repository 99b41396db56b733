"""C++'s shared prelude: the headers a program starts with, precompiled once (a GCC PCH).

The prelude may change how fast a program compiles, never its verdict: the same programs
give the same statuses with and without a usable precompiled header, a prelude that does
not compile leaves the program's own compile error, and programs that start with the
same includes share one prelude folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from data_builders.execution.compiled.languages.cpp import leading_system_includes
from data_builders.execution.executor import Executor
from data_builders.execution.types import Program, TestCode
from tests.languages.conftest import LIMITS, need, statuses

HEADERS = "/*\nReturn x + 1.\n*/\n#include<stdio.h>\n#include <vector>\nusing namespace std;\n"
SOURCE = HEADERS + "int add_one(int x){ return x + 1; }\n"
TEST = (
    "#undef NDEBUG\n#include<assert.h>\nint main(){\n"
    "    assert (add_one(1) == 2);\n    assert (add_one(2) == 4);\n}\n"
)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (HEADERS, ["<stdio.h>", "<vector>"]),
        (
            "// c\n#include<bits/stdc++.h>\n#include<assert.h>\nint x;",
            ["<bits/stdc++.h>", "<assert.h>"],
        ),
        ("#define N 3\n#include<vector>\n", []),  # a macro before: nothing shared
        ('#include<vector>\n#include "mine.h"\n#include<map>\n', ["<vector>"]),
        ("#include<vector> int x;\n", []),  # code on the include's line
        ("int x;\n#include<vector>\n", []),
    ],
)
def test_leading_system_includes(source: str, expected: list[str]) -> None:
    assert leading_system_includes(source) == expected


def _executor(tmp_path: Path, name: str) -> Executor:
    return Executor(
        "cpp",
        workers=1,
        limits=LIMITS,
        cache_dir=tmp_path / f"builds-{name}",
        shared_cache_dir=tmp_path / f"shared-{name}",
    )


def _preludes(ex: Executor) -> list[Path]:
    root = ex.pool.shared_cache_dir / "cpp" / "prelude"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.exists() else []


def test_programs_with_the_same_includes_share_one_precompiled_prelude(tmp_path: Path) -> None:
    need("cpp")
    other = SOURCE.replace("x + 1", "x + 2")
    with _executor(tmp_path, "a") as ex:
        first = ex.run(Program(SOURCE, TestCode(TEST), language="cpp"))
        second = ex.run(Program(other, TestCode(TEST), language="cpp"))
        (prelude,) = _preludes(ex)
    assert statuses(first) == ["pass", "wrong_answer"]
    assert statuses(second) == ["wrong_answer", "pass"]
    text = (prelude / "unice_prelude.h").read_text()
    assert text.splitlines() == [
        "#include <new>",
        "#include <exception>",
        "#include <stdio.h>",
        "#include <vector>",
    ]
    assert (prelude / "unice_prelude.h.gch").stat().st_size > 0


def test_verdicts_do_not_depend_on_the_precompiled_header(tmp_path: Path) -> None:
    """The same program with its prelude's compiled form removed (GCC then reads the text)."""
    need("cpp")
    with _executor(tmp_path, "b") as ex:
        with_pch = statuses(ex.run(Program(SOURCE, TestCode(TEST), language="cpp")))
        (prelude,) = _preludes(ex)
    (prelude / "unice_prelude.h.gch").unlink()
    with _executor(tmp_path, "b") as ex:  # a fresh build cache, the same shared folder
        without = statuses(ex.run(Program(SOURCE, TestCode(TEST), language="cpp")))
    assert with_pch == without == ["pass", "wrong_answer"]


def test_a_missing_leading_header_is_the_programs_compile_error(tmp_path: Path) -> None:
    need("cpp")
    source = "#include<no_such_header_here.h>\n" + SOURCE
    with _executor(tmp_path, "c") as ex:
        result = ex.run(Program(source, TestCode(TEST), language="cpp"))
        (prelude,) = _preludes(ex)
    assert statuses(result) == ["compile_error", "compile_error"]
    assert "no_such_header_here.h" in result.outcomes[0].detail
    assert not (prelude / "unice_prelude.h.gch").exists()
