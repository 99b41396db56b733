"""MultiPL-E rows: stop-token cutting, program assembly, sample matching, label-only, bad input."""

from __future__ import annotations

import gzip
import json

import pytest

from data_builders.dataset.label_only import refuse_label_only
from data_builders.errors import UserError
from data_builders.problems.multipl_e import (
    LABEL_ONLY_REASON,
    load_multipl_e,
    load_multipl_e_file,
    match_samples,
    problem_from_row,
    stop_at_stop_token,
)

ROW = {
    "name": "HumanEval_53_add",
    "language": "js",
    "prompt": "//Add two numbers x and y\nfunction add(x, y){\n",
    "tests": "const assert = require('node:assert');\n\nfunction test() {\n  let candidate = add;\n  assert.deepEqual(candidate(0, 1),1);\n}\n\ntest();",
    "stop_tokens": ["\nfunction ", "\n/*", "\n//", "\nconsole.log"],
}


@pytest.mark.parametrize(
    ("completion", "tokens", "expected"),
    [
        (
            "  return x + y;\n}\n\nfunction extra(){}",
            ["\nfunction ", "\n//"],
            "  return x + y;\n}\n",
        ),
        # the earliest occurrence wins, not the first token in the list
        ("a\n//c\nfunction b", ["\nfunction ", "\n//"], "a"),
        ("a\nfunction b\n//c", ["\n//", "\nfunction "], "a"),
        ("  return x + y;\n}", ["\nfunction ", "\n//"], "  return x + y;\n}"),  # none present
        ("\n//only a comment", ["\n//"], ""),  # at position 0
        ("", ["\n//"], ""),
        ("x\n/*y\n//z", ["\n//", "\n/*", "\n/*y"], "x"),  # several tokens at one position
        ("keep all", [], "keep all"),
    ],
)
def test_stop_token_cutting(completion, tokens, expected):
    assert stop_at_stop_token(completion, tokens) == expected


def test_program_is_prompt_cut_completion_newline_tests():
    problem = problem_from_row(ROW, "row")
    completion = "  return x + y;\n}\n\n// a trailing comment\nfunction more(){}\n"
    assert (
        problem.program(completion) == ROW["prompt"] + "  return x + y;\n}\n" + "\n" + ROW["tests"]
    )
    # the prompt holds the stop token "\nfunction " and is kept whole: only the completion is cut
    assert problem.language == "js" and problem.stop_tokens == ROW["stop_tokens"]


def test_rows_are_label_only():
    problem = problem_from_row(ROW, "row")
    assert problem.metadata["label_only"] is True
    assert problem.metadata["label_only_reason"] == LABEL_ONLY_REASON
    refuse_label_only([problem], (0.0, 0.0, 1.0))  # a test-only build is allowed
    with pytest.raises(UserError, match=r"HumanEval_53_add is label-only .*--split-ratios 0,0,1"):
        refuse_label_only([problem], (0.8, 0.1, 0.1))
    with pytest.raises(UserError, match="label-only"):
        refuse_label_only([problem], (0.0, 0.5, 0.5))


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_files_in_three_formats_and_language_filter(tmp_path):
    other = {**ROW, "name": "HumanEval_0_x", "language": "cpp"}
    plain = _write_jsonl(tmp_path / "p.jsonl", [ROW, other])
    zipped = tmp_path / "p.jsonl.gz"
    zipped.write_bytes(gzip.compress(plain.read_bytes()))
    single = tmp_path / "p.json"
    single.write_text(json.dumps({**ROW, "completions": ["x"]}))  # a per-problem result file
    assert [p.task_id for p in load_multipl_e_file(plain)] == ["HumanEval_53_add", "HumanEval_0_x"]
    assert [p.task_id for p in load_multipl_e_file(zipped, "cpp")] == ["HumanEval_0_x"]
    assert [p.task_id for p in load_multipl_e(str(single), "js")] == ["HumanEval_53_add"]
    with pytest.raises(UserError, match="no MultiPL-E problems in language 'java'"):
        load_multipl_e_file(plain, "java")


def test_samples_match_by_task_id_equal_to_name(tmp_path):
    problems = load_multipl_e_file(_write_jsonl(tmp_path / "p.jsonl", [ROW]))
    samples = _write_jsonl(
        tmp_path / "s.jsonl",
        [
            {"task_id": "HumanEval_53_add", "completion": "  return x + y;\n}\n//x"},
            {"task_id": "HumanEval_53_add", "completion": "  return x - y;\n}"},
        ],
    )
    matched = match_samples(problems, samples)
    assert [(name, index) for name, index, _ in matched] == [
        ("HumanEval_53_add", 0),
        ("HumanEval_53_add", 1),
    ]
    assert matched[0][2] == ROW["prompt"] + "  return x + y;\n}" + "\n" + ROW["tests"]
    unknown = _write_jsonl(tmp_path / "u.jsonl", [{"task_id": "HumanEval_1_y", "completion": ""}])
    with pytest.raises(
        UserError, match=r"u.jsonl:1: task_id 'HumanEval_1_y' is no MultiPL-E problem"
    ):
        match_samples(problems, unknown)


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ({k: v for k, v in ROW.items() if k != "tests"}, "missing tests"),
        ({**ROW, "stop_tokens": "\n//"}, "'stop_tokens' must be a list of non-empty strings"),
        ({**ROW, "stop_tokens": [""]}, "'stop_tokens' must be a list of non-empty strings"),
        ({**ROW, "prompt": None}, "field 'prompt' must be a string"),
        ({**ROW, "name": " "}, "empty 'name'"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_malformed_rows_are_one_line_errors(tmp_path, row, message):
    path = _write_jsonl(tmp_path / "bad.jsonl", [row])
    with pytest.raises(UserError) as info:
        load_multipl_e_file(path)
    assert message in str(info.value) and "bad.jsonl" in str(info.value)
    assert "\n" not in str(info.value)


def test_bad_files_are_one_line_errors(tmp_path):
    with pytest.raises(UserError, match="no such file"):
        load_multipl_e_file(tmp_path / "missing.jsonl")
    (tmp_path / "x.csv").write_text("a,b\n")
    with pytest.raises(UserError, match="expected a MultiPL-E .jsonl, .jsonl.gz or .json"):
        load_multipl_e_file(tmp_path / "x.csv")
    (tmp_path / "x.jsonl").write_text("{not json\n")
    with pytest.raises(UserError, match="x.jsonl:1: malformed JSON"):
        load_multipl_e_file(tmp_path / "x.jsonl")
    dup = _write_jsonl(tmp_path / "d.jsonl", [ROW, ROW])
    with pytest.raises(UserError, match="d.jsonl:2: duplicate name"):
        load_multipl_e_file(dup)


def test_offline_hub_fails_in_one_line_naming_the_local_file(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(UserError) as info:
        load_multipl_e(None, "cpp")
    text = str(info.value)
    assert "nuprl/MultiPL-E" in text and "--problems-file" in text and "\n" not in text


def test_build_refuses_label_only_problems_before_running_anything(tmp_path, monkeypatch):
    from data_builders.dataset import pipeline
    from data_builders.dataset.config import load_config

    monkeypatch.setattr(pipeline, "load_problems", lambda *_: [problem_from_row(ROW, "row")])
    request = pipeline.BuildRequest("humaneval", tmp_path / "out", load_config("humaneval"))
    with pytest.raises(UserError, match="HumanEval_53_add is label-only"):
        pipeline.run_build(request)
    assert not (tmp_path / "out").exists()
