"""CaseSet and EvalProfile: validated at the edge, summarised in status with a Ready condition.

A CaseSet is resolved with its ``casesFrom`` ConfigMaps and compiled (a bad regex is caught here,
not in the middle of an exam); its status carries counts per tier and a content digest that covers
every case. An EvalProfile's status carries the dimensions it resolves to and the provenance of
its judge configuration. A timer re-resolves case sets so a changed ConfigMap changes the digest.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, cast

import kopf

from proctor.api import (
    FREEZE_BASELINE_ANNOTATION,
    FREEZE_BASELINE_RUNS_ANNOTATION,
    ManifestError,
    MissingReferenceError,
    content_digest,
    parse_caseset,
    parse_profile,
    resolve_cases,
)
from proctor.api.caseset import FrozenBaseline
from proctor.api.conditions import Condition, ConditionStatus, ConditionType, Reason, set_condition
from proctor.controllers.records import finished_runs, run_record
from proctor.controllers.runs import MANAGER, Runtime, _runtime
from proctor.graders import CaseSetProblem, ScanPolicy, compile_cases
from proctor.judge.client import JudgeSettings
from proctor.judge.prompts import policy_digest, provenance
from proctor.judge.rubrics import resolve_dimensions
from proctor.k8s.kube import KubeError
from proctor.protocol import DEFAULT_FREEZE_RUNS, Tier, freeze_eligibility

CASESET_RECHECK_SECONDS = 60.0


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def _ready(
    status: Mapping[str, Any], ok: bool, reason: str, message: str, gen: int | None
) -> list[dict[str, Any]]:
    conds = [Condition.model_validate(c) for c in status.get("conditions") or []]
    conds = set_condition(
        conds,
        ConditionType.READY,
        ConditionStatus.TRUE if ok else ConditionStatus.FALSE,
        reason,
        message[:1024],
        now=_now(),
        observed_generation=gen,
    )
    return [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in conds]


def _cond_key(c: Mapping[str, Any]) -> tuple[Any, ...]:
    return (c.get("type"), c.get("status"), c.get("reason"), c.get("message"))


async def _apply(rt: Runtime, kind: str, body: Mapping[str, Any], desired: dict[str, Any]) -> None:
    """Write the status only when something a reader would see changed."""
    current = body.get("status") or {}
    same_fields = all(current.get(k) == v for k, v in desired.items() if k != "conditions")
    have = {_cond_key(c) for c in current.get("conditions") or []}
    if same_fields and {_cond_key(c) for c in desired["conditions"]} <= have:
        return
    meta = body["metadata"]
    await rt.call(rt.kube.apply_status, kind, meta["namespace"], meta["name"], desired, MANAGER)


async def reconcile_caseset(rt: Runtime, body: Mapping[str, Any]) -> None:
    meta, status = body["metadata"], body.get("status") or {}
    gen = meta.get("generation")
    desired: dict[str, Any] = {"observedGeneration": gen}
    try:
        caseset = parse_caseset(dict(body))
        data = {
            r.name: await rt.call(rt.kube.get_configmap_data, meta["namespace"], r.name)
            for r in caseset.spec.cases_from
        }
        cases = resolve_cases(caseset, data)
        compile_cases(cases, where=f"CaseSet {meta['name']}")
    except KubeError as e:
        reason = Reason.CONFIG_MAP_NOT_FOUND if e.status == 404 else Reason.INVALID_CASES
        desired["conditions"] = _ready(status, False, reason, str(e), gen)
    except MissingReferenceError as e:
        desired["conditions"] = _ready(status, False, Reason.CONFIG_MAP_NOT_FOUND, "; ".join(e.problems), gen)
    except ManifestError as e:
        dup = any("duplicate case id" in p for p in e.problems)
        desired["conditions"] = _ready(
            status,
            False,
            Reason.DUPLICATE_CASE_IDS if dup else Reason.INVALID_CASES,
            "; ".join(e.problems[:5]),
            gen,
        )
    except CaseSetProblem as e:
        desired["conditions"] = _ready(status, False, Reason.INVALID_CASES, "; ".join(e.problems[:5]), gen)
    else:
        tiers = {t.value: sum(1 for c in cases if c.tier is t) for t in Tier}
        digest = content_digest(cases)
        desired |= {"caseCount": len(cases), "tiers": tiers, "digest": digest}
        if status.get("baseline"):
            desired["baseline"] = status["baseline"]
        desired["conditions"] = _ready(
            status,
            True,
            Reason.RESOLVED,
            f"{len(cases)} cases (safety {tiers['safety']}, trust {tiers['trust']}, form {tiers['form']})",
            gen,
        )
        token = (meta.get("annotations") or {}).get(FREEZE_BASELINE_ANNOTATION)
        if token and token != status.get("freezeRequest"):
            await _freeze(rt, body, digest, token, desired)
        elif status.get("freezeRequest"):
            desired["freezeRequest"] = status["freezeRequest"]
    await _apply(rt, "CaseSet", body, desired)


async def _freeze(
    rt: Runtime, body: Mapping[str, Any], digest: str, token: str, desired: dict[str, Any]
) -> None:
    """A person asked for a baseline: freeze it only under the protocol's rules, and say why not."""
    meta, status = body["metadata"], body.get("status") or {}
    required = int(
        (meta.get("annotations") or {}).get(FREEZE_BASELINE_RUNS_ANNOTATION, str(DEFAULT_FREEZE_RUNS))
    )
    runs = finished_runs(await rt.call(rt.kube.list_custom, "EvalRun", meta["namespace"]), meta["name"])
    history = [run_record(r) for r in runs]
    provenance = history[-1].provenance if history else ""
    decision = freeze_eligibility(history, digest=digest, provenance=provenance, required_runs=required)
    now = _now()
    conds = [Condition.model_validate(c) for c in desired.get("conditions") or status.get("conditions") or []]
    conds = set_condition(
        conds,
        ConditionType.BASELINE_FROZEN,
        ConditionStatus.TRUE if decision.allowed else ConditionStatus.FALSE,
        str(decision.reason),
        decision.message[:1024],
        now=now,
        observed_generation=meta.get("generation"),
    )
    desired["conditions"] = [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in conds]
    desired["freezeRequest"] = token
    if decision.allowed and decision.baseline is not None:
        frozen = FrozenBaseline.from_baseline(decision.baseline, frozen_at=now)
        desired["baseline"] = frozen.model_dump(mode="json", by_alias=True, exclude_none=True)
        kopf.event(cast(Any, body), type="Normal", reason="BaselineFrozen", message=decision.message[:1000])
    else:
        kopf.event(cast(Any, body), type="Warning", reason="BaselineRefused", message=decision.message[:1000])


