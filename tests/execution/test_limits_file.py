"""The one limits file (``configs/build/limits.yaml``): a section per language, read by
:func:`data_builders.execution.limits.load_limits`; a malformed file is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from data_builders.execution.calibrate import load_policy
from data_builders.execution.limits import (
    DEFAULT_CONFIG,
    ForeignLimits,
    LimitConfigError,
    LimitPolicy,
    load_limits,
)

# The values of configs/build/limits.yaml and languages.yaml before they became one file:
# rows, manifests and --check answers depend on them, so merging the files changed none.
PYTHON = LimitPolicy(
    factor=20.0, floor=0.1, cap=3.0, load=3.0, after_timeout=0.01, reference_runs=1,
    reference_limit=3.0,
)  # fmt: skip
COMPILED = {
    "timeout": 3.0, "load": 10.0, "memory_mb": 1024, "runtime_overhead_mb": 512,
    "max_output_bytes": 8388608, "tmp_size_mb": 64, "compile_timeout": 60.0,
    "compile_memory_mb": 2048, "compile_output_bytes": 268435456, "max_wall_factor": 5.0,
    "after_timeout": 0.5, "extended_reference_limit": 0.5, "calibrated_floor": 0.5,
    "calibrated_floors": {"js": 0.2}, "canonical_runs": 2,
}  # fmt: skip


def test_the_shipped_file_holds_every_language_with_the_values_of_the_two_files_before() -> None:
    limits = load_limits()
    assert limits.python == PYTHON == load_policy()
    assert limits.compiled.as_settings() == COMPILED
    assert list(limits.compiled.as_settings()) == list(COMPILED)  # the manifests' key order
    assert ForeignLimits.from_yaml() == limits.compiled
    assert ForeignLimits.from_yaml(timeout=None, load=4.0).load == 4.0  # overrides on top
    assert load_limits(DEFAULT_CONFIG) == load_limits(None) == limits


def test_a_language_section_sets_that_languages_floor(tmp_path: Path) -> None:
    path = tmp_path / "limits.yaml"
    path.write_text(
        "python: {}\ncompiled:\n  calibrated_floor: 0.4\ncpp:\njava:\n  calibrated_floor: 0.3\n"
    )
    compiled = load_limits(path).compiled
    assert compiled.calibrated_floors == {"java": 0.3}
    assert compiled.floor_for("java") == 0.3 and compiled.floor_for("cpp") == 0.4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # the two files' old shape: keys at the top
        ("factor: 20.0\ntimeout: 3.0\n", "unknown section(s) ['factor', 'timeout']"),
        ("python: {}\n", "no 'compiled' section"),
        ("compiled: {}\n", "no 'python' section"),
        ("python: {}\ncompiled: [1]\n", "'compiled' must be a mapping"),
        ("python: {}\ncompiled: {}\nperl: {}\n", "unknown section(s) ['perl']"),
        ("python: {}\ncompiled: {}\njs:\n  timeout: 1.0\n", "js: unknown key(s) ['timeout']"),
        ("python: {}\ncompiled: {}\njs:\n  calibrated_floor: 0\n", "js: calibrated_floor must be"),
        ("python: {}\ncompiled:\n  memory_mb: lots\n", "compiled: memory_mb must be a positive"),
        ("python: {}\ncompiled:\n  canonical_runs: 1.5\n", "canonical_runs must be a whole"),
        ("python:\n  floor: -1\ncompiled: {}\n", "python: floor must be a positive number"),
    ],
)
def test_a_malformed_file_is_one_line_naming_the_file_and_the_place(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    with pytest.raises(LimitConfigError) as caught:
        load_limits(path)
    error = str(caught.value)
    assert error.startswith(f"{path}: ") and message in error and "\n" not in error


def test_the_old_shape_is_told_where_its_keys_go(tmp_path: Path) -> None:
    path = tmp_path / "limits.yaml"
    path.write_text("factor: 20.0\n")
    with pytest.raises(LimitConfigError, match="Python's keys go under python:"):
        load_limits(path)


def test_after_timeout_may_be_null(tmp_path: Path) -> None:
    path = tmp_path / "limits.yaml"
    path.write_text("python: {}\ncompiled:\n  after_timeout: null\n")
    assert load_limits(path).compiled.after_timeout is None
