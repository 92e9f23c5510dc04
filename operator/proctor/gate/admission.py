"""What the admission webhook decides for a gated Deployment: pure, from the request.

A Deployment labelled ``proctor.dev/gate-policy: <name>`` rolls out only pod templates the gate
approved. When an incoming object's pod template differs from the approved one (recorded by hash
in an annotation), the webhook pauses the Deployment and records the pending template hash, so no
new ReplicaSet rolls out until the exam says so.

The request cannot vouch for itself. The approval is what the *stored* object says, and only the
operator writes it:

- the annotations of the gate (:data:`PROTECTED`: the approved and pending template, when, who
  broke the glass) are written only by the operator's own identity (the request's ``userInfo``;
  the operator learns its name from a SelfSubjectReview at startup) and by this webhook's own
  mutations. A request from anyone else that adds or changes one is refused, one that drops one
  (a ``kubectl replace`` of the original manifest) gets the old value back; a Deployment that is
  created gated, or becomes gated, may carry none (nothing it said before it was gated is trusted);
- a Deployment that was gated stays gated: removing or changing the gate label, or changing the
  labels a policy's selector reads so that it no longer selects the Deployment, is refused;
- unpausing, or changing anything else in the same request, does not help: the decision rests on
  the template's hash and the stored approval.

The webhook's object selector matches when the old *or* the new object carries the label (the API
server evaluates both), so a request that removes the label is still seen here.

Break-glass: a person may roll out an unexamined change, or stop gating a Deployment, by setting
:data:`~proctor.api.BREAK_GLASS_ANNOTATION` to the reason. It is honoured only when the API server
says the caller may ``update`` ``gatepolicies/breakglass`` of the policy (a SubjectAccessReview
the handler makes; cluster admins can, nobody else unless granted), and is recorded on the
Deployment (who, which template) and as Events. Anyone else setting it is refused.

Everything else passes untouched: scale-only changes, the approved template, objects that were and
are not gated. One mutation besides the hold: the gate label is written into a gated Deployment's
pod template (outside its hash), so its ReplicaSets and Pods carry it and the webhook that guards
them (:mod:`proctor.gate.pods`) can fail closed on them alone. The webhook answers from the request
and an in-memory index of the policies, never from a judge.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from proctor.api.common import BREAK_GLASS_ANNOTATION, GATE_POLICY_LABEL, GROUP
from proctor.api.policy import Enforcement, GatePolicy, LabelSelector

#: The label that puts a Deployment under a GatePolicy (the API's own name for it).
GATE_LABEL = GATE_POLICY_LABEL
PENDING_ANNOTATION = "proctor.dev/pending-template-hash"
APPROVED_ANNOTATION = "proctor.dev/approved-template-hash"
APPROVED_TEMPLATE_ANNOTATION = "proctor.dev/approved-template"
#: When the webhook recorded the pending template: one rollout attempt (the same failing template
#: applied twice is two attempts, each decided and counted by the gate).
PENDING_SINCE_ANNOTATION = "proctor.dev/pending-since"
#: Who broke the glass, and for which template (the webhook writes them when it honours one).
BREAK_GLASS_BY_ANNOTATION = "proctor.dev/break-glass-by"
BREAK_GLASS_TEMPLATE_ANNOTATION = "proctor.dev/break-glass-template"
#: The identity (:func:`proctor.gate.identity.approval_identity`: the template, the content of the
#: ConfigMaps it references, the cases and the policy) the operator approved, and the identity the
#: approved template has now. When they differ (a referenced ConfigMap, the cases or the policy
#: changed), no pod of the Deployment runs on approved content: it is held until the exam passes.
APPROVED_IDENTITY_ANNOTATION = "proctor.dev/approved-identity"
PENDING_IDENTITY_ANNOTATION = "proctor.dev/pending-identity"
#: What only the operator (and this webhook's mutations) may write on a gated Deployment.
PROTECTED: tuple[str, ...] = (
    APPROVED_ANNOTATION,
    APPROVED_TEMPLATE_ANNOTATION,
    APPROVED_IDENTITY_ANNOTATION,
    PENDING_IDENTITY_ANNOTATION,
    PENDING_ANNOTATION,
    PENDING_SINCE_ANNOTATION,
    BREAK_GLASS_BY_ANNOTATION,
    BREAK_GLASS_TEMPLATE_ANNOTATION,
)
#: The right that lets a caller break the glass: ``update`` on this subresource of the policy
#: (RBAC checks it like any other; it serves no API, it only names the permission).
BREAK_GLASS_RESOURCE = "gatepolicies"
BREAK_GLASS_SUBRESOURCE = "breakglass"
BREAK_GLASS_VERB = "update"


def template_hash(template: Mapping[str, Any] | None) -> str:
    """A stable digest of a pod template (key order does not matter). The gate label the webhook
    writes into a gated Deployment's pod template (:func:`template_label_patch`) is not part of it:
    it marks the pods, it does not change what they run, and writing it re-examines nothing."""
    template = dict(template or {})
    meta = dict(template.get("metadata") or {})
    labels = meta.get("labels") or {}
    if GATE_LABEL in labels:
        meta["labels"] = {k: v for k, v in labels.items() if k != GATE_LABEL}
        template["metadata"] = meta
    canonical = json.dumps(template, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def content_unapproved(annotations: Mapping[str, str]) -> bool:
    """Whether the approved template now runs on content nobody approved: the operator recorded the
    identity it has now (:data:`PENDING_IDENTITY_ANNOTATION`) and it is not the approved one. Then no
    pod of the Deployment may start, whatever its template (the content applies to every revision)."""
    pending = annotations.get(PENDING_IDENTITY_ANNOTATION)
    return bool(pending) and pending != annotations.get(APPROVED_IDENTITY_ANNOTATION)


def _meta(obj: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return (obj or {}).get("metadata") or {}


def annotations_of(obj: Mapping[str, Any] | None) -> Mapping[str, str]:
    return _meta(obj).get("annotations") or {}


def labels_of(obj: Mapping[str, Any] | None) -> Mapping[str, str]:
    return _meta(obj).get("labels") or {}


@dataclass(frozen=True, slots=True)
class Request:
    """One admission request as the webhook decides it: the object as it would be stored, the one
    stored before (``None`` on CREATE), who asks, and what the policies say of both objects."""

    new: Mapping[str, Any]
    old: Mapping[str, Any] | None = None
    user: str = ""
    by_operator: bool = False
    #: whether the old and the new object are gated (labelled, and selected by their policy; a policy
    #: the webhook does not know gates: fail closed)
    gated_old: bool = False
    gated_new: bool = True
    #: the new object's policy enforces (else it observes: record, never pause)
    enforcing: bool = True
    #: the webhook knows the label's policy (an unknown one holds: fail closed)
    known: bool = True

    @property
    def policy(self) -> str:
        return labels_of(self.new).get(GATE_LABEL) or labels_of(self.old).get(GATE_LABEL) or ""


@dataclass(frozen=True, slots=True)
class BreakGlass:
    """A break-glass the webhook honoured: who, why, and for which template."""

    user: str
    reason: str
    template: str


@dataclass(frozen=True, slots=True)
class Admission:
    """The answer: refused (with the reason), or admitted with the change to make (``None`` fields:
    leave as is)."""

    allowed: bool = True
    pause: bool = False
    pending_hash: str | None = None
    #: protected annotations the request dropped, put back as they were
    restore: Mapping[str, str] = field(default_factory=dict)
    break_glass: BreakGlass | None = None
    #: the gate label to write into the pod template (its ReplicaSets and Pods then carry it)
    label_template: str | None = None
    message: str = ""

    @property
    def changes(self) -> bool:
        return bool(self.pause or self.pending_hash is not None or self.restore or self.break_glass)


def refused(message: str) -> Admission:
    return Admission(allowed=False, message=message)


def wants_break_glass(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> str | None:
    """The reason a request gives for breaking the glass: a new, non-empty value of the annotation."""
    reason = annotations_of(new).get(BREAK_GLASS_ANNOTATION, "").strip()
    if not reason or reason == annotations_of(old).get(BREAK_GLASS_ANNOTATION, "").strip():
        return None
    return reason


def _protected_changes(req: Request) -> tuple[list[str], dict[str, str]]:
    """The protected annotations a request adds or changes, and those it drops (with their old
    values). Nothing an object carried before it was gated counts as stored."""
    new = annotations_of(req.new)
    stored = annotations_of(req.old) if req.gated_old else {}
    changed = [k for k in PROTECTED if k in new and new[k] != stored.get(k)]
    dropped = {k: stored[k] for k in PROTECTED if k in stored and k not in new}
    return changed, dropped


def admit(req: Request, *, may_break_glass: bool | None = None) -> Admission:
    """Decide for one Deployment as the API server is about to store it.

    ``may_break_glass`` is the SubjectAccessReview's answer, asked only when the request sets a new
    break-glass reason (:func:`wants_break_glass`). In shadow mode (``enforcing`` False: the
    policy observes, or its determinism canary has not shown a stable safety tier) the pending
    template is recorded, so it is examined and the verdict recorded, but not paused.
    """
    if not req.gated_old and not req.gated_new:
        return Admission(message="not gated")
    restore: dict[str, str] = {}
    if not req.by_operator:
        changed, restore = _protected_changes(req)
        if changed and not req.gated_old:
            return refused(
                f"{', '.join(changed)}: a Deployment may not carry these when it is created or becomes "
                f"gated (GatePolicy {req.policy}): only the Proctor operator writes them, after an exam; "
                "remove them"
            )
        if changed:
            return refused(
                f"{', '.join(changed)}: written only by the Proctor operator, not by "
                f"{req.user or 'this caller'} (GatePolicy {req.policy}); an approval is granted by passing "
                f"the exam, or bypassed with {BREAK_GLASS_ANNOTATION} by those allowed to"
            )
        reason = wants_break_glass(req.old, req.new)
        if reason is not None:
            if not may_break_glass:
                return refused(
                    f"{BREAK_GLASS_ANNOTATION}: {req.user or 'this caller'} may not break the glass of "
                    f"GatePolicy {req.policy} (it needs {BREAK_GLASS_VERB} on "
                    f"{BREAK_GLASS_RESOURCE}/{BREAK_GLASS_SUBRESOURCE} of that policy)"
                )
            h = template_hash((req.new.get("spec") or {}).get("template"))
            return Admission(
                restore=restore,
                break_glass=BreakGlass(req.user, reason[:256], h),
                label_template=_missing_template_label(req),
                message=f"break-glass by {req.user} (GatePolicy {req.policy}): template {h[:19]} rolls out "
                f"unexamined: {reason[:256]}",
            )
        old_label, new_label = labels_of(req.old).get(GATE_LABEL), labels_of(req.new).get(GATE_LABEL)
        if req.gated_old and (not req.gated_new or old_label != new_label):
            return refused(
                f"GatePolicy {old_label} gates this Deployment: the label {GATE_LABEL}={old_label} cannot be "
                "removed or changed, nor the labels its selector reads, by "
                f"{req.user or 'this caller'} (break-glass: {BREAK_GLASS_ANNOTATION})"
            )
    return replace(_hold(req, restore), label_template=_missing_template_label(req))


def _missing_template_label(req: Request) -> str | None:
    """The policy's name, when a gated Deployment's pod template lacks the gate label (or names
    another policy): its ReplicaSets and Pods carry it, so the webhook that fails closed on them
    (:mod:`proctor.gate.pods`) sees them and nothing else."""
    if not req.gated_new:
        return None
    policy = labels_of(req.new).get(GATE_LABEL)
    template = (req.new.get("spec") or {}).get("template") or {}
    have = ((template.get("metadata") or {}).get("labels") or {}).get(GATE_LABEL)
    return policy if policy and have != policy else None


def _hold(req: Request, restore: Mapping[str, str]) -> Admission:
    """The template's decision, from its hash and the stored approval."""
    spec = req.new.get("spec") or {}
    h = template_hash(spec.get("template"))
    ann = {**annotations_of(req.new), **restore}
    if ann.get(APPROVED_ANNOTATION) == h and content_unapproved(ann):
        # the template is approved, what it reads is not (a ConfigMap, the cases, the policy changed):
        # an unpause is undone until the operator's exam of the new content passes
        if not req.enforcing or spec.get("paused") is True:
            return Admission(restore=restore, message="the approved template's content awaits its exam")
        return Admission(
            pause=True,
            restore=restore,
            message=f"held by GatePolicy {req.policy}: the approved template's content changed "
            f"({ann.get(PENDING_IDENTITY_ANNOTATION, '')[:19]}) and awaits its exam",
        )
    if ann.get(APPROVED_ANNOTATION) == h:
        return Admission(restore=restore, message="the pod template is the approved one")
    if spec.get("paused") is True and ann.get(PENDING_ANNOTATION) == h:
        return Admission(restore=restore, message="already held for this template")
    if not req.enforcing:
        if ann.get(PENDING_ANNOTATION) == h:
            return Admission(restore=restore, message="already recorded (observe only)")
        return Admission(
            restore=restore,
            pending_hash=h,
            message=f"GatePolicy {req.policy} observes: template {h[:19]} will be examined, not held",
        )
    return Admission(
        pause=True,
        pending_hash=h,
        restore=restore,
        message=f"held by GatePolicy {req.policy}: template {h[:19]} awaits its exam"
        + ("" if req.known else f" (GatePolicy {req.policy} not found: held)"),
    )


