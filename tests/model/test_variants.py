"""The model's two variants as classes, the config's dependency table, and the one table of
retired settings (issue 45 item 3)."""

from __future__ import annotations

import pytest
import torch
from omegaconf import OmegaConf

from unice.data.encoding import InputEncoder
from unice.errors import ModelConfigError, TrainingConfigError
from unice.modeling import CrossEncoderModel, EstimatorModel, UniCEConfig, UniCEModel
from unice.modeling.configuration import NEEDS
from unice.retired import RETIRED, SECTIONS, refuse_retired, retired_keys, without_retired
from unice.testing import build_tiny_model, tiny_encoder_config

GENERATED = ["    return a + b\n", "    return a - b\n"]
REFERENCE = "    return a + b\n"
NL = "def add(a, b):\n    '''Sum of a and b.'''\n"
LABELS = torch.tensor([[1.0, 1.0, 1.0], [0.0, 1.0, 0.0]])


def _inputs(model: UniCEModel) -> dict[str, torch.Tensor]:
    """The ``ref`` rows of GENERATED, encoded as the model's variant takes them."""
    encoder = InputEncoder.from_config(model.tokenizer, model.config)
    args = (GENERATED, [REFERENCE] * 2, [NL] * 2, ["ref"])
    if isinstance(model, EstimatorModel):
        batch = encoder.encode_segments(*args)
        skip = ("format_ids", "sample_index")
        return {k: torch.tensor(v) for k, v in batch.items() if k not in skip}
    padded = encoder.encode_formats(*args)["ref"][1]
    return {k: torch.tensor(v) for k, v in padded.items()}


@pytest.mark.parametrize(
    ("architecture", "switches", "variant"),
    [
        ("cross", {}, CrossEncoderModel),
        ("estimator", {}, EstimatorModel),
        ("estimator", {"exact_features": True, "exact_prior": "rouge_l"}, EstimatorModel),
    ],
)
def test_each_variant_is_its_own_class_and_its_forward_scores_and_trains(
    architecture, switches, variant
):
    model = build_tiny_model(seed=2, architecture=architecture, **switches)
    assert type(model) is variant and isinstance(model, UniCEModel)
    assert variant.architecture == architecture
    output = model(**_inputs(model), labels=LABELS)
    assert output.logits.shape == (2, 2) and torch.isfinite(output.logits).all()
    assert output.trained_logits is output.logits  # no prior votes here
    assert hasattr(model, "prior_scale") == bool(switches.get("exact_prior"))
    assert output.logits[0, 0] != output.logits[1, 0]  # g is read
    output.loss.backward()
    assert model.head.net[-1].weight.grad.abs().sum() > 0


def test_a_variant_given_the_other_variants_inputs_says_what_it_takes():
    cross, estimator = build_tiny_model(), build_tiny_model(architecture="estimator")
    with pytest.raises(ValueError, match="cross model takes input_ids"):
        cross(**_inputs(estimator))
    with pytest.raises(ValueError, match="estimator model takes segment_input_ids"):
        estimator(**_inputs(cross))


def test_needs_rows_refuse_in_one_line_naming_what_is_needed():
    on = {setting: True for setting, _, _ in NEEDS}  # every switch of the table on
    on.update(trainable_top_layers=1, exact_prior="rouge_l")
    base = {"encoder": tiny_encoder_config(100), "architecture": "estimator"}
    for setting, (needed, value), _ in NEEDS:
        wrong = (not value) if isinstance(value, bool) else "cross"
        fields = {**base, setting: on[setting], needed: wrong}
        if setting == "freeze_encoder":  # the one row whose need is a field being off
            fields.update(standardize_states=False, trainable_top_layers=0)
        with pytest.raises(ModelConfigError, match=f"^{setting}.*; it needs {needed}=") as error:
            UniCEConfig(**fields)
        assert "\n" not in str(error.value)
    UniCEConfig(**base, **on)  # every switch on, every need met


def test_every_retired_row_loads_today_s_value_and_refuses_another_naming_its_commit():
    assert {row.section for row in RETIRED} == set(SECTIONS)
    assert len({(row.section, row.key) for row in RETIRED}) == len(RETIRED)
    for row in RETIRED:
        context = {row.idle_unless: True} if row.idle_unless else {}
        kept = {row.key: row.kept if row.kept is not None else 0}
        assert without_retired(row.section, {**kept, "other": 1}, context) == {"other": 1}
        other = "something else" if row.kept is not None else 1.0
        error_type = TrainingConfigError if row.section == "data" else ModelConfigError
        with pytest.raises(error_type, match=f"{row.key}.*{row.commit}") as error:
            refuse_retired(row.section, {row.key: other}, context)
        assert "\n" not in str(error.value)


def test_a_retired_key_is_idle_without_the_setting_it_needed():
    """``exec_prior_mode: start`` did nothing in a checkpoint without ``exec_prior``: it loads."""
    refuse_retired("model", {"exec_prior_mode": "start"})
    with pytest.raises(ModelConfigError, match="exec_prior_mode='start'"):
        refuse_retired("model", {"exec_prior_mode": "start", "exec_prior": True})


def test_the_three_readers_refuse_from_the_one_table():
    """A checkpoint's switches and loss terms and a training config's data keys all read
    RETIRED (a training config's model section too: tests/model/test_stage_arms.py)."""
    fault = retired_keys("model")["fault_head"]
    encoder = tiny_encoder_config(100)
    with pytest.raises(ModelConfigError, match=fault.commit):
        UniCEConfig(encoder=encoder, fault_head=True)
    with pytest.raises(ModelConfigError, match=f"loss_weights.faults=0.5: .*{fault.commit}"):
        UniCEConfig(encoder=encoder, loss_weights={"pass_ratio": 1.0, "faults": 0.5})
    balance = retired_keys("data")["balance"]
    with pytest.raises(TrainingConfigError, match=f"^data.balance was retired.*{balance.commit}"):
        refuse_retired("data", OmegaConf.create({"balance": "family"}))
    with pytest.raises(ValueError, match="section='trainer'"):
        retired_keys("trainer")
