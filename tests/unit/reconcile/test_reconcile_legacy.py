"""Kopf keeps nothing in Proctor's objects, and what an older Proctor left there is removed."""

from __future__ import annotations

import kopf

import proctor.controllers.operator  # noqa: F401  (registers every handler)
from proctor.reconcile.casesets import needs_step
from proctor.reconcile.legacy import FINALIZER, legacy_patch


def test_only_watch_handlers_are_registered_so_kopf_writes_nothing_into_objects() -> None:
    """Create/update/resume/delete handlers make Kopf store a diff base (a copy of the whole spec)
    in an annotation, which a large CaseSet cannot hold; timers and daemons add a finalizer, which
    leaves namespaces Terminating while the operator is down. Proctor's reconcilers are level-based:
    watch handlers need neither."""
    registry = kopf.get_default_registry()
    assert not registry._changing.get_all_handlers()
    assert not registry._spawning.get_all_handlers()
    watched = {h.id for h in registry._watching.get_all_handlers()}
    assert {
        "caseset-event",
        "profile-event",
        "evalrun-event",
        "judge-pod-event",
        "gate-policy-event",
    } <= watched


def test_an_older_kopfs_annotations_are_removed_and_ours_are_kept() -> None:
    meta = {
        "finalizers": [FINALIZER],
        "annotations": {
            "proctor.dev/last-handled-configuration": '{"spec": {}}',
            "proctor.dev/kopf-managed": "yes",
            "proctor.dev/freeze-baseline": "1700000000",
            "kubectl.kubernetes.io/last-applied-configuration": "{}",
        },
    }
    assert legacy_patch(meta) == {
        "metadata": {
            "annotations": {"proctor.dev/kopf-managed": None, "proctor.dev/last-handled-configuration": None}
        }
    }
    assert legacy_patch({"annotations": {"proctor.dev/freeze-baseline": "1"}}) is None
    assert legacy_patch({}) is None


def _caseset(
    generation: int, observed: int | None, ready: bool = True, **annotations: str
) -> dict[str, object]:
    status: dict[str, object] = {"observedGeneration": observed} if observed is not None else {}
    if ready:
        status["conditions"] = [{"type": "Ready", "status": "True"}]
    if "request" in annotations:
        status["freezeRequest"] = annotations.pop("request")
    return {"metadata": {"generation": generation, "annotations": annotations}, "status": status}


def test_a_case_set_takes_a_step_only_when_an_event_needs_one() -> None:
    assert needs_step(_caseset(2, 1))  # its spec changed
    assert needs_step(_caseset(1, None, ready=False))  # never resolved
    assert not needs_step(_caseset(1, 1))  # its own status write, a run's history: nothing to do
    freeze = "proctor.dev/freeze-baseline"
    assert needs_step(_caseset(1, 1, **{freeze: "t2", "request": "t1"}))  # a new freeze request
    assert not needs_step(_caseset(1, 1, **{freeze: "t1", "request": "t1"}))
