"""``data.reference_free_generators`` (issue 27, arm H): rows of the named generators are read
without their reference, so they train the NL format only; a prefix no row has is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from data_builders.dataset.convention import INPUT_CONVENTION
from unice.data.dataset import read_split, read_splits
from unice.errors import TrainingConfigError
from unice.scoring import has_usable_format
from unice.training.loop import check_reference_free, reference_free_generators


def _folder(tmp_path: Path, with_generators: bool = True) -> Path:
    rows = [
        ("T/0::samples::0", "gpt-4", 1.0),
        ("T/0::samples::1", "stub/pass", 0.0),
        ("T/0::samples::2", "stub/return False", 0.25),
        ("T/1::samples::0", "codegen/stub/x", 0.0),  # a prefix, not a substring, decides
    ]
    lines = []
    for row_id, generator, ratio in rows:
        row = {"id": row_id, "task_id": row_id.split("::")[0], "generated": row_id,
               "reference": "def f(): return 1", "nl": "Return one.", "pass_ratio": ratio,
               "executable": True}  # fmt: skip
        if with_generators:
            row["generator"] = generator
        lines.append(json.dumps(row) + "\n")
    (tmp_path / "train.jsonl").write_text("".join(lines))
    (tmp_path / "stats.json").write_text(json.dumps({"input_convention": INPUT_CONVENTION}))
    return tmp_path


def test_stub_rows_lose_their_reference_and_feed_only_the_nl_format(tmp_path: Path) -> None:
    samples = read_split(_folder(tmp_path), "train", reference_free_generators=["stub/"])
    references = {s.id: s.reference for s in samples}
    assert references == {
        "T/0::samples::0": "def f(): return 1",
        "T/0::samples::1": "",
        "T/0::samples::2": "",
        "T/1::samples::0": "def f(): return 1",
    }
    stub = samples[1]
    assert stub.generator == "stub/pass" and stub.nl == "Return one."
    assert has_usable_format(["nl"], stub.reference, stub.nl)
    assert not has_usable_format(["ref_nl"], stub.reference, stub.nl)


def test_without_the_option_every_row_keeps_its_reference(tmp_path: Path) -> None:
    samples = read_splits([_folder(tmp_path)], "train")
    assert all(s.reference for s in samples)


def test_a_prefix_that_matches_no_training_row_is_refused(tmp_path: Path) -> None:
    """A folder built before rows named their generator must not train as if the option held."""
    old = read_split(
        _folder(tmp_path, with_generators=False), "train", reference_free_generators=["stub/"]
    )
    assert all(s.reference for s in old)
    with pytest.raises(
        TrainingConfigError, match="no training row's generator starts with 'stub/'"
    ):
        check_reference_free(old, ["stub/"])
    fresh = read_split(_folder(tmp_path), "train", reference_free_generators=["stub/"])
    assert check_reference_free(fresh, ["stub/"]) == 2  # the two stub rows, not codegen/stub/x
    assert check_reference_free(old, []) == 0  # the option unset: nothing to check


def test_the_arm_h_data_config_names_the_stub_prefix() -> None:
    root = Path(__file__).resolve().parents[2] / "configs" / "data"
    config = OmegaConf.load(root / "zeroshot_cpu_stubs_nl.yaml")
    stubs = OmegaConf.load(Path(__file__).resolve().parents[2] / "configs" / "build" / "stubs.yaml")
    assert reference_free_generators(config) == [stubs.generator_prefix]
