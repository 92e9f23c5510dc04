"""EvalProfile: validated, and summarised in status: the dimensions it resolves to, the provenance of
its judge configuration, a Ready condition, and whether its judge is trusted; a step when its spec
changes (a watch handler: Kopf stores nothing in the object), and every ``monitor_interval`` while a
collector is configured.

``JudgeTrusted`` is decided from people's reviews (arm C): the operator reads the profile's judge
quality from the collector (``GET /api/v1/judge-quality``, its own identity with ``get`` on
evalprofiles, as for monitors) and :func:`trust_status` (pure) writes per dimension a handful of
numbers (``status.judgeQuality``) and the condition (:func:`proctor.protocol.judge_trust`): False
``MissesBreaches`` naming each dimension whose recall bound is under ``spec.judgeTrust.recallFloor``,
Unknown ``TooFewReviews``, True ``RecallAboveFloor``; Unknown with the collector's reason when it
cannot be asked (its last figures stay)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, Final

from proctor.api import (
    Condition,
    ConditionStatus,
    ConditionType,
    DimensionQuality,
    EvalProfile,
    EvalProfileStatus,
    ManifestError,
    Provenance,
    Reason,
    parse_profile,
    set_condition,
)
from proctor.graders import ScanPolicy
from proctor.judge import DimensionRubric, resolve_dimensions
from proctor.judge.examine import profile_provenance
from proctor.protocol import DimensionTrust, judge_trust
from proctor.reconcile.casesets import needs_step, ready
from proctor.reconcile.legacy import release_legacy
from proctor.reconcile.monitors import Unreadable, reader
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime
from proctor.reconcile.status import write_status


def status_provenance(profile: EvalProfile) -> Provenance | None:
    """The profile's content-addressed versions as its status carries them: the judge Job's and the
    collector's own (:func:`proctor.judge.examine.profile_provenance`, the one place they are made)."""
    parts = profile_provenance(profile.spec)
    return Provenance.model_validate(parts) if parts else None


def resolved_status(
    profile: EvalProfile, dims: Sequence[DimensionRubric], base: EvalProfileStatus
) -> EvalProfileStatus:
    """A valid profile's status (conditions left to the caller)."""
    prov = status_provenance(profile)
    return base.model_copy(
        update={
            "resolved_dimensions": profile.spec.resolved_dimensions()[:64],
            "dimension_count": len(dims),
            "provenance": prov,
            "grounding_digest": prov.grounding if prov is not None else None,
        }
    )


def _number(value: Any, low: float, high: float) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        return None
    return float(value)


def dimension_quality(name: str, doc: Mapping[str, Any] | None, floor: float) -> DimensionQuality:
    """One dimension's summary from the collector's figures (absent: nobody reviewed it)."""
    doc = doc or {}
    reviews = doc.get("reviews")
    reviews = reviews if isinstance(reviews, int) and not isinstance(reviews, bool) and reviews >= 0 else 0
    recall_bounds = (
        (doc.get("intervals") or {}).get("recall") if isinstance(doc.get("intervals"), Mapping) else None
    )
    low = _number(recall_bounds[0], 0, 1) if isinstance(recall_bounds, list) and recall_bounds else None
    trust = DimensionTrust(reviews, low).trusted(floor)
    return DimensionQuality(
        name=name,
        reviews=reviews,
        agreement=_number(doc.get("agreement"), 0, 1),
        recall=_number(doc.get("recall"), 0, 1),
        recall_lower=low,
        kappa=_number(doc.get("kappa"), -1, 1),
        provisional=doc.get("provisional") is not False,
        trusted=trust,
    )


