"""Rust programs compiled several to a build (``Language.batch``, ``ForeignPool._run_batch``):
the verdicts are the ones each program's own build gives, a member the compiler rejects is
built alone, and a program that could compile or run differently inside a shared crate (or
reach another member's process) is never batched."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from data_builders.execution.compiled.languages import get_language
from data_builders.execution.compiled.pool import ForeignPool
from data_builders.execution.types import Program, TestCode
from tests.languages.conftest import LIMITS, need

TEST = """
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_add() {
        assert_eq!(add(1, 2), 3);
        assert_eq!(add(2, 2), 4);
        assert!(add(0, 0) == 0);
    }
}
"""

PROGRAMS = {
    "right": "fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
    "wrong": "fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n",
    "half": "fn add(a: i32, b: i32) -> i32 {\n    if a == 2 { 5 } else { a + b }\n}\n",
    "type_error": 'fn add(a: i32, b: i32) -> i32 {\n    a + "b"\n}\n',
    "syntax_error": "fn add(a: i32, b: i32) -> i32 {\n    a + b\n",
    "panics": "fn add(a: i32, b: i32) -> i32 {\n    let v: Vec<i32> = vec![];\n    v[a as usize] + b\n}\n",
    "helper": "fn twice(x: i32) -> i32 { x * 2 }\nfn add(a: i32, b: i32) -> i32 {\n    twice(a + b) / 2\n}\n",
    "own_main": "fn main() { std::process::exit(3); }\nfn add(a: i32, b: i32) -> i32 { a + b }\n",
    "unshareable": "fn add(a: i32, b: i32) -> i32 {\n    crate::inner(a, b)\n}\nfn inner(a: i32, b: i32) -> i32 { a + b }\n",
}


def _program(name: str) -> Program:
    return Program(PROGRAMS[name], TestCode(TEST), language="rust")


def test_a_batch_is_one_crate_whose_modules_are_the_drivers_files() -> None:
    rust = get_language("rust")
    drivers = [rust.driver(PROGRAMS[name], TEST) for name in ("right", "wrong", "helper")]
    assert all(d.shareable for d in drivers)
    batch = rust.batch(drivers)
    assert [batch.driver.files[f"p{i}.rs"] for i in range(3)] == [
        d.files["main.rs"] for d in drivers
    ]
    assert batch.driver.files["main.rs"].count("mod __unice_p") == 3
    assert batch.run_args == (("__unice_p0::",), ("__unice_p1::",), ("__unice_p2::",))
    assert batch.driver.n_cases == 9
    with pytest.raises(ValueError, match="shareable"):
        rust.batch([drivers[0]])


@pytest.mark.parametrize(
    "source",
    [
        PROGRAMS["unshareable"],
        "fn add(a: i32, b: i32) -> i32 { super::other(a, b) }",
        "#![no_std]\nfn add(a: i32, b: i32) -> i32 { a + b }",
        '#[no_mangle]\npub extern "C" fn write() {}\nfn add(a: i32, b: i32) -> i32 { a + b }',
        '#[used]\n#[link_section = ".init_array"]\nstatic F: fn() = f;\nfn f() {}',
        "fn add(a: i32, b: i32) -> i32 { std::env::args().count() as i32 }",
        "fn add(a: i32, b: i32) -> i32 { line!() as i32 }",
        "fn add(a: i32, b: i32) -> i32 { std::any::type_name::<i32>().len() as i32 }",
        "#[macro_export]\nmacro_rules! m { () => {} }\nfn add(a: i32, b: i32) -> i32 { a + b }",
    ],
)
def test_programs_that_could_differ_in_a_shared_crate_are_built_alone(source: str) -> None:
    assert not get_language("rust").driver(source, TEST).shareable


def test_a_main_driver_is_never_batched() -> None:
    """MultiPL-E's Rust tests are a ``fn main``: one binary each."""
    test = "fn main() {\n    assert_eq!(add(1, 2), 3);\n}\n"
    assert not get_language("rust").driver(PROGRAMS["right"], test).shareable


def test_culprits_are_the_members_the_compiler_names() -> None:
    log = (
        "error[E0308]: mismatched types\n --> p3.rs:2:9\n  |\n"
        "error: this file contains an unclosed delimiter\n --> p0.rs:3:1\n"
        "error: something\n --> main.rs:1:1\n --> p9.rs:1:1\n"
    )
    assert get_language("rust").batch_culprits(log, 5) == {0, 3}
    assert get_language("rust").batch_culprits("error: linking failed", 5) == set()


