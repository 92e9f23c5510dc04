"""Write-if-changed: what counts as a change a reader would see."""

from __future__ import annotations

from typing import Any

from proctor.reconcile.status import changed

COND = {
    "type": "Evaluated",
    "status": "False",
    "reason": "ShardsRunning",
    "message": "2 shard(s) running",
    "lastTransitionTime": "2026-01-01T00:00:00Z",
    "observedGeneration": 1,
}


def status(**kw: Any) -> dict[str, Any]:
    return {"observedGeneration": 1, "phase": "Running", "conditions": [COND]} | kw


def test_the_same_status_is_not_written_again() -> None:
    assert not changed(status(), status())


def test_a_field_that_differs_is_a_change() -> None:
    assert changed(status(), status(phase="Evaluated"))
    assert changed(status(), status(observedGeneration=2))
    assert changed({}, status())


def test_a_field_the_writer_does_not_set_is_not_compared() -> None:
    assert not changed(status(verdict="PASS"), status())


def test_a_condition_changes_by_status_reason_or_message_only() -> None:
    later = COND | {"lastTransitionTime": "2026-01-01T00:05:00Z", "observedGeneration": 1}
    assert not changed(status(), status(conditions=[later]))
    for field, value in (("status", "True"), ("reason", "RetryScheduled"), ("message", "1 waiting")):
        assert changed(status(), status(conditions=[COND | {field: value}])), field
    assert changed(status(), status(conditions=[COND, COND | {"type": "Passed"}]))


def test_conditions_are_compared_by_type_not_by_position() -> None:
    other = COND | {"type": "Degraded", "status": "False", "reason": "AllMeasured"}
    assert not changed(status(conditions=[COND, other]), status(conditions=[other, COND]))


def test_shard_entries_are_compared_on_the_operators_fields_only() -> None:
    ours = {"name": "0/2", "job": "r-judge-0-of-2-a1", "attempts": 1, "jobPhase": "Active"}
    runners = ours | {"phase": "Running", "results": [], "startTime": "2026-01-01T00:00:01Z"}
    assert not changed(status(shards=[runners]), status(shards=[ours]))
    assert changed(status(shards=[runners]), status(shards=[ours | {"jobPhase": "Failed"}]))
    assert changed(status(shards=[runners]), status(shards=[ours, ours | {"name": "1/2"}]))


def test_other_lists_are_compared_whole() -> None:
    workload = {"name": "agent", "blocked": False, "message": "held", "verdict": "FAIL"}
    assert changed(
        {"workloads": [workload]}, {"workloads": [{k: v for k, v in workload.items() if k != "verdict"}]}
    )