@dataclass(frozen=True, slots=True)
class GateEntry:
    """A policy as the webhook knows it (:class:`proctor.gate.server.Policies`, kept current by the
    GatePolicy watch before any request comes): its mode, and the selector that narrows which
    labelled Deployments it gates."""

    mode: Enforcement
    selector: LabelSelector | None = None

    @classmethod
    def of(cls, policy: GatePolicy) -> GateEntry:
        """From a policy parsed at the edge (:meth:`proctor.gate.server.Policies.read_policy`): the
        mode the operator last found (``status.effectiveEnforcement``), Observe until it found one,
        and Observe whenever the spec says so."""
        found = policy.status.effective_enforcement if policy.status is not None else None
        observe = policy.spec.enforcement == Enforcement.OBSERVE or found is None
        return cls(Enforcement.OBSERVE if observe or found is None else found, policy.spec.selector)

    def selects(self, labels: Mapping[str, str]) -> bool:
        return self.selector is None or self.selector.matches(labels)


def gated(obj: Mapping[str, Any] | None, entries: Sequence[GateEntry]) -> bool:
    """Whether ``obj`` is gated: labelled, and selected by its policy (``entries``: the index's for the
    label's policy). A policy the webhook has not seen gates it: fail closed."""
    if obj is None or GATE_LABEL not in labels_of(obj):
        return False
    return not entries or entries[0].selects(labels_of(obj))


