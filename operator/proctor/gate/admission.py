"""What the admission webhook decides for a gated Deployment: pure, from the object alone.

A Deployment labelled ``proctor.dev/gate-policy: <name>`` rolls out only pod templates the gate
approved. When an incoming object's pod template differs from the approved one (recorded by hash
in an annotation), the webhook pauses the Deployment and records the pending template hash, so no
new ReplicaSet rolls out until the exam says so. Everything else passes untouched: scale-only
changes, the operator's own writes (which set the approved hash together with the template), and
objects without the label. The webhook answers from the object in the request, never from a judge.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proctor.api.common import GATE_POLICY_LABEL
from proctor.api.policy import LabelSelector

#: The label that puts a Deployment under a GatePolicy (the API's own name for it).
GATE_LABEL = GATE_POLICY_LABEL
PENDING_ANNOTATION = "proctor.dev/pending-template-hash"
APPROVED_ANNOTATION = "proctor.dev/approved-template-hash"
APPROVED_TEMPLATE_ANNOTATION = "proctor.dev/approved-template"
HELD_ANNOTATION = "proctor.dev/held-by"
#: When the webhook recorded the pending template: one rollout attempt (the same failing template
#: applied twice is two attempts, each decided and counted by the gate).
PENDING_SINCE_ANNOTATION = "proctor.dev/pending-since"


def template_hash(template: Mapping[str, Any] | None) -> str:
    """A stable digest of a pod template (key order does not matter)."""
    canonical = json.dumps(template or {}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Admission:
    """The change to make to an admitted object (``None`` fields: leave as is)."""

    pause: bool = False
    pending_hash: str | None = None
    message: str = ""

    @property
    def changes(self) -> bool:
        return self.pause or self.pending_hash is not None


def admit(obj: Mapping[str, Any], *, enforcing: bool = True) -> Admission:
    """Decide for one Deployment as the API server is about to store it.

    ``enforcing`` is the policy's effective enforcement: in shadow mode (``Observe``, or while its
    determinism canary has not shown a stable safety tier) the pending template is recorded, so it
    is examined and the verdict recorded, but the Deployment is not paused.
    """
    meta = obj.get("metadata") or {}
    if GATE_LABEL not in (meta.get("labels") or {}):
        return Admission(message="not gated")
    spec = obj.get("spec") or {}
    h = template_hash(spec.get("template"))
    annotations = meta.get("annotations") or {}
    if annotations.get(APPROVED_ANNOTATION) == h:
        return Admission(message="the pod template is the approved one")
    if spec.get("paused") is True and annotations.get(PENDING_ANNOTATION) == h:
        return Admission(message="already held for this template")
    if not enforcing:
        if annotations.get(PENDING_ANNOTATION) == h:
            return Admission(message="already recorded (observe only)")
        return Admission(
            pending_hash=h,
            message=f"GatePolicy {meta['labels'][GATE_LABEL]} observes: template {h[:19]} will be examined, "
            "not held",
        )
    return Admission(
        pause=True,
        pending_hash=h,
        message=f"held by GatePolicy {meta['labels'][GATE_LABEL]}: template {h[:19]} awaits its exam",
    )


@dataclass(frozen=True, slots=True)
class GateEntry:
    """A policy as the webhook knows it (Kopf's index, kept current before any request comes): its
    mode, and the selector that narrows which labelled Deployments it gates."""

    mode: str
    selector: LabelSelector | None = None

    @classmethod
    def of(cls, spec: Mapping[str, Any], status: Mapping[str, Any]) -> GateEntry:
        """From a policy's spec and status: the mode the operator last found
        (``status.effectiveEnforcement``), Observe until it found one, and Observe whenever the spec
        says so."""
        mode = (
            "Observe"
            if spec.get("enforcement") == "Observe"
            else status.get("effectiveEnforcement") or "Observe"
        )
        selector = spec.get("selector")
        return cls(mode, LabelSelector.model_validate(selector) if selector is not None else None)

    def selects(self, labels: Mapping[str, str]) -> bool:
        return self.selector is None or self.selector.matches(labels)


def enforcing(entries: Sequence[GateEntry]) -> bool:
    """Whether to pause: a policy the webhook has not seen (none indexed) holds, failing closed."""
    return not entries or entries[0].mode != "Observe"


def admission_patch(decision: Admission, now: dt.datetime) -> dict[str, Any]:
    """The change to the admitted object: ``spec.paused`` (when held) and the pending template's hash
    and when it was recorded (one rollout attempt)."""
    patch: dict[str, Any] = {
        "metadata": {
            "annotations": {
                PENDING_ANNOTATION: decision.pending_hash,
                PENDING_SINCE_ANNOTATION: now.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            }
        }
    }
    if decision.pause:
        patch["spec"] = {"paused": True}
    return patch
