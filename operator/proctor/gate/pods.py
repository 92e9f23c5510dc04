"""Held means no pod of an unapproved template runs: the gate at the layer that makes pods. Pure.

``spec.paused`` stops the Deployment controller from rolling out a new template, not from scaling
what exists: scaling a held Deployment (its scale subresource) to 0 and back makes the controller
scale the newest ReplicaSet, which may be one of the failed template. So the webhook also decides,
for every gated Deployment (:class:`Gated`: labelled, selected by its policy, which enforces):

- a ReplicaSet the Deployment owns, or whose pod template its selector matches (pods its Service
  would route to), may be created with replicas, scaled up (an update or ``replicasets/scale``) or
  given another template only when that template (less the controller's ``pod-template-hash``
  label) is the approved one (:data:`~proctor.gate.admission.APPROVED_ANNOTATION`) or the one a
  person broke the glass for. Scaling down and to zero always passes: the Deployment and
  ReplicaSet controllers must drain a failed template, and a rollback restores the approved one.
  Refused, not mutated to zero: a mutation would be admitted as a change, which the Deployment
  controller answers by trying again at once (a hot loop that also hides why nothing runs); a
  refusal is retried with the controller's back-off and says why to whoever asked.
- a Pod whose labels the Deployment's selector matches is made only by the ReplicaSet controller
  (kube-controller-manager's identity) for a ReplicaSet of an approved template; any other Pod with
  those labels (a bare Pod, a Job's, another controller's) is refused, whatever it runs: the gate
  cannot tell what a hand-made Pod is, and its Service would route traffic to it.

A policy that observes (or a Deployment it does not select) holds nothing here: shadow mode rolls
out. A label naming a policy the webhook does not know holds (fail closed), as for Deployments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proctor.api.policy import LabelSelector
from proctor.gate.admission import (
    APPROVED_ANNOTATION,
    BREAK_GLASS_TEMPLATE_ANNOTATION,
    GATE_LABEL,
    Admission,
    GateEntry,
    annotations_of,
    content_unapproved,
    enforcing,
    gated,
    labels_of,
    refused,
    template_hash,
)

#: The label the Deployment controller adds to a ReplicaSet's template (its own hash of it).
POD_TEMPLATE_HASH_LABEL = "pod-template-hash"
#: Who makes a ReplicaSet's pods: kube-controller-manager, as itself or (with
#: ``--use-service-account-credentials``) as the ReplicaSet controller's ServiceAccount.
POD_MAKERS: tuple[str, ...] = (
    "system:kube-controller-manager",
    "system:serviceaccount:kube-system:replicaset-controller",
)
#: What a refusal tells the person who asked (the admission error is all they see).
HOW_TO = (
    "the Proctor gate allows only the approved template to run: wait for the exam (kubectl describe "
    "gatepolicy), roll back, or break the glass on the Deployment"
)


def replicaset_template_hash(template: Mapping[str, Any] | None) -> str:
    """The hash of a ReplicaSet's template as the gate approved it on its Deployment: the Deployment
    controller copies the Deployment's template and adds only :data:`POD_TEMPLATE_HASH_LABEL`."""
    template = dict(template or {})
    meta = dict(template.get("metadata") or {})
    meta["labels"] = {k: v for k, v in (meta.get("labels") or {}).items() if k != POD_TEMPLATE_HASH_LABEL}
    template["metadata"] = meta
    return template_hash(template)


@dataclass(frozen=True, slots=True)
class Gated:
    """A gated Deployment as this check reads it: what it selects and which templates may run."""

    name: str
    uid: str
    policy: str
    selector: LabelSelector | None
    approved: frozenset[str]
    enforcing: bool
    #: what the approved template reads changed since its approval (a pending identity): nothing runs
    content_changed: bool = False

    @classmethod
    def of(cls, obj: Mapping[str, Any], entries: Sequence[GateEntry]) -> Gated | None:
        """``obj`` (a listed Deployment) if its policy gates it (``entries``: the webhook's index for its
        label's policy; none known holds), else ``None``. A selector that cannot be read selects
        every pod of the namespace (fail closed)."""
        if not gated(obj, entries):
            return None
        meta = obj.get("metadata") or {}
        ann = annotations_of(obj)
        try:
            selector = LabelSelector.model_validate((obj.get("spec") or {}).get("selector") or {})
        except ValueError:
            selector = None
        kinds = (APPROVED_ANNOTATION, BREAK_GLASS_TEMPLATE_ANNOTATION)
        approved = frozenset(v for k in kinds if (v := ann.get(k)))
        changed = content_unapproved(ann)
        if changed:
            # a ConfigMap, the cases or the policy changed under the approved template: what its pods
            # would read is unexamined, so no template of this Deployment may make pods until it passes
            approved = frozenset()
        return cls(
            name=str(meta.get("name", "")),
            uid=str(meta.get("uid", "")),
            policy=labels_of(obj).get(GATE_LABEL, ""),
            selector=selector,
            approved=approved,
            enforcing=enforcing(entries),
            content_changed=changed,
        )

    def selects(self, labels: Mapping[str, str]) -> bool:
        return self.selector is None or self.selector.matches(labels)


