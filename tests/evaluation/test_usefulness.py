"""CoNaLa usefulness (issue 44): the builder, the example-level figure against human grades,
evaluate.py label=usefulness end to end, the arm rule and the fold models' scores file.

Every fixture is written here (three or four intents in the study's file shape); nothing reads
../shared.
"""

from __future__ import annotations

import io
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from hydra import compose, initialize_config_dir
from rich.console import Console
from scipy import stats

from data_builders.__main__ import main as builders_main
from data_builders.dataset.conala import GENERATORS, fold_of_tasks
from unice.evaluation import EvaluationError, evaluate
from unice.evaluation.cli import normalize_overrides
from unice.metrics import example_level_correlations
from unice.usefulness.folds import split_rows
from unice.usefulness.selection import arm_metric, choose_arm
from unice.usefulness.study import agreement

REPO = Path(__file__).resolve().parents[2]

INTENTS = [
    # intent, references, five outputs (GENERATORS' order), five grades
    (
        "sort list `x` in reverse order",
        ["x.sort(reverse=True)", "sorted(x, reverse=True)"],
        [
            "x.sort()",
            "x.reverse()",
            "sorted(x, reverse=True)",
            "x = x[::-1]",
            "x.sort(reverse=True)",
        ],
        [0, 1, 4, 2, 4],
    ),
    (
        "convert string `s` to an integer",
        ["int(s)"],
        ["float(s)", "str(s)", "int(s, 10)", "", "int(s)"],
        [1, 0, 3, 0, 4],
    ),
    (  # five equal grades: no within-intent order
        "get the length of list `a`",
        ["len(a)"],
        ["len(a)", "a.len()", "len(a) + 0", "size(a)", "a.__len__()"],
        [2, 2, 2, 2, 2],
    ),
    (
        "join the words of list `w` with spaces",
        ["' '.join(w)"],
        ["''.join(w)", "' '.join(w)", "w.join(' ')", "print(w)", "' '.join(map(str, w))"],
        [2, 4, 1, 0, 3],
    ),
]


def write_study(folder: Path) -> Path:
    """The study's conala-all-grades.json and conala-human-grades.json for INTENTS."""
    folder.mkdir(parents=True, exist_ok=True)
    items, human = [], []
    for intent, refs, outputs, grades in INTENTS:
        item = {"intent": intent, "snippet": refs}
        graders = {"intent": intent, "snippet": refs}
        for model, output, grade in zip(GENERATORS, outputs, grades, strict=True):
            item[model] = graders[model] = output
            item[f"grade-{model}"] = grade
            item[f"chrf-{model}"] = 0.5
            graders[f"grade-{model}"] = {"grader1": grade, "grader2": grade}
        items.append(item)
        human.append(graders)
    (folder / "conala-all-grades.json").write_text(json.dumps(items))
    (folder / "conala-human-grades.json").write_text(json.dumps(human))
    return folder


