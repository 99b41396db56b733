"""Export -> load round trips, AutoModel loading, scoring API and checkpoint errors."""

from __future__ import annotations

import json
import shutil

import pytest
import torch
from transformers import AutoConfig, AutoModel

import unice
from unice.errors import CheckpointError, ScoringInputError
from unice.modeling import UniCEModel
from unice.testing import build_tiny_model

GENERATED = ["def f(x):\n    return x + 1", "def f(x):\n    return x - 1", "x = ("]
REFERENCES = ["def f(x):\n    return x + 1", None, "def f(x):\n    return x + 1"]
NLS = ["Add one to x.", "Add one to x.", ""]
KEYS = {
    "codescore",
    "exec_prob",
    "codescore_ref",
    "exec_prob_ref",
    "codescore_nl",
    "exec_prob_nl",
    "codescore_ref_nl",
    "exec_prob_ref_nl",
}


def _score(model):
    return model.score(generated=GENERATED, references=REFERENCES, nls=NLS, batch_size=2)


def test_checkpoint_folder_is_self_contained(tiny_checkpoint):
    names = {p.name for p in tiny_checkpoint.iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "README.md"} <= names
    config = json.loads((tiny_checkpoint / "config.json").read_text())
    assert config["model_type"] == "unice"
    assert config["encoder"]["model_type"] == "roberta" and config["encoder"]["hidden_size"] == 64


def test_score_rows_follow_the_contract(tiny_checkpoint):
    rows = _score(unice.load_model(tiny_checkpoint, device="cpu"))
    assert [set(row) for row in rows] == [KEYS] * 3
    first, second, third = rows
    assert all(first[k] is not None for k in KEYS)
    assert second["codescore_ref"] is None and second["codescore_ref_nl"] is None
    assert second["codescore"] == second["codescore_nl"]
    assert third["codescore_nl"] is None and third["codescore"] == third["codescore_ref"]
    mean = (first["codescore_ref"] + first["codescore_nl"] + first["codescore_ref_nl"]) / 3
    assert first["codescore"] == pytest.approx(mean, abs=1e-6)


def test_identical_inputs_get_identical_scores_whatever_the_batch():
    model = build_tiny_model(seed=7).eval()
    with torch.no_grad():  # make the head non-trivial so scores differ between samples
        for param in model.head.parameters():
            param.mul_(50.0)
    long_one = "    " + " + ".join(f"x{i}" for i in range(60))
    generated = ["    return x", long_one, "    return x", "    return y"]
    rows = model.score(generated=generated, nls=["def f(x):"] * 4, batch_size=2)
    assert rows[0] == rows[2]  # a tie is an exact tie, not float noise from padding
    assert rows[0]["codescore"] != rows[3]["codescore"]


def test_save_load_round_trip_gives_identical_scores(tmp_path):
    model = build_tiny_model(seed=7).eval()
    with torch.no_grad():  # make the head non-trivial so scores differ between samples
        for param in model.head.parameters():
            param.mul_(50.0)
    before = _score(model)
    from unice.training.export import export_checkpoint

    folder = export_checkpoint(model, model.tokenizer, tmp_path / "ckpt")
    after = _score(unice.load_model(folder, device="cpu"))
    assert after == before
    assert len({round(row["codescore"], 6) for row in before}) == 3
    auto = AutoModel.from_pretrained(folder)
    assert isinstance(auto, UniCEModel) and type(auto).__name__ == "CrossEncoderModel"
    assert _score(auto.eval()) == before
    assert AutoConfig.from_pretrained(folder).model_type == "unice"


def test_batch_size_does_not_change_scores(tiny_checkpoint):
    model = unice.load_model(tiny_checkpoint, device="cpu")
    one = model.score(generated=GENERATED, references=REFERENCES, nls=NLS, batch_size=1)
    three = model.score(generated=GENERATED, references=REFERENCES, nls=NLS, batch_size=3)
    for a, b in zip(one, three, strict=True):
        assert a["codescore"] == pytest.approx(b["codescore"], abs=1e-5)


def test_score_rejects_bad_arguments(tiny_checkpoint):
    model = unice.load_model(tiny_checkpoint, device="cpu")
    with pytest.raises(ScoringInputError, match="references has 1 items but generated has 3"):
        model.score(generated=GENERATED, references=["x"])
    with pytest.raises(ScoringInputError, match="neither|no usable format"):
        model.score(generated=["x = 1"])
    with pytest.raises(ScoringInputError, match="list of strings"):
        model.score(generated="x = 1", nls=["n"])
    with pytest.raises(TypeError):
        model.score(GENERATED)  # keyword-only


def test_missing_and_incomplete_checkpoints_fail_clearly(tmp_path, tiny_checkpoint):
    with pytest.raises(CheckpointError, match="no such checkpoint folder"):
        unice.load_model(tmp_path / "nope")
    broken = tmp_path / "broken"
    shutil.copytree(tiny_checkpoint, broken)
    (broken / "model.safetensors").unlink()
    with pytest.raises(CheckpointError, match="model.safetensors is missing"):
        unice.load_model(broken)
    (broken / "config.json").write_text(json.dumps({"model_type": "bert"}))
    with pytest.raises(CheckpointError, match="not a UniCE checkpoint"):
        unice.load_model(broken)