def _owner_uids(obj: Mapping[str, Any], kind: str) -> set[str]:
    owners = (obj.get("metadata") or {}).get("ownerReferences") or []
    return {str(o.get("uid")) for o in owners if o.get("kind") == kind and o.get("controller")}


def governing(obj: Mapping[str, Any], labels: Mapping[str, str], deployments: Sequence[Gated]) -> list[Gated]:
    """The enforcing gated Deployments that own ``obj`` or whose selector matches ``labels`` (the labels
    of the pods it is or makes)."""
    owners = _owner_uids(obj, "Deployment")
    return [d for d in deployments if d.enforcing and (d.uid in owners or d.selects(labels))]


def _replicas(obj: Mapping[str, Any] | None) -> int:
    value = ((obj or {}).get("spec") or {}).get("replicas")
    return int(value) if isinstance(value, int) else 1 if obj is not None else 0


def adds_pods(new: Mapping[str, Any], old: Mapping[str, Any] | None) -> bool:
    """Whether a ReplicaSet write (or a scale of one: the same ``spec.replicas``) can start a pod:
    more replicas than before, or another template with any (a create is from zero)."""
    replicas = _replicas(new)
    if replicas <= 0:
        return False
    if old is None:
        return True
    spec, before = new.get("spec") or {}, old.get("spec") or {}
    return replicas > _replicas(old) or ("template" in spec and spec["template"] != before.get("template"))


def admit_replicaset(
    rs: Mapping[str, Any], deployments: Sequence[Gated], *, what: str = "ReplicaSet"
) -> Admission:
    """May the pods of ``rs`` (as it would be stored) run: its template is the approved one of every
    enforcing gated Deployment that owns it or selects its pods. Call it only for a write that adds
    pods (:func:`adds_pods`)."""
    template = (rs.get("spec") or {}).get("template") or {}
    labels = labels_of(template)
    h = replicaset_template_hash(template)
    name = (rs.get("metadata") or {}).get("name") or (rs.get("metadata") or {}).get("generateName") or "?"
    for d in governing(rs, labels, deployments):
        if d.content_changed:
            return refused(
                f"{what} {name}: what Deployment {d.name}'s approved template reads (a ConfigMap, its cases "
                f"or its GatePolicy {d.policy or '?'}) changed since the approval, so no pod may start until "
                f"the new content is examined (scaling down is allowed); {HOW_TO}"
            )
        if h not in d.approved:
            return refused(
                f"{what} {name}: its pod template {h[:19]} is not the one GatePolicy {d.policy or '?'} "
                f"approved for Deployment {d.name}, so it may not be created with replicas or scaled up "
                f"(scaling down is allowed); {HOW_TO}"
            )
    return Admission(message="not a held template")


def admit_pod(
    pod: Mapping[str, Any], user: str, deployments: Sequence[Gated], *, owner: Mapping[str, Any] | None
) -> Admission:
    """May ``pod`` be created: it carries no enforcing gated Deployment's selector labels, or the
    ReplicaSet controller makes it for ``owner`` (its controlling ReplicaSet, as stored; ``None``:
    it names none, or that one does not exist), whose template passes :func:`admit_replicaset`."""
    labels = labels_of(pod)
    mine = [d for d in deployments if d.enforcing and d.selects(labels)]
    if not mine:
        return Admission(message="not a gated workload's pod")
    name = (pod.get("metadata") or {}).get("name") or (pod.get("metadata") or {}).get("generateName") or "?"
    if user in POD_MAKERS and owner is not None:
        owners = _owner_uids(pod, "ReplicaSet")
        if str((owner.get("metadata") or {}).get("uid")) in owners:
            decision = admit_replicaset(owner, deployments)
            if not decision.allowed:
                return refused(f"Pod {name} of {decision.message}")
            return decision
    d = mine[0]
    return refused(
        f"Pod {name}: it carries the labels of Deployment {d.name}, gated by GatePolicy {d.policy or '?'}, "
        f"whose pods only its ReplicaSets make (with an approved template); {user or 'this caller'} may not "
        "create it by hand (the Proctor gate). Run it without those labels, or change the Deployment and let "
        "the gate examine it"
    )