def test_groups_are_runs_of_one_batching_language(tmp_path: Path) -> None:
    pool = ForeignPool(workers=2, limits=LIMITS, isolation="rlimits", cache_dir=tmp_path)
    try:
        size = get_language("rust").compile_batch
        programs = [Program(str(i), TestCode(""), language="rust") for i in range(size + 4)]
        programs[2:2] = [Program("c", TestCode(""), language="cpp")]
        groups = list(pool._groups(programs))
        assert [len(g) for g in groups] == [2, 1, size, 2]
        assert [p for g in groups for p in g] == programs
        pool.use_compile_batches = False
        assert all(len(g) == 1 for g in pool._groups(programs))
    finally:
        pool.close()


@pytest.fixture(scope="module")
def pools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ForeignPool, ForeignPool]]:
    need("rust")
    batched = ForeignPool(workers=2, limits=LIMITS, cache_dir=tmp_path_factory.mktemp("batched"))
    alone = ForeignPool(
        workers=2, limits=LIMITS, cache_dir=tmp_path_factory.mktemp("alone"), compile_batches=False
    )
    yield batched, alone
    batched.close()
    alone.close()


def _statuses(pool: ForeignPool, names: list[str]) -> list[list[str]]:
    return [[o.status for o in r.outcomes] for r in pool.map([_program(n) for n in names])]


def test_batched_verdicts_are_each_programs_own_builds(
    pools: tuple[ForeignPool, ForeignPool],
) -> None:
    batched, alone = pools
    names = list(PROGRAMS)
    got = _statuses(batched, names)
    assert got == _statuses(alone, names)
    by_name = dict(zip(names, got, strict=True))
    assert by_name["right"] == ["pass"] * 3
    assert by_name["wrong"] == ["wrong_answer", "wrong_answer", "pass"]
    assert by_name["half"] == ["pass", "wrong_answer", "pass"]
    assert by_name["type_error"] == by_name["syntax_error"] == ["compile_error"] * 3
    assert by_name["panics"] == ["runtime_error"] * 3
    assert by_name["helper"] == by_name["own_main"] == by_name["unshareable"] == ["pass"] * 3
    # the six shareable programs that compile share a build (the batches before it, with the
    # compile errors in them, failed and named them); unshareable and the errors build alone
    # (each pool's count may include the runtime crate's one build, made by the first pool)
    assert batched.compiles < alone.compiles


def test_a_batch_without_compile_errors_is_one_build(
    pools: tuple[ForeignPool, ForeignPool],
) -> None:
    batched, _ = pools
    before = batched.compiles
    names = ["right", "wrong", "half", "helper", "panics", "own_main"]
    # (new programs, not builds the cache already holds: a comment changes each one's text)
    programs = [
        Program(PROGRAMS[n] + "// second run\n", TestCode(TEST), language="rust") for n in names
    ]
    results = list(batched.map(programs))
    assert batched.compiles == before + 1
    assert [r.outcomes[1].status for r in results] == [
        "pass", "wrong_answer", "wrong_answer", "pass", "runtime_error", "pass",
    ]  # fmt: skip


def test_a_failed_batch_that_names_no_member_builds_every_member_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A compiler that stopped without naming a member (a limit, a crash): nobody's verdict
    comes from the batch; each member is built alone and gets its own build's verdict."""
    need("rust")
    rust_class = type(get_language("rust"))
    monkeypatch.setattr(rust_class, "batch_culprits", lambda self, log, n: set())
    names = ["right", "type_error", "wrong"]
    pool = ForeignPool(workers=1, limits=LIMITS, cache_dir=tmp_path)
    builds: list[list[str]] = []
    build = pool._build

    def recording_build(language, files, *args, **kwargs):  # type: ignore[no-untyped-def]
        builds.append(sorted(files))
        return build(language, files, *args, **kwargs)

    monkeypatch.setattr(pool, "_build", recording_build)
    try:
        got = [[o.status for o in r.outcomes] for r in pool.map([_program(n) for n in names])]
    finally:
        pool.close()
    assert got == [["pass"] * 3, ["compile_error"] * 3, ["wrong_answer", "wrong_answer", "pass"]]
    # the failed batch, then each of the three alone
    assert builds == [["main.rs", "p0.rs", "p1.rs", "p2.rs"]] + [["main.rs"]] * 3