def request_of(
    new: Mapping[str, Any],
    old: Mapping[str, Any] | None,
    user: str,
    *,
    operator: str | None,
    entries: Callable[[str | None, str | None], Sequence[GateEntry]],
) -> Request:
    """An admission request as :func:`admit` reads it: ``entries(namespace, policy)`` is the index's
    word on a policy, ``operator`` the operator's own username (``None``: unknown, so nobody is)."""
    ns = _meta(new).get("namespace") or _meta(old).get("namespace")
    old_entries = entries(ns, labels_of(old).get(GATE_LABEL)) if old is not None else ()
    new_entries = entries(ns, labels_of(new).get(GATE_LABEL))
    return Request(
        new=new,
        old=old,
        user=user,
        by_operator=operator is not None and user == operator,
        gated_old=gated(old, old_entries),
        gated_new=gated(new, new_entries),
        enforcing=enforcing(new_entries),
        known=bool(new_entries),
    )


def break_glass_attributes(namespace: str, policy: str) -> dict[str, str]:
    """What the SubjectAccessReview of a break-glass asks."""
    return {
        "namespace": namespace,
        "verb": BREAK_GLASS_VERB,
        "group": GROUP,
        "resource": BREAK_GLASS_RESOURCE,
        "subresource": BREAK_GLASS_SUBRESOURCE,
        "name": policy,
    }


