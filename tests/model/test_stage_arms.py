"""scripts/stage_arms.py applies issue 27's pre-registered rule: an arm's mean over seeds
against the incumbent's plus the margin, and a lever against the arm it builds on."""

from __future__ import annotations

import pytest

from unice.errors import ModelConfigError
from unice.retired import FAULT_HEAD_AT, LIKELIHOOD_FEATURES_AT
from unice.testing import load_script
from unice.training.settings import refuse_retired_model_keys, refuse_retired_overrides

from .conftest import compose


def _module():
    return load_script("stage_arms")


def test_the_rule_reads_each_arm_against_the_incumbent_and_its_base():
    verdict = _module().verdict
    means = {"incumbent": 0.48, "A": 0.464, "C_on_A": 0.474, "B": 0.51}
    assert verdict("A", means, 0.02) == "does not beat the incumbent by > 0.02"
    assert verdict("B", means, 0.02) == "beats the incumbent by > 0.02; beats A by > 0.02"
    assert verdict("C_on_A", means, 0.02) == (
        "does not beat the incumbent by > 0.02; does not beat A by > 0.02"
    )
    assert verdict("C_on_B", means, 0.02) == "not all seeds run"
    assert verdict("E", {"incumbent": 0.463, "E": 0.45}, 0.02, non_inferior=True) == (
        "not below the incumbent by > 0.02: kept"
    )
    assert verdict("E", {"incumbent": 0.463, "E": 0.44}, 0.02, non_inferior=True) == (
        "below the incumbent by > 0.02: not kept"
    )
    partial = {"A": 0.464, "C_on_A": 0.50}  # the incumbent's seeds not all run
    assert verdict("C_on_A", partial, 0.02) == (
        "the incumbent's seeds are not all run; beats A by > 0.02"
    )


def test_every_arm_but_the_incumbent_trains_frozen_with_its_own_overrides():
    module = _module()
    incumbent = module.overrides("incumbent", 12)
    assert not any("freeze_encoder" in o for o in incumbent)
    b = module.overrides("B", 13)
    assert "model.freeze_encoder=true" in b and "data=zeroshot_cpu_mut" in b and "seed=13" in b


def test_an_arm_written_as_a_mapping_can_train_the_encoder(monkeypatch):
    """E goes on whatever configuration the rule leaves adopted; on the fine-tuned incumbent
    it must not pick up the frozen schedule."""
    module = _module()
    arms = {
        "incumbent": None,
        "tuned": {"frozen": False, "overrides": ["model.formats=[ref_nl,nl]"]},
        "cached": {"overrides": ["data=zeroshot_cpu_apps"]},
    }
    settings = {"arms": arms, "frozen": ["model.freeze_encoder=true"], "seeds": [12]}
    monkeypatch.setattr(module, "stage", lambda: settings)
    tuned = module.overrides("tuned", 12)
    assert "model.formats=[ref_nl,nl]" in tuned
    assert "model.freeze_encoder=true" not in tuned
    cached = module.overrides("cached", 12)
    assert "model.freeze_encoder=true" in cached and "data=zeroshot_cpu_apps" in cached


def test_every_arm_that_builds_on_another_names_an_arm_of_the_protocol():
    stage = _module().stage()
    for arm, base in stage["builds_on"].items():
        assert arm in stage["arms"] and base in stage["arms"], (arm, base)


def test_b1_reads_one_mutant_per_program():
    b1 = _module().overrides("B1", 12)
    assert "data.mutants_per_program=1" in b1 and "data=zeroshot_cpu_mut" in b1


def test_the_c_arms_stop_with_the_fault_heads_retirement_naming_its_commit():
    """The fault head was retired after C_on_A was not credited; the C arms' overrides stay as
    the record of what ran, and running one stops in one line naming the commit with the code
    (train.py checks the command line before hydra composes it)."""
    module = _module()
    for arm in ("C_on_A", "C_on_B", "C_on_B1"):
        with pytest.raises(ModelConfigError, match=f"fault_head=True: .*{FAULT_HEAD_AT}"):
            refuse_retired_overrides(module.overrides(arm, 12))
    for arm in ("incumbent", "A", "B", "B1"):
        refuse_retired_overrides(module.overrides(arm, 12))
    with pytest.raises(ModelConfigError, match=rf"loss_weights\.faults=1\.0: .*{FAULT_HEAD_AT}"):
        refuse_retired_overrides(["+experiment=zeroshot_cpu", "+model.loss_weights.faults=1.0"])
    refuse_retired_overrides(["model.fault_head=false", "+model.loss_weights.faults=0"])
    # added to a composed config, the switch is refused before any data is read
    cfg = compose(["+experiment=zeroshot_cpu", "+model.fault_head=true"])
    with pytest.raises(ModelConfigError, match=FAULT_HEAD_AT):
        refuse_retired_model_keys(cfg.model)
    refuse_retired_model_keys(compose(["+experiment=zeroshot_cpu"]).model)


