"""CaseSet: validated, resolved and summarised in status with a Ready condition; baselines frozen on
request.

A CaseSet is resolved with its ``casesFrom`` ConfigMaps and compiled (a bad regex is caught here,
not in the middle of an exam); its status carries counts per tier and a content digest that covers
every case. A person asks for a baseline with the annotation ``proctor.dev/freeze-baseline`` (a new
value is a new request); the protocol decides from the case set's most recent finished runs, and
``BaselineFrozen`` says why when it refuses. It is re-run every minute (a wake-up, not a Kopf
timer: nothing of Kopf's is stored in the object, so a CaseSet of any size applies and deletes
cleanly), so a changed ConfigMap changes the digest; between those, only an event that needs a
step (:func:`needs_step`) takes one.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from proctor.api import (
    FREEZE_BASELINE_ANNOTATION,
    FREEZE_BASELINE_RUNS_ANNOTATION,
    CaseSet,
    CaseSetStatus,
    Condition,
    ConditionStatus,
    ConditionType,
    EvalRun,
    FrozenBaseline,
    ManifestError,
    MissingReferenceError,
    Reason,
    content_digest,
    parse_caseset,
    parse_evalrun,
    resolve_cases,
    set_condition,
    tier_counts,
)
from proctor.graders import CaseSetProblem, compile_cases
from proctor.k8s.kube import KubeError
from proctor.protocol import DEFAULT_FREEZE_RUNS, FreezeDecision, freeze_eligibility
from proctor.reconcile.legacy import release_legacy
from proctor.reconcile.records import finished_runs, run_record
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime
from proctor.reconcile.status import write_status


def ready(
    conditions: Sequence[Condition],
    ok: bool,
    reason: str,
    message: str,
    *,
    now: dt.datetime,
    generation: int | None,
) -> list[Condition]:
    """The conditions with ``Ready`` set (the kinds without a lifecycle say only this)."""
    return set_condition(
        conditions,
        ConditionType.READY,
        ConditionStatus.TRUE if ok else ConditionStatus.FALSE,
        reason,
        message[:1024],
        now=now,
        observed_generation=generation,
    )


def invalid(error: Exception) -> tuple[str, str]:
    """Why a case set cannot be used: the Ready reason and message for the error resolving it."""
    if isinstance(error, KubeError):
        return (Reason.CONFIG_MAP_NOT_FOUND if error.status == 404 else Reason.INVALID_CASES), str(error)
    if isinstance(error, MissingReferenceError):
        return Reason.CONFIG_MAP_NOT_FOUND, "; ".join(error.problems)
    if isinstance(error, ManifestError):
        dup = any("duplicate case id" in p for p in error.problems)
        return (Reason.DUPLICATE_CASE_IDS if dup else Reason.INVALID_CASES), "; ".join(error.problems[:5])
    assert isinstance(error, CaseSetProblem)
    return Reason.INVALID_CASES, "; ".join(error.problems[:5])


def freeze_outcome(
    conditions: Sequence[Condition], decision: FreezeDecision, *, now: dt.datetime, generation: int | None
) -> tuple[list[Condition], FrozenBaseline | None]:
    """The BaselineFrozen condition for the protocol's decision, and the baseline when it allowed one."""
    conds = set_condition(
        conditions,
        ConditionType.BASELINE_FROZEN,
        ConditionStatus.TRUE if decision.allowed else ConditionStatus.FALSE,
        str(decision.reason),
        decision.message[:1024],
        now=now,
        observed_generation=generation,
    )
    frozen = None
    if decision.allowed and decision.baseline is not None:
        frozen = FrozenBaseline.from_baseline(decision.baseline, frozen_at=now)
    return conds, frozen


async def _runs_of(rt: Runtime, namespace: str, caseset: str) -> list[EvalRun]:
    """The case set's runs (the API server selects them: others in the namespace are not read)."""
    runs = []
    for raw in await rt.call(rt.kube.list_runs_of, namespace, caseset):
        try:
            runs.append(parse_evalrun(raw))
        except ManifestError:
            continue
    return runs


