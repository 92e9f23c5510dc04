"""The operator performs an incident's approved recommendations (issue 29, seed 004 section 13:
gate on reversibility, not on confidence).

The collector keeps the incidents; its summary of a monitor lists the recommendations due
(``actions``: approved by a person, or proposed where the monitor's ``spec.actions`` policy Allows
the action; ``Deny`` is refused when someone approves). For each the operator, with its own
identity:

1. **claims** it from the collector (``POST .../claim``, RBAC verb ``perform``): only one claim
   wins, so an action is performed once even with two operators or a restart; a claim that is not
   finished within the collector's lease may be claimed again, and every action is idempotent;
2. **performs** it: :func:`plan` (pure) decides what to do from the recommendation and what the
   cluster holds, the Kubernetes calls are at the edge (:func:`perform_actions`);
3. **records** it: an Event on the AgentMonitor (and on the Deployment a rollback changes) and the
   outcome on the incident (``POST .../performed``: ``performed`` or ``refused`` with why).

The actions, all in the monitor's own namespace (a monitor names its CaseSet and Deployment by
name only, so a tenant cannot point the operator at another namespace):

- ``hold-canary``: the revision is added to the monitor's :data:`HOLD_CANARY_ANNOTATION`, so its
  live verdict answers INCONCLUSIVE;
- ``capture-cases``: the incident's breached runs, as redacted candidate cases, are appended to the
  ``spec.captureTo`` CaseSet (created, owned by nobody, when absent; a case already there is kept);
- ``rollback``: ``spec.target``'s Deployment gets the pod template its GatePolicy last approved, or,
  where no GatePolicy approved one, the previous ReplicaSet's (``kubectl rollout undo``); refused
  when there is no known good template;
- ``review-judge``: only an Event, asking a person to review the judge (``proctor feedback``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import structlog

from proctor.api import API_VERSION, HOLD_CANARY_ANNOTATION, AgentMonitor, ObjectMeta
from proctor.gate.admission import APPROVED_ANNOTATION, APPROVED_TEMPLATE_ANNOTATION, template_hash
from proctor.gate.pods import POD_TEMPLATE_HASH_LABEL, replicaset_template_hash
from proctor.k8s.kube import TRANSPORT_ERRORS, KubeError
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime

log = structlog.get_logger("proctor.reconcile.actions")

#: The annotation on a ReplicaSet with its Deployment revision (the Deployment controller's).
REVISION_ANNOTATION: Final = "deployment.kubernetes.io/revision"
#: Every revision held (the annotation's value).
ALL_REVISIONS: Final = "*"
#: Kubernetes answers that say the action cannot succeed as it stands (no retry helps).
PERMANENT_STATUSES: Final = frozenset({400, 403, 404, 422})
#: Actions performed at most in one step of a monitor (the rest wait for the next).
MAX_ACTIONS_PER_STEP: Final = 10
#: Reads of a CaseSet that changed under a write before the action waits for its claim's lease.
CONFLICT_ATTEMPTS: Final = 5


@dataclass(frozen=True)
class Pending:
    """One recommendation the collector says is due (its summary's ``actions``)."""

    incident: str
    recommendation: str
    revision: str | None = None
    failing: tuple[str, ...] = ()
    decided_by: str | None = None


def parse_pending(doc: Any) -> tuple[Pending, ...]:
    """The summary's ``actions`` (anything malformed is left out)."""
    out = []
    for a in doc if isinstance(doc, list) else []:
        if not (isinstance(a, Mapping) and isinstance(a.get("incident"), str)):
            continue
        if not isinstance(a.get("recommendation"), str):
            continue
        failing = a.get("failing")
        out.append(
            Pending(
                incident=a["incident"][:128],
                recommendation=a["recommendation"][:64],
                revision=str(a["revision"])[:255] if a.get("revision") else None,
                failing=tuple(str(f)[:63] for f in failing) if isinstance(failing, list) else (),
                decided_by=str(a["decidedBy"])[:320] if a.get("decidedBy") else None,
            )
        )
    return tuple(out)


@dataclass(frozen=True)
class Done:
    """What performing an action came to: performed (or refused) with a message for people."""

    performed: bool
    message: str
    #: Events on other objects than the monitor (the Deployment a rollback changed)
    also: tuple[ObjectRef, ...] = field(default=())


class Refused(Exception):
    """The action cannot be performed as things stand (the message says why)."""


class Later(Exception):
    """The action met a change it must look at again: its claim lapses and it is performed later."""


# --- the decisions (pure) -------------------------------------------------------------------------


def held(current: str | None, revision: str | None) -> str | None:
    """The hold-canary annotation with ``revision`` added (``*`` without one), or None when it holds
    that revision already."""
    names = [n.strip() for n in (current or "").split(",") if n.strip()]
    if ALL_REVISIONS in names or (revision is not None and revision in names):
        return None
    return ",".join([*names, revision or ALL_REVISIONS])


def merged_cases(
    existing: Sequence[Mapping[str, Any]], captured: Sequence[Mapping[str, Any]]
) -> tuple[list[dict[str, Any]], list[str]]:
    """The CaseSet's cases with the captured ones appended (a case whose id is there already is
    kept as it is, never duplicated) and the ids added."""
    ids = {str(c.get("id")) for c in existing}
    out = [dict(c) for c in existing]
    added = []
    for c in captured:
        cid = str(c.get("id"))
        if cid in ids:
            continue
        ids.add(cid)
        out.append(dict(c))
        added.append(cid)
    return out, added


def _owned_by(obj: Mapping[str, Any], uid: str | None) -> bool:
    return any(r.uid == uid for r in ObjectMeta.of(obj).owners("Deployment"))


def _revision_number(rs: Mapping[str, Any]) -> int:
    text = ObjectMeta.of(rs).annotations.get(REVISION_ANNOTATION)
    try:
        return int(text) if text is not None else -1
    except ValueError:
        return -1


def rollback_template(
    deployment: Mapping[str, Any], replicasets: Sequence[Mapping[str, Any]]
) -> tuple[dict[str, Any], str]:
    """The pod template to roll ``deployment`` back to and where it comes from; raises
    :class:`Refused` when there is no known good one. A GatePolicy's approval (its annotations on
    the Deployment) decides where there is one; else the newest ReplicaSet of the Deployment whose
    template is not the running one (``kubectl rollout undo``)."""
    meta = ObjectMeta.of(deployment)
    annotations = meta.annotations
    current = template_hash((deployment.get("spec") or {}).get("template"))
    approved = annotations.get(APPROVED_ANNOTATION)
    if approved is not None:
        try:
            template = json.loads(annotations.get(APPROVED_TEMPLATE_ANNOTATION) or "null")
        except ValueError:
            template = None
        if not isinstance(template, dict) or template_hash(template) != approved:
            raise Refused(
                "its GatePolicy's approved template cannot be read (the annotation was changed): no known "
                "good revision to roll back to"
            )
        if approved == current:
            raise Refused(
                f"the running template ({approved[:12]}) is the one its GatePolicy last approved: there is "
                "no earlier approved revision to roll back to"
            )
        return template, f"the template its GatePolicy last approved ({approved[:12]})"
    uid = meta.uid
    older = sorted(
        (
            rs
            for rs in replicasets
            if _owned_by(rs, uid)
            and _revision_number(rs) >= 0
            and replicaset_template_hash((rs.get("spec") or {}).get("template")) != current
        ),
        key=_revision_number,
        reverse=True,
    )
    if not older:
        raise Refused(
            "no GatePolicy approved a template and it has no earlier ReplicaSet: no known good revision "
            "to roll back to"
        )
    rs = older[0]
    template = dict((rs.get("spec") or {}).get("template") or {})
    tmeta = dict(template.get("metadata") or {})
    labels = {k: v for k, v in (tmeta.get("labels") or {}).items() if k != POD_TEMPLATE_HASH_LABEL}
    tmeta["labels"] = labels
    template["metadata"] = tmeta
    name = ObjectMeta.of(rs).name
    return template, f"the previous ReplicaSet's template ({name}, revision {_revision_number(rs)})"


def review_message(monitor: AgentMonitor, p: Pending) -> str:
    """The Event asking a person to review the judge (what to run)."""
    del monitor  # the incident names its runs; the monitor's name is in the Event's object
    dims = ", ".join(p.failing) or "the failing dimension"
    return (
        f"incident {p.incident}: the judge's samples disagreed on {dims}; a person should review its "
        f"scores: proctor incidents show {p.incident} lists the runs, then for each run the judge "
        "scored wrongly: proctor feedback RUN --dimension DIM --disagree --score N --reason '...'"
    )


# --- the edge ----------------------------------------------------------------------------------------


async def _hold_canary(rt: Runtime, monitor: AgentMonitor, p: Pending) -> Done:
    ns, name = monitor.metadata.namespace, monitor.metadata.name
    body = await rt.call(rt.kube.get, AgentMonitor.KIND, ns, name)
    current = ObjectMeta.of(body).annotations.get(HOLD_CANARY_ANNOTATION)
    value = held(current, p.revision)
    what = f"revision {p.revision}" if p.revision else "every revision"
    if value is None:
        return Done(True, f"the canary of {what} was held already ({HOLD_CANARY_ANNOTATION}={current})")
    patch = {"metadata": {"annotations": {HOLD_CANARY_ANNOTATION: value}}}
    await rt.call(rt.kube.patch_custom, AgentMonitor.KIND, ns, name, patch)
    return Done(
        True, f"held the canary of {what}: {HOLD_CANARY_ANNOTATION}={value} (its verdict is INCONCLUSIVE)"
    )


async def _capture(rt: Runtime, monitor: AgentMonitor, cases: Sequence[Mapping[str, Any]]) -> Done:
    """Append the cases to the CaseSet, reading it again when it changed between the read and the
    write (the operator's own CaseSet handler writes the status of a CaseSet just created): a
    conflict is met again at once, not after the claim's lease."""
    ref, ns = monitor.spec.capture_to, monitor.metadata.namespace or ""
    if ref is None:
        raise Refused("spec.captureTo names no CaseSet to add the cases to (proctor cases export writes one)")
    if not cases:
        raise Refused("none of the incident's runs left an answer to learn from: nothing to capture")
    why = ""
    for _ in range(CONFLICT_ATTEMPTS):
        try:
            return await _capture_once(rt, ns, ref.name, cases)
        except Later as e:
            why = str(e)
        except KubeError as e:
            if e.status != 409:
                raise
            why = str(e)
    raise Later(f"CaseSet {ns}/{ref.name} kept changing: {why}")


async def _capture_once(rt: Runtime, ns: str, name: str, cases: Sequence[Mapping[str, Any]]) -> Done:
    found = await rt.call(rt.kube.get_or_none, "CaseSet", ns, name)
    if found is None:
        obj = {
            "apiVersion": API_VERSION,
            "kind": "CaseSet",
            "metadata": {"name": name, "namespace": ns},
            "spec": {"cases": [dict(c) for c in cases]},
        }
        if await rt.call(rt.kube.create_custom, "CaseSet", ns, obj) is None:
            raise Later(f"CaseSet {ns}/{name} was created meanwhile")
        return Done(True, f"created CaseSet {name} with {len(cases)} captured case(s)")
    existing = list(((found.get("spec") or {}).get("cases")) or [])
    merged, added = merged_cases(existing, cases)
    if not added:
        return Done(True, f"CaseSet {name} holds the incident's {len(cases)} captured case(s) already")
    version = ObjectMeta.of(found).resource_version
    patch = {"metadata": {"resourceVersion": version}, "spec": {"cases": merged}}  # 409 if it changed
    await rt.call(rt.kube.patch_custom, "CaseSet", ns, name, patch)
    return Done(True, f"added {len(added)} captured case(s) to CaseSet {name}: {', '.join(added[:5])}")


async def _rollback(rt: Runtime, monitor: AgentMonitor) -> Done:
    target = monitor.spec.target
    if target is None:
        raise Refused("spec.target names no Deployment: the operator does not know what runs the agent")
    ns = monitor.metadata.namespace
    deployment = await rt.call(rt.kube.get_deployment, ns, target.name)
    if deployment is None:
        raise Refused(f"Deployment {target.name} (spec.target) does not exist in {ns}")
    labels = ((deployment.get("spec") or {}).get("selector") or {}).get("matchLabels") or {}
    selector = ",".join(f"{k}={v}" for k, v in sorted(labels.items()))
    replicasets = await rt.call(rt.kube.list_replicasets, ns, selector) if selector else []
    template, source = rollback_template(deployment, replicasets)
    await rt.call(rt.kube.patch_deployment, ns, target.name, {"spec": {"template": template}})
    ref = ObjectRef.of(deployment, kind="Deployment", api_version="apps/v1")
    return Done(True, f"rolled Deployment {target.name} back to {source}", also=(ref,))


async def _perform(rt: Runtime, monitor: AgentMonitor, p: Pending, claim: Mapping[str, Any]) -> Done:
    rec = p.recommendation
    if rec == "hold-canary":
        return await _hold_canary(rt, monitor, p)
    if rec == "capture-cases":
        cases = [c for c in claim.get("cases") or [] if isinstance(c, Mapping)]
        return await _capture(rt, monitor, cases)
    if rec == "rollback":
        return await _rollback(rt, monitor)
    if rec == "review-judge":
        return Done(True, review_message(monitor, p))
    raise Refused(f"{rec} is not in the catalogue")


async def perform_actions(
    rt: Runtime, source: Any, monitor: AgentMonitor, about: ObjectRef, due: Sequence[Pending], out: Outcome
) -> None:
    """Claim, perform and record each due action (at most :data:`MAX_ACTIONS_PER_STEP`). A
    transient failure leaves the claim to lapse (performed again after the collector's lease);
    a permanent one is recorded as ``refused`` with why, and said as a Warning Event."""
    for p in due[:MAX_ACTIONS_PER_STEP]:
        claim = await source.claim(p.incident, p.recommendation)
        if not isinstance(claim, Mapping):
            continue  # another operator holds it, or it is done; or the collector is unreachable
        what = f"{p.recommendation} (incident {p.incident}"
        what += f", approved by {p.decided_by})" if p.decided_by else ")"
        try:
            done = await _perform(rt, monitor, p, claim)
        except Refused as e:
            done = Done(False, str(e))
        except KubeError as e:
            if e.status not in PERMANENT_STATUSES:
                log.warning("action failed; performed again later", action=what, error=str(e)[:300])
                continue
            done = Done(False, f"the API server refused it: {e}"[:1024])
        except Later as e:
            log.info("action performed again later", action=what, why=str(e))
            continue
        except TRANSPORT_ERRORS as e:
            log.warning("action failed; performed again later", action=what, error=type(e).__name__)
            continue
        key = f"action|{p.incident}|{p.recommendation}"
        if done.performed:
            out.say(about, "Normal", "ActionPerformed", f"{what}: {done.message}", key=key)
        else:
            out.say(about, "Warning", "ActionRefused", f"{what} not performed: {done.message}", key=key)
        for other in done.also:
            out.say(
                other,
                "Normal",
                "ActionPerformed",
                f"AgentMonitor {about.name}: {what}: {done.message}",
                key=key,
            )
        await source.finish(p.incident, p.recommendation, done.performed, done.message)
        await asyncio.sleep(0)