def test_arm_m_stops_with_the_likelihood_features_retirement_naming_its_commit():
    """Arm M was not adopted and its switch retired: its overrides stay as the record, and
    running it stops in one line naming the last commit with the code."""
    module = _module()
    with pytest.raises(
        ModelConfigError, match=f"likelihood_features=True: .*{LIKELIHOOD_FEATURES_AT}"
    ):
        refuse_retired_overrides(module.overrides("M", 12))
    refuse_retired_overrides(["model.likelihood_features=false", "model.likelihood_model=x"])


def test_a_non_inferior_arm_on_an_adopted_one_is_read_against_that_one():
    """G goes on E (adopted), so its non-inferiority is measured against E, not the incumbent."""
    verdict = _module().verdict
    means = {"incumbent": 0.463, "E": 0.476, "G": 0.45}
    assert verdict("G", means, 0.02, non_inferior=True, reference="E") == (
        "below E by > 0.02: not kept"
    )
    assert verdict("G", {**means, "G": 0.46}, 0.02, non_inferior=True, reference="E") == (
        "not below E by > 0.02: kept"
    )
    assert verdict("G", {"G": 0.5}, 0.02, non_inferior=True, reference="E") == (
        "E's seeds are not all run"
    )


def test_a_second_condition_compares_the_arm_with_its_reference_per_seed(tmp_path, monkeypatch):
    """--check reads each seed's kept report (no evaluation when it exists) and applies the margin."""
    import json

    module = _module()
    check = {"data": "data/x", "split": "dev", "column": "C", "metric": "best_of_n_passed",
             "against": "E"}  # fmt: skip
    settings = {"seeds": [12, 13], "checks": {"G": check}}
    monkeypatch.setattr(module, "stage", lambda: settings)
    monkeypatch.setattr(module, "margin", lambda: 0.02)
    monkeypatch.setattr(module, "RUNS", tmp_path)
    figures = {("G", 12): 0.30, ("G", 13): 0.34, ("E", 12): 0.12, ("E", 13): 0.14}
    for (arm, seed), value in figures.items():
        report = tmp_path / arm / f"seed{seed}" / "check_x_dev" / "report.json"
        report.parent.mkdir(parents=True)
        (tmp_path / arm / f"seed{seed}" / "best").mkdir()
        metrics = [{"name": "C", "best_of_n": {"passed": {"selected": value}}}]
        report.write_text(json.dumps({"metrics": metrics}))
    text = module.run_check("G")
    assert "| G | 0.300 | 0.340 | 0.320 |" in text and "| E | 0.120 | 0.140 | 0.130 |" in text
    assert text.strip().endswith("G: beats E by > 0.02")


def test_on_a_machine_without_run_folders_the_records_give_the_documented_verdicts(
    tmp_path, monkeypatch
):
    """Run folders are not committed: the earlier arms' figures are protocol.stage3.recorded, and
    the table read from them alone says what docs/model.md says (G against E from the 4-place
    means, since its 3-place seeds sit at exactly E - .02)."""
    module = _module()
    monkeypatch.setattr(module, "RUNS", tmp_path)  # no run folder of any arm
    rows = {line.split(" | ")[0].strip("| "): line for line in module.table().splitlines()}
    assert rows["E"].endswith("| 0.476 | not below the incumbent by > 0.02: kept |")
    assert rows["G"].endswith("| 0.456 | below E by > 0.02: not kept |")
    assert "| 0.464 | does not beat the incumbent by > 0.02 |" in rows["A"]
    assert rows["I"].endswith("| 0.480 | not below E by > 0.02: kept |")
    assert rows["H"].endswith("| 0.450 | below I by > 0.02: not kept |")
    assert rows["J"].endswith("does not beat I by > 0.02 |")
    assert rows["K"].endswith(
        "| 0.480 | does not beat the incumbent by > 0.02; does not beat I by > 0.02 |"
    )
    assert rows["M"].endswith(
        "| 0.479 | does not beat the incumbent by > 0.02; does not beat I by > 0.02 |"
    )
    assert rows["N"].endswith(
        "| 0.476 | does not beat the incumbent by > 0.02; does not beat D2 by > 0.02 |"
    )
    assert module.run_check("H").strip().endswith("H: beats I by > 0.02")
    check = module.run_check("G")
    assert "| E | 0.088 | 0.053 | 0.088 | 0.076 |" in check
    assert check.strip().endswith("G: beats E by > 0.02")