async def _freeze(
    rt: Runtime, caseset: CaseSet, about: ObjectRef, digest: str, desired: CaseSetStatus, out: Outcome
) -> CaseSetStatus:
    """A person asked for a baseline: freeze it only under the protocol's rules, and say why not."""
    annotations = caseset.metadata.annotations
    required = int(annotations.get(FREEZE_BASELINE_RUNS_ANNOTATION, str(DEFAULT_FREEZE_RUNS)))
    history = [
        run_record(r) for r in finished_runs(await _runs_of(rt, about.namespace, about.name), about.name)
    ]
    provenance = history[-1].provenance if history else ""
    decision = freeze_eligibility(history, digest=digest, provenance=provenance, required_runs=required)
    conds, frozen = freeze_outcome(
        desired.conditions, decision, now=rt.now(), generation=caseset.metadata.generation
    )
    update: dict[str, Any] = {"conditions": conds, "freeze_request": annotations[FREEZE_BASELINE_ANNOTATION]}
    token = annotations[FREEZE_BASELINE_ANNOTATION]
    if frozen is not None:
        update["baseline"] = frozen
        out.say(about, "Normal", "BaselineFrozen", decision.message, key=f"freeze:{token}")
    else:
        out.say(about, "Warning", "BaselineRefused", decision.message, key=f"freeze:{token}")
    return desired.model_copy(update=update)


def needs_step(body: Mapping[str, Any]) -> bool:
    """Whether an event about a CaseSet asks for a step: its spec changed since its status was
    written, it was never resolved, or a person asked for a new freeze. Its own status writes, and
    the run history its runs write, are events too; they need nothing."""
    meta, status = body.get("metadata") or {}, body.get("status") or {}
    if status.get("observedGeneration") != meta.get("generation"):
        return True
    if not any(c.get("type") == ConditionType.READY for c in status.get("conditions") or []):
        return True
    token = (meta.get("annotations") or {}).get(FREEZE_BASELINE_ANNOTATION)
    return bool(token) and token != status.get("freezeRequest")


async def caseset_event(rt: Runtime, body: Mapping[str, Any], *, always: bool) -> Outcome:
    """A step of the CaseSet when the event needs one (``always``: the operator's first look, a
    wake-up); what an older operator left on it is removed first. Asks to be looked at again."""
    about = ObjectRef.of(body)
    async with rt.lock(f"caseset:{about.namespace}/{about.name}"):
        if await release_legacy(rt, about, body.get("metadata") or {}):
            return Outcome(recheck=True)  # the patch is an event of its own, which takes the step
        if not (always or needs_step(body)):
            return Outcome()
        out = await reconcile_caseset(rt, body)
    out.recheck = True
    return out


async def reconcile_caseset(rt: Runtime, body: Mapping[str, Any]) -> Outcome:
    """Resolve, compile and summarise one CaseSet (and freeze its baseline when asked)."""
    out = Outcome()
    about = ObjectRef.of(body)
    meta = body["metadata"]
    gen = meta.get("generation")
    current = CaseSetStatus.model_validate(body.get("status") or {})
    now = rt.now()
    desired = CaseSetStatus(observed_generation=gen)
    try:
        caseset = parse_caseset(dict(body))
        data = {
            r.name: await rt.call(rt.kube.get_configmap_data, about.namespace, r.name)
            for r in caseset.spec.cases_from
        }
        cases = resolve_cases(caseset, data)
        compile_cases(cases, where=f"CaseSet {about.name}")
    except (KubeError, ManifestError, CaseSetProblem) as e:
        reason, message = invalid(e)
        conds = ready(current.conditions, False, reason, message, now=now, generation=gen)
        await write_status(
            rt, about, body.get("status") or {}, desired.model_copy(update={"conditions": conds})
        )
        return out
    tiers = tier_counts(cases)
    digest = content_digest(cases)
    desired = desired.model_copy(
        update={
            "case_count": len(cases),
            "tiers": tiers,
            "digest": digest,
            "conditions": ready(
                current.conditions,
                True,
                Reason.RESOLVED,
                f"{len(cases)} cases (safety {tiers.safety}, trust {tiers.trust}, form {tiers.form})",
                now=now,
                generation=gen,
            ),
        }
        | ({"baseline": current.baseline} if current.baseline is not None else {})
    )
    token = caseset.metadata.annotations.get(FREEZE_BASELINE_ANNOTATION)
    if token and token != current.freeze_request:
        desired = await _freeze(rt, caseset, about, digest, desired, out)
    elif current.freeze_request:
        desired = desired.model_copy(update={"freeze_request": current.freeze_request})
    await write_status(rt, about, body.get("status") or {}, desired)
    return out
