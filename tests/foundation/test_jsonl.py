"""JSONL reading and writing: file:line errors, gzip both ways, atomic writes."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from data_builders.errors import UserError
from data_builders.jsonl import atomic_writer, read_jsonl, write_jsonl


def test_gz_output_is_really_gzip_and_reads_back(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl.gz"
    assert write_jsonl(target, [{"a": 1}, {"b": "é"}]) == 2
    with gzip.open(target, "rt", encoding="utf-8") as handle:
        assert handle.read() == '{"a": 1}\n{"b": "é"}\n'
    assert read_jsonl(target) == [{"a": 1}, {"b": "é"}]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl.gz"]


def test_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    write_jsonl(target, [{"old": True}])
    with pytest.raises(RuntimeError), atomic_writer(target) as handle:
        handle.write('{"half": ')
        raise RuntimeError("killed mid-write")
    assert read_jsonl(target) == [{"old": True}]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"task_id": 1}\n{not json}\n', ":2: malformed JSON"),
        ('{"task_id": 1}\n[1, 2]\n', ":2: expected a JSON object"),
        ('{"task_id": 1}\n\n{"other": 2}\n', ":3: sample lacks field(s) 'task_id'"),
    ],
)
def test_bad_lines_name_file_and_line(tmp_path: Path, content: str, message: str) -> None:
    source = tmp_path / "samples.jsonl"
    source.write_text(content)
    with pytest.raises(UserError, match=re.escape(message)) as info:
        read_jsonl(source, required=("task_id",), what="sample")
    assert str(source) in str(info.value) and "\n" not in str(info.value)


def test_missing_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        read_jsonl(tmp_path / "absent.jsonl")