@pytest.fixture(scope="module")
def conala(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("conala")
    source = write_study(root / "source")
    out = root / "data"
    assert builders_main(["build", "conala", "--source", str(source), "--out", str(out)]) == 0
    return out


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_builder_writes_one_row_per_graded_snippet_with_fixed_folds(conala: Path, tmp_path):
    rows = read_rows(conala / "test.jsonl")
    assert len(rows) == 5 * len(INTENTS)
    first = rows[0]
    assert first["id"] == "CoNaLa/0::baseline" and first["task_id"] == "CoNaLa/0"
    assert [r["generator"] for r in rows[:5]] == list(GENERATORS)
    assert first["nl"] == INTENTS[0][0]
    assert first["reference"] == "x.sort(reverse=True)"
    assert first["references"] == INTENTS[0][1]
    assert [r["usefulness"] for r in rows[:5]] == INTENTS[0][3]
    assert rows[2]["generated"] == "sorted(x, reverse=True)"
    assert first["n_graders"] == 2 and first["study_chrf"] == 0.5
    # folds: the hashed rule, one fold per intent, identical on a rebuild
    folds = fold_of_tasks([f"CoNaLa/{i}" for i in range(len(INTENTS))])
    assert all(r["fold"] == folds[r["task_id"]] for r in rows)
    assert len({r["fold"] for r in rows}) == len(INTENTS)  # 4 intents dealt to 4 of 5 folds
    again = tmp_path / "again"
    builders_main(
        ["build", "conala", "--source", str(conala.parent / "source"), "--out", str(again)]
    )
    assert (again / "test.jsonl").read_bytes() == (conala / "test.jsonl").read_bytes()
    stats_json = json.loads((conala / "stats.json").read_text())
    assert stats_json["rows"] == 20 and stats_json["constant_grade_tasks"] == 1
    assert stats_json["multi_reference_tasks"] == 1 and stats_json["empty_outputs"] == 1
    card = (conala / "README.md").read_text()
    assert "# CoNaLa usefulness" in card and "`usefulness`" in card and "folds" in card


def test_builder_errors_name_the_fix(tmp_path: Path, capsys):
    assert (
        builders_main(["build", "conala", "--source", str(tmp_path), "--out", str(tmp_path / "o")])
        == 2
    )
    assert "conala-all-grades.json" in capsys.readouterr().err
    assert builders_main(["build", "conala", "--out", str(tmp_path / "o")]) == 2
    assert "needs --source" in capsys.readouterr().err


def test_example_level_is_mean_per_intent_tau_b_skipping_constant_intents():
    grades = np.array(sum((g for *_, g in INTENTS), []), dtype=float)
    scores = np.array([0.1, 0.3, 0.9, 0.5, 0.8, 0.2, 0.1, 0.7, 0.0, 0.9,
                       0.5, 0.1, 0.4, 0.2, 0.3, 0.3, 0.9, 0.2, 0.0, 0.7])  # fmt: skip
    groups = [f"CoNaLa/{i // 5}" for i in range(20)]
    result = example_level_correlations(scores, grades, groups)
    expected = [
        stats.kendalltau(scores[i * 5 : i * 5 + 5], grades[i * 5 : i * 5 + 5]).statistic
        for i in (0, 1, 3)
    ]
    assert result.skipped["kendall"] == pytest.approx(np.mean(expected))
    assert result.n_problems == 4 and result.n_undefined == 1
    assert result.reasons == {"constant_label": 1}
    # the arm metric counts the flat-scored intent as 0 instead of skipping it
    flat = scores.copy()
    flat[15:20] = 0.5
    assert arm_metric(flat, grades, groups) == pytest.approx(np.mean(expected[:2] + [0.0]))


def test_choose_arm_keeps_the_incumbent_unless_beaten_by_more_than_the_margin():
    winner, verdicts = choose_arm({"A": 0.40, "B": 0.405, "C": 0.42}, "A", 0.01)
    assert winner == "C" and verdicts["B"]["verdict"] == "rejected"
    assert verdicts["C"]["verdict"] == "chosen"
    winner, _ = choose_arm({"A": 0.40, "B": 0.409}, "A", 0.01)
    assert winner == "A"


def test_fold_rows_train_on_three_folds_dev_on_the_next_test_on_its_own(conala: Path):
    rows = read_rows(conala / "test.jsonl")
    fold = rows[0]["fold"]
    splits = split_rows(rows, fold, 5)
    assert {r["fold"] for r in splits["test"]} == {fold}
    assert {r["fold"] for r in splits["dev"]} <= {(fold + 1) % 5}
    assert not {r["task_id"] for r in splits["train"]} & {r["task_id"] for r in splits["test"]}
    assert sum(len(s) for s in splits.values()) == len(rows)
    assert splits["test"][2]["pass_ratio"] == pytest.approx(4 / 4)
    assert splits["test"][0]["pass_ratio"] == 0.0 and splits["test"][0]["executable"] is True


def test_agreement_counts_three_decimal_rounding_as_equal():
    result = agreement([0.4567, 0.2, float("nan")], [0.457, 0.25, 0.1])
    assert result["n"] == 2 and result["equal"] == 0.5
    assert result["max_abs"] == pytest.approx(0.05)


def compose_cfg(overrides: list[str]):
    with initialize_config_dir(config_dir=str(REPO / "configs"), version_base="1.3"):
        return compose("evaluate", overrides=normalize_overrides(overrides))


def test_evaluate_label_usefulness_end_to_end(conala: Path, tmp_path: Path):
    cfg = compose_cfg(
        [
            f"data={conala}",
            "label=usefulness",
            "baselines=fast",
            "baselines.meteor.enabled=false",
            "baselines.crystalbleu.enabled=false",
            "bootstrap.n_resamples=30",
            "progress=false",
            f"output_dir={tmp_path / 'eval'}",
        ]
    )
    report = evaluate(cfg, console=Console(file=io.StringIO(), width=200))
    metrics = {m["name"]: m for m in report["metrics"]}
    assert {"BLEU", "chrF", "ROUGE-L", "CodeBLEU"} <= set(metrics)
    chrf = metrics["chrF"]
    assert chrf["example"]["n_problems"] == 4 and chrf["example"]["n_undefined"] == 1
    assert chrf["mae"] is None and chrf["auroc_passed"] is None and chrf["exec"] is None
    assert math.isfinite(chrf["corpus"]["kendall"])
    scores = read_rows(tmp_path / "eval" / "scores.jsonl")
    # all references: the output equal to intent 0's SECOND reference scores BLEU 1
    assert scores[2]["id"] == "CoNaLa/0::best-tranx" and scores[2]["BLEU"] == pytest.approx(1.0)
    assert report["data"]["avg_usefulness"] == pytest.approx(
        np.mean(sum((g for *_, g in INTENTS), []))
    )
    assert report["system_level"]["target"] == "mean usefulness"
    markdown = (tmp_path / "eval" / "report.md").read_text()
    assert "average usefulness" in markdown and "mean usefulness" in markdown


def test_evaluate_label_usefulness_refuses_rows_without_a_grade(tmp_path: Path):
    (tmp_path / "test.jsonl").write_text(
        json.dumps({"id": "a", "task_id": "t", "generated": "x", "reference": "x"}) + "\n"
    )
    cfg = compose_cfg([f"data={tmp_path}", "label=usefulness", "baselines=none", "progress=false"])
    with pytest.raises(EvaluationError, match="no 'usefulness' grade"):
        evaluate(cfg, console=Console(file=io.StringIO()))


def test_fold_models_scores_file(conala: Path, tmp_path: Path, tiny_checkpoint: Path):
    """`scripts/usefulness.py score`: one line per snippet, scored by its test fold's model."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "usefulness_script", REPO / "scripts/usefulness.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    out = tmp_path / "out"
    args = type("Args", (), {"data": conala, "out": out})()
    script.stage_folds(args)
    for k in range(5):
        shutil.copytree(tiny_checkpoint, out / "folds" / str(k) / "A" / "run" / "best")
    (out / "arms.json").write_text(json.dumps({"chosen": "A"}))
    script.stage_score(args)
    lines = read_rows(out / "scores.jsonl")
    rows = read_rows(conala / "test.jsonl")
    assert [line["id"] for line in lines] == [r["id"] for r in rows]
    for line, row in zip(lines, rows, strict=True):
        assert line["task_id"] == row["task_id"] and line["generator"] == row["generator"]
        assert line["fold"] == row["fold"] and line["arm"] == "A"
        assert 0.0 <= line["codescore"] <= 1.0


def _script():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "usefulness_script", REPO / "scripts/usefulness.py"
    )
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


@pytest.mark.parametrize(("levers", "block", "record"), [
    ("2", "stage_two", "levers2.json"), ("3", "stage_three", "levers3.json")])  # fmt: skip
def test_a_later_stage_judges_its_arms_against_c_and_keeps_arms_json(
    tmp_path: Path, monkeypatch, levers: str, block: str, record: str
):
    """`LEVERS=2|3 scripts/usefulness.py choose`: a later stage's arms (each on top of C)
    against C's stage-one runs by the same margin, into its own record; arms.json (the adopted
    arm) untouched."""
    script = _script()
    monkeypatch.setenv("LEVERS", levers)
    monkeypatch.setenv("USEFULNESS_FINETUNE", "1")  # stage three's CE, as after its cost gate
    proto = script.protocol()
    two = proto[block]
    runs = script.arms_to_run(proto)
    assert set(runs) == {two["incumbent"], *two["arms"]}
    assert all(isinstance(overrides, list) for overrides in runs.values())
    keys = {o.split("=")[0] for o in proto["arms"][two["incumbent"]]}
    for arm, overrides in two["arms"].items():  # every later-stage arm sets what C sets
        assert keys <= {o.split("=")[0] for o in overrides}, arm  # (CB: another prior)
    out = tmp_path / "out"
    means = {two["incumbent"]: 0.50, **{arm: 0.505 for arm in two["arms"]}}
    winner_arm = sorted(two["arms"])[0]
    means[winner_arm] = 0.52  # beats C by more than .01; the others do not
    for arm, mean in means.items():
        for k in range(proto["outer_folds"]):
            path = out / "folds" / str(k) / arm / "inner_dev.json"
            path.parent.mkdir(parents=True)
            path.write_text(json.dumps({"metric": mean, "train_seconds": 1.0}))
    (out / "arms.json").write_text('{"chosen": "C"}')
    script.stage_choose(type("Args", (), {"out": out})())
    result = json.loads((out / record).read_text())
    assert result["chosen"] == winner_arm
    assert result["arms"][two["incumbent"]]["verdict"] == "incumbent"
    assert all(
        result["arms"][arm]["verdict"] == "rejected" for arm in two["arms"] if arm != winner_arm
    )
    assert json.loads((out / "arms.json").read_text()) == {"chosen": "C"}


def test_stage_three_gates_its_fine_tuned_arm_and_reads_codebertscore(monkeypatch):
    """Without USEFULNESS_FINETUNE=1 stage three's CE does not run (its cost gate decides that
    by hand); CBF and CB turn the CodeBERTScore inputs on, which the script prefills once."""
    script = _script()
    monkeypatch.setenv("LEVERS", "3")
    monkeypatch.delenv("USEFULNESS_FINETUNE", raising=False)
    runs = script.arms_to_run(script.protocol())
    assert isinstance(runs["CE"], str) and "USEFULNESS_FINETUNE=1" in runs["CE"]
    for arm in ("CBF", "CB"):
        assert script.CODEBERTSCORE_SWITCH in runs[arm]
    assert "model.exact_prior=codebertscore_f3" in runs["CB"]
