"""EvalProfile: validated, and summarised in status: the dimensions it resolves to, the provenance of
its judge configuration, and a Ready condition; a step when its spec changes (a watch handler:
Kopf stores nothing in the object)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from proctor.api import (
    EvalProfile,
    EvalProfileStatus,
    ManifestError,
    Provenance,
    Reason,
    parse_profile,
)
from proctor.graders import ScanPolicy
from proctor.judge import DimensionRubric, JudgeSettings, policy_digest, provenance, resolve_dimensions
from proctor.reconcile.casesets import needs_step, ready
from proctor.reconcile.legacy import release_legacy
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime
from proctor.reconcile.status import write_status


def profile_provenance(profile: EvalProfile, dims: Sequence[DimensionRubric]) -> Provenance | None:
    """Content-addressed versions of the judge prompt (model, parameters, rubrics) and the grounding."""
    spec = profile.spec
    parts: dict[str, str] = {}
    if spec.judge is not None:
        settings = JudgeSettings.from_spec(spec.judge)
        parts["judgePrompt"] = provenance(
            model=settings.model,
            parameters=settings.parameters(),
            rubrics={d.name: d.rubric for d in dims},
        )
    if spec.grounding is not None:
        parts["grounding"] = policy_digest(spec.grounding)
    if not parts:
        return None
    return Provenance.model_validate(parts | {"digest": policy_digest(parts)})


def resolved_status(
    profile: EvalProfile, dims: Sequence[DimensionRubric], base: EvalProfileStatus
) -> EvalProfileStatus:
    """A valid profile's status (conditions left to the caller)."""
    prov = profile_provenance(profile, dims)
    return base.model_copy(
        update={
            "resolved_dimensions": profile.spec.resolved_dimensions()[:64],
            "dimension_count": len(dims),
            "provenance": prov,
            "grounding_digest": prov.grounding if prov is not None else None,
        }
    )


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
    desired = resolved_status(profile, dims, desired).model_copy(update={"conditions": conds})
    await write_status(rt, about, body.get("status") or {}, desired)
    return Outcome()
