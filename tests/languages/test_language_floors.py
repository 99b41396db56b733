"""A language's own calibrated floor (its section's ``calibrated_floor`` in
``configs/build/limits.yaml``, ``ForeignLimits.calibrated_floors``)."""

from __future__ import annotations

import pytest

from data_builders.execution.limits import ForeignLimits, LimitPolicy, assertion_policy


def test_a_language_named_gets_its_floor_the_others_calibrated_floor() -> None:
    limits = ForeignLimits(calibrated_floor=0.5, calibrated_floors={"JavaScript": 0.2})
    assert limits.calibrated_floors == {"js": 0.2}  # by the language's own name
    assert limits.floor_for("js") == limits.floor_for("javascript") == 0.2
    assert limits.floor_for("go") == limits.floor_for("cpp") == 0.5
    policy = LimitPolicy(factor=20.0, floor=0.1, cap=3.0)
    assert assertion_policy(policy, limits, "js").floor == 0.2
    assert assertion_policy(policy, limits, "rust").floor == 0.5
    # never below limits.yaml's own floor
    assert (
        assertion_policy(policy, ForeignLimits(calibrated_floors={"js": 0.01}), "js").floor == 0.1
    )


def test_labels_one_policy_per_run_the_highest_floor_of_its_languages() -> None:
    limits = ForeignLimits(timeout=3.0, calibrated_floor=0.5, calibrated_floors={"js": 0.2})
    policy = LimitPolicy()
    assert assertion_policy(policy, limits, "js").floor == 0.2
    assert assertion_policy(policy, limits, "js", "cpp").floor == 0.5
    assert assertion_policy(policy, limits).floor == 0.5
    assert assertion_policy(policy, limits, "js").cap == 3.0


def test_settings_name_the_floors_only_when_set() -> None:
    assert "calibrated_floors" not in ForeignLimits().as_settings()  # rows made before still match
    assert ForeignLimits(calibrated_floors={"js": 0.2}).as_settings()["calibrated_floors"] == {
        "js": 0.2
    }


@pytest.mark.parametrize("floors", [{"python": 0.2}, {"js": 0}, {"js": -1.0}, {"js": "fast"}])
def test_an_unknown_language_or_a_floor_that_is_not_positive_is_refused(floors) -> None:
    with pytest.raises(ValueError, match="calibrated_floors"):
        ForeignLimits(calibrated_floors=floors)


def test_the_shipped_config_reads() -> None:
    limits = ForeignLimits.from_yaml()
    assert limits.floor_for("js") <= limits.calibrated_floor
    assert all(
        limits.floor_for(name) == limits.calibrated_floor for name in ("cpp", "java", "go", "rust")
    )


def test_a_languages_settings_carry_only_its_own_floor():
    """A C++ build's manifest must not change when JavaScript's floor does (it did: every
    HE-Eval-X C++/Java build read as 'differs' after the JS floor landed)."""
    limits = ForeignLimits(calibrated_floors={"js": 0.2})
    assert "calibrated_floors" not in limits.as_settings("cpp")
    assert limits.as_settings("cpp") == ForeignLimits().as_settings()
    assert limits.as_settings("js")["calibrated_floors"] == {"js": 0.2}
    assert limits.as_settings("cpp", "js")["calibrated_floors"] == {"js": 0.2}