async def reconcile_profile(rt: Runtime, body: Mapping[str, Any]) -> None:
    meta, status = body["metadata"], body.get("status") or {}
    gen = meta.get("generation")
    desired: dict[str, Any] = {"observedGeneration": gen}
    try:
        profile = parse_profile(dict(body))
        dims = resolve_dimensions(profile.spec)
        ScanPolicy.from_spec(profile.spec.safety_scan)
    except (ManifestError, ValueError) as e:
        msg = "; ".join(e.problems[:5]) if isinstance(e, ManifestError) else str(e)
        desired["conditions"] = _ready(status, False, Reason.INVALID_SPEC, msg, gen)
        await _apply(rt, "EvalProfile", body, desired)
        return
    resolved = {d.name: d for d in dims}
    desired["resolvedDimensions"] = [
        r.model_dump(mode="json", by_alias=True, exclude_none=True)
        for r in profile.spec.resolved_dimensions()
    ][:64]
    desired["dimensionCount"] = len(dims)
    prov: dict[str, str] = {}
    if profile.spec.judge is not None:
        settings = JudgeSettings.from_spec(profile.spec.judge)
        prov["judgePrompt"] = provenance(
            model=settings.model,
            parameters=settings.parameters(),
            rubrics={n: d.rubric for n, d in resolved.items()},
        )
    if profile.spec.grounding is not None:
        prov["grounding"] = policy_digest(profile.spec.grounding)
        desired["groundingDigest"] = prov["grounding"]
    if prov:
        prov["digest"] = policy_digest(prov)
        desired["provenance"] = prov
    judge = (
        f"judge {profile.spec.judge.model}"
        if profile.spec.judge
        else "no judge (judged dimensions are skipped)"
    )
    desired["conditions"] = _ready(status, True, Reason.RESOLVED, f"{len(dims)} dimensions; {judge}", gen)
    await _apply(rt, "EvalProfile", body, desired)


@kopf.on.resume("proctor.dev", "v1alpha1", "casesets", id="caseset-resume")
@kopf.on.create("proctor.dev", "v1alpha1", "casesets", id="caseset-create")
@kopf.on.update("proctor.dev", "v1alpha1", "casesets", id="caseset-update")
@kopf.timer(
    "proctor.dev",
    "v1alpha1",
    "casesets",
    id="caseset-recheck",
    interval=CASESET_RECHECK_SECONDS,
    initial_delay=CASESET_RECHECK_SECONDS,
)
async def on_caseset(body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
    await reconcile_caseset(_runtime(memo), cast(Mapping[str, Any], body))


@kopf.on.resume("proctor.dev", "v1alpha1", "evalprofiles", id="profile-resume")
@kopf.on.create("proctor.dev", "v1alpha1", "evalprofiles", id="profile-create")
@kopf.on.update("proctor.dev", "v1alpha1", "evalprofiles", id="profile-update")
async def on_profile(body: kopf.Body, memo: kopf.Memo, **_: Any) -> None:
    await reconcile_profile(_runtime(memo), cast(Mapping[str, Any], body))
