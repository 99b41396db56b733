"""The fine-tuned setting's inputs (issue 43 item 5): problems 82-163 of a built split
(scripts/task_subset.py), the zero-shot model's scores of them (scripts/zero_shot_scores.py), and
training folders added to any data config (``data.extra_dirs``)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest
from omegaconf import OmegaConf

from unice.testing import load_script

from .conftest import write_rows


@pytest.fixture(scope="module")
def subset() -> ModuleType:
    return load_script("task_subset")


@pytest.fixture(scope="module")
def carry() -> ModuleType:
    return load_script("zero_shot_scores")


def _split(folder: Path) -> list[dict]:
    rows = [
        {"id": f"HumanEval/{t}::samples::{k}", "task_id": f"HumanEval/{t}", "generated": "x",
         "pass_ratio": 1.0, "executable": True, "passed": True, "source": "samples:s.jsonl"}
        for t in (0, 81, 82, 100, 163) for k in range(2)
    ]  # fmt: skip
    write_rows(folder / "test.jsonl", rows)
    return rows


def test_subset_keeps_the_range_rows_unchanged(subset: ModuleType, tmp_path: Path) -> None:
    rows = _split(tmp_path / "he")
    out = tmp_path / "he-82-163"
    assert (
        subset.main(["--data", str(tmp_path / "he"), "--tasks", "82-163", "--out", str(out)]) == 0
    )
    kept = [json.loads(line) for line in (out / "test.jsonl").read_text().splitlines()]
    assert kept == [r for r in rows if int(r["task_id"].split("/")[1]) >= 82]
    info = json.loads((out / "subset.json").read_text())
    assert info["tasks"] == [82, 163] and info["rows"] == 6 and info["problems"] == 3


@pytest.mark.parametrize(
    ("tasks", "message"),
    [("163-82", "give FIRST-LAST"), ("82", "give FIRST-LAST"), ("200-300", "no row of tasks")],
)
def test_subset_refuses_a_bad_range(
    subset: ModuleType, tmp_path: Path, capsys, tasks: str, message: str
) -> None:
    _split(tmp_path / "he")
    argv = ["--data", str(tmp_path / "he"), "--tasks", tasks, "--out", str(tmp_path / "o")]
    assert subset.main(argv) == 2
    assert message in capsys.readouterr().err


def _evaluation(folder: Path, rows: list[dict]) -> None:
    folder.mkdir(parents=True)
    metrics = [
        {"name": "CodeScore (Ref&NL)", "kind": "codescore"},
        {"name": "BLEU", "kind": "baseline"},
    ]
    (folder / "report.json").write_text(json.dumps({"metrics": metrics}))
    lines = [{"id": r["id"], "CodeScore (Ref&NL)": i / 10, "BLEU": 0.5} for i, r in enumerate(rows)]
    lines[-1]["CodeScore (Ref&NL)"] = None  # unscored stays unscored
    write_rows(folder / "scores.jsonl", lines)


def test_zero_shot_scores_carry_codescore_columns_of_the_subset(
    subset: ModuleType, carry: ModuleType, tmp_path: Path
) -> None:
    rows = _split(tmp_path / "he")
    _evaluation(tmp_path / "eval", rows)
    subset.main(["--data", str(tmp_path / "he"), "--tasks", "82-163", "--out", str(tmp_path / "s")])
    out = tmp_path / "zs.jsonl"
    argv = ["--evaluation", str(tmp_path / "eval"), "--rows", str(tmp_path / "s" / "test.jsonl")]
    assert carry.main([*argv, "--out", str(out)]) == 0
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["id"] for line in lines] == [r["id"] for r in rows[4:]]
    assert [line["zero-shot CodeScore (Ref&NL)"] for line in lines] == [
        0.4,
        0.5,
        0.6,
        0.7,
        0.8,
        None,
    ]
    assert all(set(line) == {"id", "zero-shot CodeScore (Ref&NL)"} for line in lines)  # no BLEU


def test_zero_shot_scores_refuse_rows_the_evaluation_never_scored(
    carry: ModuleType, tmp_path: Path
) -> None:
    rows = _split(tmp_path / "he")
    _evaluation(tmp_path / "eval", rows[:4])
    with pytest.raises(carry.UserError, match="is not in .*scores.jsonl"):
        carry.carried_scores(tmp_path / "eval", tmp_path / "he" / "test.jsonl")
    with pytest.raises(carry.UserError, match="run the zero-shot evaluation first"):
        carry.carried_scores(tmp_path / "nothing", tmp_path / "he" / "test.jsonl")


def test_extra_dirs_join_any_data_config_for_training_and_dev() -> None:
    from unice.training.data_config import data_folders, dev_folders

    plain = OmegaConf.create({"dir": "data/a", "dirs": ["data/a"], "build_command": "make a",
                              "extra_dirs": ["data/he"], "extra_build_command": "make he"})  # fmt: skip
    dirs, weights, commands = data_folders(plain)
    assert dirs == ["data/a", "data/he"] and weights == {"a": 1.0, "he": 1.0}
    assert commands == ["make a", "make he"]
    assert dev_folders(plain, dirs, commands)[0] == ["data/a", "data/he"]
    chosen = OmegaConf.merge(plain, {"dirs": ["data/a", "data/b"], "weights": [1.0, 2.0],
                                     "dev_dirs": ["data/a"]})  # fmt: skip
    dirs, weights, commands = data_folders(chosen)
    assert weights == {"a": 1.0, "b": 2.0, "he": 1.0}
    assert dev_folders(chosen, dirs, commands)[0] == ["data/a", "data/he"]


@pytest.mark.parametrize("data", [[], ["data=zeroshot_cpu_apps"]])
def test_finetuned_experiment_is_zeroshot_plus_humaneval_train(data: list[str]) -> None:
    """+experiment=finetuned_cpu keeps zeroshot_cpu's configuration and the command line's data
    choice (the one `make quality` gives its zero-shot run), adding HumanEval 0-81."""
    from hydra import compose, initialize_config_dir

    configs = str(Path(__file__).resolve().parents[2] / "configs")
    with initialize_config_dir(config_dir=configs, version_base="1.3"):
        ft = compose("train", overrides=["+experiment=finetuned_cpu", *data])
        zs = compose("train", overrides=["+experiment=zeroshot_cpu", *data])
    assert ft.output_dir == "runs/finetuned_cpu"
    assert ft.data.dirs == zs.data.dirs and list(ft.data.extra_dirs) == ["data/he-eval-x-python"]
    for key in ("model", "trainer", "protocol"):
        assert OmegaConf.to_container(ft[key]) == OmegaConf.to_container(zs[key])
