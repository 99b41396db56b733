"""The ``language`` of a row travels from the dataset and the scorer's input to the exact
features: C++ is parsed as C++, a misspelt language is a one-line error, old rows are Python."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from data_builders.dataset.convention import INPUT_CONVENTION
from unice.data.dataset import read_split
from unice.data.encoding import InputEncoder
from unice.data.features import FEATURE_NAMES
from unice.data.languages import check_language, row_language
from unice.errors import DatasetFormatError, ScoringInputError
from unice.scoring import score
from unice.testing import build_tiny_model

CPP_NL = "#include<vector>\nusing namespace std;\nint add(int a, int b){\n"
CPP_BODY = "    return a + b;\n}\n"
PARSES = FEATURE_NAMES.index("parses")


def test_rows_say_their_language_or_imply_it():
    assert row_language({"language": "rust"}) == "rust"
    assert row_language({"task_id": "CPP/12"}) == "cpp"
    assert row_language({"task_id": "JavaScript/3"}) == "js"
    assert row_language({"task_id": "HumanEval/3"}) == "python"
    assert row_language({}) == check_language(None) == "python"
    with pytest.raises(DatasetFormatError) as info:
        row_language({"language": "C++"})
    assert "supported: python, cpp, java, js, go, rust" in str(info.value)


def test_the_dataset_reads_the_language_and_names_the_line_of_a_bad_one(tmp_path: Path):
    rows = [
        {"id": "a", "task_id": "CPP/0", "generated": CPP_BODY, "pass_ratio": 1.0,
         "executable": True},
        {"id": "b", "generated": "x", "pass_ratio": 0.0, "executable": False,
         "language": "go"},
    ]  # fmt: skip
    (tmp_path / "stats.json").write_text(json.dumps({"input_convention": INPUT_CONVENTION}))
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [s.language for s in read_split(tmp_path, "train")] == ["cpp", "go"]
    rows[1]["language"] = "golang"
    (tmp_path / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(DatasetFormatError, match=r"train.jsonl:2: unknown language 'golang'"):
        read_split(tmp_path, "train")


def test_the_exact_features_parse_each_row_in_its_language():
    model = build_tiny_model(seed=1, architecture="estimator", exact_features=True)
    encoder = InputEncoder.from_config(model.tokenizer, model.config)
    texts = ([CPP_BODY, CPP_BODY], [None, None], [CPP_NL, CPP_NL])
    encoded = encoder.encode_segments(*texts, ["nl"], ["python", "cpp"])
    as_python, as_cpp = encoded["exact_features"]
    assert as_python[PARSES] == 0.0 and as_cpp[PARSES] == 1.0
    rows = score(model, generated=texts[0], nls=texts[2], languages=["python", "cpp"])
    assert rows[0]["codescore"] != rows[1]["codescore"]  # the same text, read two ways


def test_the_scorer_refuses_an_unknown_language():
    model = build_tiny_model(seed=1, architecture="estimator", exact_features=True)
    with pytest.raises(ScoringInputError, match="sample 1: unknown language 'kotlin'"):
        score(model, generated=["a", "b"], nls=["n", "n"], languages=[None, "kotlin"])


def test_training_reads_each_row_in_its_language_and_decides_on_dev_dirs(
    tiny_backbone, tmp_path: Path
):
    from data_builders.jsonl import read_jsonl, write_jsonl
    from unice.errors import CheckpointError, DatasetMissingError
    from unice.testing import make_fixture_dataset
    from unice.training import train

    from .conftest import compose, tiny_overrides

    python = make_fixture_dataset(tmp_path / "python", n_train=16, n_dev=8, n_test=4)
    cpp = make_fixture_dataset(tmp_path / "cpp", n_train=16, n_dev=8, n_test=4)
    for split in ("train", "dev", "test"):  # the same rows, said to be C++
        rows = read_jsonl(cpp / f"{split}.jsonl")
        write_jsonl(cpp / f"{split}.jsonl", [{**r, "task_id": f"CPP/{r['task_id']}",
                                             "language": "cpp"} for r in rows])  # fmt: skip
    extra = {
        "data.dirs": f"[{python},{cpp}]",
        "+data.dev_dirs": f"[{cpp}]",
        "data.weights": "[1.0,1.0]",
        "trainer.max_steps": 2,
        "trainer.epochs": 1,
        "model.architecture": "estimator",
        "model.exact_features": "true",
    }
    metrics = train(compose(tiny_overrides(tiny_backbone, python, tmp_path / "run", **extra)))
    assert metrics["global_step"] == 2 and metrics["best/samples"] == 8  # C++ dev rows only
    # a dev folder it does not train on is read as it is (arm G's real rows beside its stubs) ...
    extra["data.dirs"] = f"[{python}]"
    extra["data.weights"] = "[1.0]"
    metrics = train(compose(tiny_overrides(tiny_backbone, python, tmp_path / "apart", **extra)))
    assert metrics["best/samples"] == 8
    # ... and its dev rows are part of the run: relabelled, the run is not resumed on them
    rows = read_jsonl(cpp / "dev.jsonl")
    write_jsonl(cpp / "dev.jsonl", [{**rows[0], "pass_ratio": 0.5}, *rows[1:]])
    with pytest.raises(CheckpointError, match=" data; resuming"):
        train(compose(tiny_overrides(tiny_backbone, python, tmp_path / "apart", **extra)))
    # ... and one that is not built stops, naming it
    extra["+data.dev_dirs"] = f"[{tmp_path / 'elsewhere'}]"
    with pytest.raises(DatasetMissingError, match="elsewhere/dev.jsonl not found"):
        train(compose(tiny_overrides(tiny_backbone, python, tmp_path / "bad", **extra)))


def test_a_rust_task_names_its_signature_in_the_nl():
    from data_builders.dataset.convention import code_without_prompt, task_text
    from data_builders.problems.humaneval_x import problem_from_record
    from unice.data.features import static_features

    record = {
        "task_id": "Rust/0",
        "prompt": "\n/*\n Add two numbers.\n*/\n",
        "declaration": "\nuse std::cmp::max;\nfn add(a: i32, b: i32) -> i32{\n",
        "canonical_solution": "    a + b\n}\n",
        "test": "#[cfg(test)]\nmod tests {}\n",
    }
    problem = problem_from_record(record, "x:1")
    nl = task_text(problem)
    assert nl == record["declaration"] + record["prompt"]  # the program's order
    body = code_without_prompt(problem.reference, problem)
    assert body == record["canonical_solution"]
    parses, entry, undefined, _, returns = static_features(body, nl, body, "rust")
    assert (parses, entry, undefined, returns) == (1.0, 1.0, 0.0, 1.0)