def trust_status(
    profile: EvalProfile,
    seen: Mapping[str, Any] | Unreadable,
    base: EvalProfileStatus,
    *,
    now: dt.datetime,
    generation: int | None,
) -> EvalProfileStatus:
    """``base`` with ``judgeQuality`` and ``JudgeTrusted`` from what the collector said (pure). Every
    dimension the profile judges counts: one nobody reviewed keeps it Unknown, never trusted."""
    floor = profile.spec.judge_trust.recall_floor
    if isinstance(seen, Unreadable):
        status, reason, message = ConditionStatus.UNKNOWN, seen.reason, seen.message
        dims = list(base.judge_quality)
    else:
        figures = seen.get("dimensions") or {}
        dims = [
            dimension_quality(d.name, figures.get(d.name), floor) for d in profile.spec.resolved_dimensions()
        ]
        trust = judge_trust({d.name: DimensionTrust(d.reviews, d.recall_lower) for d in dims}, floor)
        status = {True: ConditionStatus.TRUE, False: ConditionStatus.FALSE, None: ConditionStatus.UNKNOWN}[
            trust.trusted
        ]
        reason, message = Reason(trust.reason), trust.message
    conds: list[Condition] = set_condition(
        base.conditions,
        ConditionType.JUDGE_TRUSTED,
        status,
        reason,
        message[:1024],
        now=now,
        observed_generation=generation,
    )
    return base.model_copy(update={"judge_quality": dims, "conditions": conds})


#: Why the judge's trust is not known without a collector.
NO_COLLECTOR: Final = (
    "the operator has no collector to read people's reviews from (PROCTOR_COLLECTOR_URL; the Helm "
    "chart sets it with collector.enabled): the judge's recall on breaches is not measured"
)


async def judge_quality_seen(rt: Runtime, profile: EvalProfile) -> Mapping[str, Any] | Unreadable:
    """The profile's judge quality as the collector reports it, or why it cannot be read."""
    source = reader(rt)
    if source is None:
        return Unreadable(Reason.COLLECTOR_NOT_CONFIGURED, NO_COLLECTOR)
    ns, name = profile.metadata.namespace or "default", profile.metadata.name or ""
    return await source.judge_quality(ns, name, profile.spec.judge_trust.recall_floor)


async def profile_event(rt: Runtime, body: Mapping[str, Any], *, always: bool) -> Outcome:
    """A step of the profile when the event needs one (its spec changed, it was never validated;
    ``always``: the operator's first look); what an older operator left on it is removed first."""
    about = ObjectRef.of(body)
    if await release_legacy(rt, about, body.get("metadata") or {}):
        return Outcome()  # the patch is an event of its own, which takes the step
    if not (always or needs_step(body)):
        return Outcome()
    return await reconcile_profile(rt, body)


async def reconcile_profile(rt: Runtime, body: Mapping[str, Any]) -> Outcome:
    """Validate one EvalProfile and summarise it."""
    about = ObjectRef.of(body)
    gen = body["metadata"].get("generation")
    current = EvalProfileStatus.model_validate(body.get("status") or {})
    now = rt.now()
    desired = EvalProfileStatus(observed_generation=gen)
    try:
        profile = parse_profile(dict(body))
        dims = resolve_dimensions(profile.spec)
        ScanPolicy.from_spec(profile.spec.safety_scan)
    except (ManifestError, ValueError) as e:
        msg = "; ".join(e.problems[:5]) if isinstance(e, ManifestError) else str(e)
        conds = ready(current.conditions, False, Reason.INVALID_SPEC, msg, now=now, generation=gen)
        await write_status(
            rt, about, body.get("status") or {}, desired.model_copy(update={"conditions": conds})
        )
        return Outcome()
    judge = (
        f"judge {profile.spec.judge.model}"
        if profile.spec.judge
        else "no judge (judged dimensions are skipped)"
    )
    conds = ready(
        current.conditions, True, Reason.RESOLVED, f"{len(dims)} dimensions; {judge}", now=now, generation=gen
    )
    desired = resolved_status(profile, dims, desired).model_copy(
        update={"conditions": conds, "judge_quality": current.judge_quality}
    )
    seen = await judge_quality_seen(rt, profile)
    desired = trust_status(profile, seen, desired, now=now, generation=gen)
    await write_status(rt, about, body.get("status") or {}, desired)
    return Outcome(recheck=reader(rt) is not None)
