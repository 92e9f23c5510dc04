"""Conditions: one setter owns the Kubernetes rules; the clock is passed in."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import ValidationError

from proctor.api import (
    Condition,
    ConditionStatus,
    ConditionType,
    Reason,
    condition_status,
    dump,
    get_condition,
    is_false,
    is_true,
    set_condition,
)
from proctor.api.conditions import CONDITION_TYPE_PATTERN, REASON_PATTERN
from proctor.protocol import CanaryReason, FreezeReason, VerdictReason

T0 = datetime(2025, 1, 1, 0, 0, 0, tzinfo=UTC)
T1 = T0 + timedelta(minutes=5)
T2 = T0 + timedelta(minutes=9)


def test_a_new_condition_is_appended_with_now() -> None:
    conds = set_condition(
        [], "Ready", True, "Resolved", "all references exist", now=T0, observed_generation=1
    )
    assert conds == [
        Condition(
            type="Ready",
            status=ConditionStatus.TRUE,
            reason="Resolved",
            message="all references exist",
            last_transition_time=T0,
            observed_generation=1,
        )
    ]


def test_same_status_keeps_last_transition_time_but_updates_the_rest() -> None:
    conds = set_condition(
        [], "Passed", False, "TierBelowThreshold", "safety 11/12", now=T0, observed_generation=1
    )
    conds = set_condition(
        conds, "Passed", False, "RegressedFromBaseline", "trust -4", now=T1, observed_generation=2
    )
    (cond,) = conds
    assert cond.last_transition_time == T0
    assert (cond.reason, cond.message, cond.observed_generation) == ("RegressedFromBaseline", "trust -4", 2)


def test_a_status_change_moves_last_transition_time() -> None:
    conds = set_condition(
        [], "Passed", ConditionStatus.UNKNOWN, "InProgress", "", now=T0, observed_generation=1
    )
    conds = set_condition(
        conds, "Passed", True, "AllTiersClean", "every tier at 100 %", now=T1, observed_generation=1
    )
    assert conds[0].status is ConditionStatus.TRUE
    assert conds[0].last_transition_time == T1
    conds = set_condition(conds, "Passed", True, "AllTiersClean", "again", now=T2, observed_generation=1)
    assert conds[0].last_transition_time == T1


def test_other_conditions_keep_their_order_and_the_input_is_not_modified() -> None:
    original = set_condition([], "Evaluated", False, "ShardsRunning", "", now=T0, observed_generation=1)
    original = set_condition(original, "Degraded", False, "AllMeasured", "", now=T0, observed_generation=1)
    snapshot = [c.model_copy() for c in original]
    updated = set_condition(original, "Evaluated", True, "Evaluated", "done", now=T1, observed_generation=1)
    assert original == snapshot
    assert [c.type for c in updated] == ["Evaluated", "Degraded"]
    assert updated[1] is original[1]
    assert updated[0].last_transition_time == T1


def test_a_duplicated_type_collapses_into_one() -> None:
    dup = Condition(type="Ready", status=ConditionStatus.FALSE, reason="InvalidSpec", last_transition_time=T0)
    conds = set_condition(
        [dup, dup], "Ready", False, "InvalidSpec", "still", now=T1, observed_generation=None
    )
    assert len(conds) == 1
    assert conds[0].last_transition_time == T0


def test_helpers() -> None:
    conds = set_condition([], "Ready", True, "Resolved", "", now=T0, observed_generation=1)
    conds = set_condition(conds, "CircuitOpen", False, "WithinBudget", "", now=T0, observed_generation=1)
    assert get_condition(conds, "Ready") is conds[0]
    assert get_condition(conds, "Missing") is None
    assert get_condition(None, "Ready") is None
    assert is_true(conds, "Ready")
    assert not is_true(conds, "CircuitOpen")
    assert not is_true(conds, "Missing")
    assert is_false(conds, "CircuitOpen")
    assert not is_false(conds, "Missing")
    assert condition_status(conds, "Missing") is ConditionStatus.UNKNOWN


def test_the_clock_must_carry_a_zone() -> None:
    with pytest.raises(ValidationError, match="must carry a time zone"):
        set_condition([], "Ready", True, "Resolved", "", now=datetime(2025, 1, 1), observed_generation=1)


def test_conditions_serialise_in_the_kubernetes_convention() -> None:
    (cond,) = set_condition(
        [],
        "RolloutBlocked",
        True,
        "VerdictFailed",
        "safety 11/12",
        now=T0.replace(microsecond=999),
        observed_generation=4,
    )
    assert dump(cond) == {
        "type": "RolloutBlocked",
        "status": "True",
        "reason": "VerdictFailed",
        "message": "safety 11/12",
        "lastTransitionTime": "2025-01-01T00:00:00Z",
        "observedGeneration": 4,
    }
    with pytest.raises(ValidationError):
        Condition(type="Ready", status="maybe", reason="Resolved", last_transition_time=T0)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Condition(type="Ready", status=ConditionStatus.TRUE, reason="not camel case", last_transition_time=T0)


def test_documented_types_and_reasons_are_valid_kubernetes_values() -> None:
    for t in ConditionType:
        assert re.fullmatch(CONDITION_TYPE_PATTERN, t.value)
        assert t.value[0].isupper()
    for r in Reason:
        assert re.fullmatch(REASON_PATTERN, r.value), r
        assert re.fullmatch(r"[A-Z][A-Za-z]+", r.value), r
    documented = __import__("proctor.api.conditions", fromlist=["x"]).__doc__
    for t in ConditionType:
        assert f"``{t.value}``" in documented
    for r in Reason:
        assert f"``{r.value}``" in documented, r


def test_protocol_reasons_are_condition_reasons() -> None:
    reasons = {r.value for r in Reason}
    for holder in (VerdictReason, FreezeReason, CanaryReason):
        for name, value in vars(holder).items():
            if name.isupper():
                assert value in reasons, (holder.__name__, name)