def enforcing(entries: Sequence[GateEntry]) -> bool:
    """Whether to pause: a policy the webhook has not seen (none indexed) holds, failing closed."""
    return not entries or entries[0].mode != Enforcement.OBSERVE


def admission_patch(decision: Admission, now: dt.datetime) -> dict[str, Any]:
    """The change to the admitted object: ``spec.paused`` (when held), the pending template's hash
    and when it was recorded (one rollout attempt), dropped protected annotations put back, and who
    broke the glass for which template."""
    ann: dict[str, Any] = dict(decision.restore)
    if decision.pending_hash is not None:
        ann[PENDING_ANNOTATION] = decision.pending_hash
        ann[PENDING_SINCE_ANNOTATION] = now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if decision.break_glass is not None:
        ann[BREAK_GLASS_BY_ANNOTATION] = decision.break_glass.user[:253]
        ann[BREAK_GLASS_TEMPLATE_ANNOTATION] = decision.break_glass.template
    patch: dict[str, Any] = {"metadata": {"annotations": ann}} if ann else {}
    spec: dict[str, Any] = {}
    if decision.pause:
        spec["paused"] = True
    if decision.label_template is not None:
        spec["template"] = {"metadata": {"labels": {GATE_LABEL: decision.label_template}}}
    if spec:
        patch["spec"] = spec
    return patch
