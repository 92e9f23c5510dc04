"""GatePolicy: examine each gated Deployment's pending pod template and act on the verdict.

For every Deployment labelled ``proctor.dev/gate-policy: <policy>``: when its pod template is not the
approved one (the webhook recorded it as pending), create an EvalRun whose target is that template
(the candidate runs as a sidecar of the judge Job); when the run has a verdict, act as
:mod:`proctor.gate.actions` decides and record it on the policy's status and as Events on the
Deployment and the policy. Before it may block, a policy runs its determinism canary: N runs on the
approved revision must agree on the safety tier; until then it observes.

Gather (the policy, its references, its Deployments, the canary's and the exams' runs), evaluate
(:mod:`proctor.gate.actions`: the rollout step, the verdict chain, the breaker; the conditions
below), act (create runs, patch Deployments), write the status if it changed.
"""

from __future__ import annotations

import datetime as dt
import json
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from proctor.api import (
    BREAK_GLASS_ANNOTATION,
    REEXAMINE_ANNOTATION,
    RESET_CIRCUIT_BREAKER_ANNOTATION,
    CanaryStatus,
    CircuitBreakerSpec,
    CircuitBreakerStatus,
    Condition,
    ConditionStatus,
    ConditionType,
    Enforcement,
    EvalRun,
    GatedWorkload,
    GatePolicy,
    GatePolicyStatus,
    JudgeTrustAction,
    ManifestError,
    ObjectMeta,
    Reason,
    VerdictName,
    WorkloadBreaker,
    content_digest,
    dump,
    format_time,
    get_condition,
    parse_caseset,
    parse_evalrun,
    parse_policy,
    resolve_cases,
    set_condition,
)
from proctor.gate.actions import (
    WEBHOOK_DISABLED,
    Action,
    BreakerWindow,
    CanarySubject,
    GateDecision,
    Mode,
    Step,
    WebhookState,
    awaiting,
    breaker_after,
    breaker_reason,
    breaker_reset,
    breaker_window,
    canary_hold,
    canary_revokes,
    canary_subject,
    counts_as_block,
    decide,
    effective_mode,
    event_reason,
    exam_step,
    first_approval,
    held_condition,
    judge_trust_view,
    reexam,
    template_to_examine,
    webhook_reached,
    webhook_unreachable,
)
from proctor.gate.admission import (
    APPROVED_ANNOTATION,
    APPROVED_IDENTITY_ANNOTATION,
    APPROVED_TEMPLATE_ANNOTATION,
    BREAK_GLASS_BY_ANNOTATION,
    BREAK_GLASS_TEMPLATE_ANNOTATION,
    GATE_LABEL,
    PENDING_ANNOTATION,
    PENDING_IDENTITY_ANNOTATION,
    PENDING_SINCE_ANNOTATION,
    content_unapproved,
    template_hash,
)
from proctor.gate.identity import (
    ConfigMapContent,
    ExamContext,
    approval_identity,
    case_versions,
    observed_digest,
    references,
    tier_floor_problems,
    undeclared_secrets,
)
from proctor.k8s.kube import KubeError
from proctor.k8s.objects import (
    EXAMINED_IDENTITY_ANNOTATION,
    LABEL_GATE_KIND,
    PROBE_ANSWER_ANNOTATION,
    PROBE_LABEL,
    policy_run,
)
from proctor.protocol import Canary, Determinism, Tier, canary_state
from proctor.reconcile.legacy import release_legacy
from proctor.reconcile.records import run_record
from proctor.reconcile.runtime import ObjectRef, Outcome, Runtime
from proctor.reconcile.status import write_status

log = structlog.get_logger("proctor.gates")


def short(h: str | None) -> str | None:
    """A template hash as status shows it (the first 12 hex digits)."""
    return h.removeprefix("sha256:")[:12] if h else None


@dataclass(frozen=True)
class Workload:
    """A gated Deployment, as the gate reads it."""

    ref: ObjectRef
    annotations: Mapping[str, str]
    paused: bool
    template: Mapping[str, Any]
    #: pods of the running template exist (the Deployment's status.updatedReplicas)
    exposed: bool = False

    @classmethod
    def of(cls, obj: Mapping[str, Any]) -> Workload:
        # listed items carry no kind: Events need it to reference the Deployment
        ref = ObjectRef.of(obj, kind="Deployment", api_version="apps/v1")
        spec = obj.get("spec") or {}
        annotations = (obj.get("metadata") or {}).get("annotations") or {}
        updated = (obj.get("status") or {}).get("updatedReplicas")
        exposed = isinstance(updated, int) and updated > 0
        return cls(ref, dict(annotations), bool(spec.get("paused")), spec.get("template") or {}, exposed)

    @property
    def name(self) -> str:
        return self.ref.name

    @property
    def current(self) -> str:
        return template_hash(self.template)

    @property
    def pending(self) -> str | None:
        return self.annotations.get(PENDING_ANNOTATION)

    @property
    def approved(self) -> str | None:
        return self.annotations.get(APPROVED_ANNOTATION)

    @property
    def approved_identity(self) -> str | None:
        return self.annotations.get(APPROVED_IDENTITY_ANNOTATION)

    @property
    def approved_template(self) -> dict[str, Any] | None:
        """The approved template, when the annotation holds one whose hash is the approved hash."""
        text = self.annotations.get(APPROVED_TEMPLATE_ANNOTATION)
        try:
            template = None if text is None else dict(json.loads(text))
        except (ValueError, TypeError):
            return None
        return template if template is not None and template_hash(template) == self.approved else None

    @property
    def attempt(self) -> str:
        """When the webhook recorded the pending template: one rollout attempt (none when the template
        it recorded is not the one running)."""
        return (self.annotations.get(PENDING_SINCE_ANNOTATION) or "") if self.pending == self.current else ""

    @property
    def break_glass(self) -> tuple[str, str] | None:
        """Who broke the glass for the running template, and why (the webhook recorded it)."""
        if self.annotations.get(BREAK_GLASS_TEMPLATE_ANNOTATION) != self.current:
            return None
        return (
            self.annotations.get(BREAK_GLASS_BY_ANNOTATION, "?"),
            self.annotations.get(BREAK_GLASS_ANNOTATION, ""),
        )


# --- evaluate (pure) -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Identity:
    """What an exam of a workload examines (:mod:`proctor.gate.identity`): its digest, the versions it
    was read at, and why it cannot be examined (empty: it can)."""

    digest: str
    observed: str
    problems: tuple[str, ...] = ()


def exam_name(workload: str, identity: Identity) -> str:
    """The exam of one identity, read at one set of versions: other content (a ConfigMap, the cases,
    the policy), or the same content written again while an exam ran, is another exam, so a PASS on
    other content is never found under this name."""
    return f"{workload}-{short(identity.digest)}-{identity.observed.removeprefix('sha256:')[:6]}"[:253]


def run_problem(
    run: EvalRun,
    policy: GatePolicy,
    kind: str,
    template: str,
    *,
    identity: str | None = None,
    case_digest: str | None = None,
) -> str | None:
    """Why ``run`` is not this policy's ``kind`` run of the template with hash ``template`` (None
    when it is): the gate decides only from runs it made, for what it asked. Anyone who may create
    EvalRuns can make one of the same name; an owner reference or a label proves nothing by itself,
    so what is examined, on which cases, under which profile and candidate, is compared too."""
    name = run.metadata.name
    meta, spec = policy.metadata, policy.spec
    if not any(o.uid == meta.uid for o in run.metadata.owners("GatePolicy", controller=True)):
        return f"EvalRun {name} is not owned by GatePolicy {meta.name}"
    labels = run.metadata.labels
    if labels.get(GATE_LABEL) != meta.name or labels.get(LABEL_GATE_KIND) != kind:
        return f"EvalRun {name} lacks the labels of the policy's {kind} runs"
    t, r = run.spec.target, run.spec
    if t.pod_template is None or template_hash(t.pod_template) != template:
        return f"EvalRun {name} examines another pod template than {short(template)}"
    if (r.policy_ref.name if r.policy_ref else None) != meta.name:
        return f"EvalRun {name} is not decided under GatePolicy {meta.name}"
    if r.case_set_ref.name != spec.case_set_ref.name or (r.profile_ref.name if r.profile_ref else None) != (
        spec.profile_ref.name if spec.profile_ref else None
    ):
        return f"EvalRun {name} examines another case set or profile than the policy names"
    if (dump(t.candidate) if t.candidate else None) != (dump(spec.candidate) if spec.candidate else None):
        return f"EvalRun {name} reaches the candidate otherwise than the policy says"
    if identity is not None and run.metadata.annotations.get(EXAMINED_IDENTITY_ANNOTATION) != identity:
        return f"EvalRun {name} examines another identity than {short(identity)}"
    snapshot = run.status.snapshot if run.status is not None else None
    if case_digest is not None and snapshot is not None and snapshot.digest != case_digest:
        return f"EvalRun {name} pinned other cases ({snapshot.digest[:19]}) than the policy's now"
    return None


def canary_names(policy: GatePolicy, revision: str) -> list[str]:
    gen = policy.metadata.generation or 1
    return [
        f"{policy.metadata.name}-canary-g{gen}-{revision}-{i}"[:253]
        for i in range(1, policy.spec.canary.runs + 1)
    ]


def canary_result(
    runs: Sequence[EvalRun], names: Sequence[str], required: int
) -> tuple[Canary | None, CanaryStatus]:
    """The canary's finding once ``required`` of its runs finished (else None), and its progress."""
    done = [
        r for r in runs if r.status is not None and r.status.phase is not None and r.status.phase.terminal
    ]
    rates = [rate for r in done if (rate := run_record(r).rates.get(Tier.SAFETY)) is not None]
    status = CanaryStatus(required=required, runs=list(names), safety_rates=[float(x) for x in rates])
    if len(done) < required:
        return None, status
    return canary_state([run_record(r) for r in done], required), status


def workload_entry(w: Workload, prev: GatedWorkload | None) -> GatedWorkload:
    """A Deployment's status entry before this step's exam: its revisions, and what is known of its
    latest exam."""
    kept = {k: v for k in ("verdict", "run", "attempt") if prev is not None and (v := getattr(prev, k))}
    return GatedWorkload(name=w.name, revision=short(w.current), approved_revision=short(w.approved), **kept)


def policy_conditions(
    conditions: Sequence[Condition],
    *,
    mode: Mode,
    canary: Canary | None,
    blocked: Sequence[GatedWorkload],
    breakers: Mapping[str, int],
    spec: CircuitBreakerSpec,
    now: dt.datetime,
    generation: int | None,
    judge_hold: bool = False,
) -> list[Condition]:
    """Enforcing, Deterministic, RolloutBlocked and CircuitOpen, from what the step found
    (``breakers``: the Deployments whose breaker is open, and their blocks in the window;
    ``judge_hold``: passing verdicts are held because the judge misses breaches)."""

    def put(
        conds: list[Condition], type_: str, status: ConditionStatus, reason: str, msg: str
    ) -> list[Condition]:
        return set_condition(conds, type_, status, reason, msg, now=now, observed_generation=generation)

    conds = put(
        list(conditions),
        ConditionType.ENFORCING,
        ConditionStatus.TRUE if mode.enforce else ConditionStatus.FALSE,
        mode.reason,
        mode.message,
    )
    if canary is None:
        det = (ConditionStatus.UNKNOWN, "NotEnoughRuns", "the canary needs an approved revision and its runs")
    else:
        det = (ConditionStatus(canary.state.value), str(canary.reason), canary.message)
    conds = put(conds, ConditionType.DETERMINISTIC, *det)
    if blocked:
        failed = any(w.verdict is VerdictName.FAIL for w in blocked)
        held = all(w.verdict is VerdictName.PASS for w in blocked)  # PASSes the canary holds
        passing = all(w.verdict in (VerdictName.PASS, VerdictName.WARN) for w in blocked)
        reason = (
            Reason.VERDICT_FAILED
            if failed
            else Reason.JUDGE_NOT_TRUSTED
            if judge_hold and passing
            else Reason.CANARY_UNSETTLED
            if held
            else Reason.VERDICT_ERROR
        )
    else:
        reason = Reason.NOT_BLOCKED if mode.enforce else Reason.OBSERVE_ONLY
    conds = put(
        conds,
        ConditionType.ROLLOUT_BLOCKED,
        ConditionStatus.TRUE if blocked else ConditionStatus.FALSE,
        reason,
        "; ".join(f"{w.name}: {w.message}" for w in blocked)[:1024] or "no gated rollout is held",
    )
    why, message = breaker_reason(breakers, spec, RESET_CIRCUIT_BREAKER_ANNOTATION)
    return put(
        conds,
        ConditionType.CIRCUIT_OPEN,
        ConditionStatus.TRUE if breakers else ConditionStatus.FALSE,
        why,
        message,
    )


# --- gather and act --------------------------------------------------------------------------------


async def _get_run(rt: Runtime, ns: str, name: str) -> EvalRun | None:
    raw = await rt.call(rt.kube.get_or_none, "EvalRun", ns, name)
    return None if raw is None else parse_evalrun(raw)


def workload_query(policy: GatePolicy) -> str:
    """The label selector of the Deployments a policy gates: its label, and its selector if set."""
    query = f"{GATE_LABEL}={policy.metadata.name}"
    extra = policy.spec.selector.query() if policy.spec.selector is not None else ""
    return f"{query},{extra}" if extra else query


async def _workloads(rt: Runtime, policy: GatePolicy) -> tuple[list[Workload], str | None]:
    """The gated Deployments; none, and why, when the API server refuses the selector."""
    ns = policy.metadata.namespace or ""
    try:
        found = await rt.call(rt.kube.list_deployments, ns, workload_query(policy))
    except KubeError as e:
        if e.status != 400:
            raise
        return [], f"spec.selector: {e}"[:1024]
    return [Workload.of(d) for d in found], None


def pinned_subject(status: CanaryStatus | None) -> CanarySubject | None:
    """The canary's subject as the policy's status pinned it (None: not pinned yet)."""
    if status is None or not status.workload or not status.revision or status.generation is None:
        return None
    return CanarySubject(status.workload, status.revision, status.generation)


@dataclass(frozen=True)
class CanaryFinding:
    """What the canary found this step: its finding (None until its runs finished), its progress,
    why some of its runs are not believed, its subject, and whether a run FAILed the subject."""

    canary: Canary | None = None
    status: CanaryStatus | None = None
    tampered: str | None = None
    subject: CanarySubject | None = None
    failed: bool = False


async def _canary(
    rt: Runtime, policy: GatePolicy, workloads: Sequence[Workload], pinned: CanarySubject | None
) -> CanaryFinding:
    """Run (or read) the canary: repeated runs on the approved revision of its pinned subject (see
    :func:`~proctor.gate.actions.canary_subject`); runs that are not the policy's own are not
    believed."""
    ns = policy.metadata.namespace or ""
    gen = policy.metadata.generation or 1
    approved = {w.name: (w.approved if w.approved_template is not None else None) for w in workloads}
    seen: dict[str, EvalRun | None] = {}
    if pinned is not None:
        for n in canary_names(policy, short(pinned.revision) or "unknown"):
            seen[n] = await _get_run(rt, ns, n)
    complete = bool(seen) and all(r is not None for r in seen.values())
    subject = canary_subject(pinned, gen, approved, runs_complete=complete)
    if subject is None:
        return CanaryFinding()
    owner = next(w for w in workloads if w.name == subject.workload)
    template = owner.approved_template if owner.approved == subject.revision else None
    names = canary_names(policy, short(subject.revision) or "unknown")
    runs, tampered = [], []
    for n in names:
        run = seen[n] if n in seen else await _get_run(rt, ns, n)
        if run is None:
            if template is not None:
                body = policy_run(policy, "canary", n, template)
                await rt.call(rt.kube.create_custom, "EvalRun", ns, body)
            continue
        problem = run_problem(run, policy, "canary", subject.revision)
        if problem is not None:
            tampered.append(problem)
            continue
        runs.append(run)
    canary, status = canary_result(runs, names, policy.spec.canary.runs)
    status = status.model_copy(
        update={"workload": subject.workload, "revision": subject.revision, "generation": gen}
    )
    verdicts = [r.status.verdict.value if r.status and r.status.verdict else None for r in runs]
    return CanaryFinding(canary, status, "; ".join(tampered) or None, subject, canary_revokes(verdicts))


#: What a revocation removes from the Deployment: the approval.
REVOKED_ANNOTATIONS = (APPROVED_ANNOTATION, APPROVED_TEMPLATE_ANNOTATION, APPROVED_IDENTITY_ANNOTATION)


async def _revoke(rt: Runtime, about: ObjectRef, w: Workload, subject: CanarySubject, out: Outcome) -> None:
    """The canary FAILed the approved revision: the approval goes, the Deployment is held."""
    patch = {"metadata": {"annotations": dict.fromkeys(REVOKED_ANNOTATIONS)}, "spec": {"paused": True}}
    await rt.call(rt.kube.patch_deployment, w.ref.namespace, w.name, patch)
    message = revoked_message(subject.revision)
    await _say_held(rt, w, held_condition(about.name, Reason.CANARY_FAILED, message, rt.now()))
    key = f"revoked:{w.name}:{subject.revision}:{subject.generation}"
    out.say(w.ref, "Warning", Reason.CANARY_FAILED, message, key=key)
    out.say(about, "Warning", Reason.CANARY_FAILED, f"Deployment {w.name}: {message}", key=key)
    log.warning(
        "approval revoked by the canary", workload=f"{w.ref.namespace}/{w.name}", revision=subject.revision
    )


def revoked_message(revision: str) -> str:
    return (
        f"the determinism canary FAILed template {short(revision)} after it was approved: its approval is "
        "revoked and the Deployment held until a new template passes its exam"
    )


@dataclass(frozen=True)
class ExamInputs:
    """What every exam of a policy's step shares: the cases' digest and tier counts (``None`` when the
    case set does not resolve: its exam then ends in ERROR with the reason), the policy and profile."""

    context: ExamContext
    tier_counts: Mapping[str, int] | None
    #: the versions the cases were read at (the CaseSet's generation, its ConfigMaps' resourceVersions):
    #: a write is another exam, so an exam that pinned other cases is never found under the name
    versions: tuple[str, ...] = ()


async def _exam_inputs(rt: Runtime, policy: GatePolicy) -> ExamInputs:
    """The cases as an exam would pin them now (the CaseSet and its ``casesFrom`` ConfigMaps), and the
    policy's and profile's generations."""
    ns, spec = policy.metadata.namespace or "", policy.spec
    digest: str = "unresolved"
    counts: dict[str, int] | None = None
    versions: tuple[str, ...] = ()
    raw = await rt.call(rt.kube.get_or_none, "CaseSet", ns, spec.case_set_ref.name)
    if raw is not None:
        read: list[Mapping[str, Any]] = []
        try:
            caseset = parse_caseset(raw)
            data = {}
            for ref in caseset.spec.cases_from:
                cm = await rt.call(rt.kube.get_configmap_or_none, ns, ref.name)
                if cm is not None:
                    data[ref.name] = dict(cm.get("data") or {})
                    read.append(cm)
            cases = resolve_cases(caseset, data)
            digest = content_digest(cases)
            counts = {}
            for case in cases:
                counts[case.tier.value] = counts.get(case.tier.value, 0) + 1
        except ManifestError:
            pass  # the exam refuses the case set with the reason (InvalidCases, ConfigMapNotFound)
        versions = case_versions(raw, read)
    profile, profile_gen = (spec.profile_ref.name if spec.profile_ref else None), None
    if profile is not None and (found := await rt.call(rt.kube.get_or_none, "EvalProfile", ns, profile)):
        profile_gen = (found.get("metadata") or {}).get("generation")
    context = ExamContext(
        case_digest=digest,
        policy_uid=policy.metadata.uid or "",
        policy_generation=policy.metadata.generation or 0,
        profile=profile,
        profile_generation=profile_gen,
    )
    return ExamInputs(context, counts, versions)


async def _identity(
    rt: Runtime, policy: GatePolicy, inputs: ExamInputs, namespace: str, template: Mapping[str, Any]
) -> Identity:
    """The identity of ``template`` with the content it reads now, and why it cannot be examined."""
    refs = references(template)
    contents = {
        name: ConfigMapContent.of(await rt.call(rt.kube.get_configmap_or_none, namespace, name))
        for name in sorted(refs.config_maps)
    }
    problems = [
        f"{s}: not declared in the policy's spec.allowedSecrets (a Secret is bound by name only)"
        for s in undeclared_secrets(refs, policy.spec.allowed_secrets)
    ]
    if inputs.tier_counts is not None:
        floors = tier_floor_problems(inputs.tier_counts, policy.spec.min_cases.as_dict())
        problems += [f"CaseSet {policy.spec.case_set_ref.name}: {p}" for p in floors]
    return Identity(
        approval_identity(template, contents, inputs.context),
        observed_digest(contents, inputs.versions),
        tuple(problems),
    )


async def _hold_changed_content(
    rt: Runtime,
    policy: GatePolicy,
    about: ObjectRef,
    inputs: ExamInputs,
    w: Workload,
    current: Identity,
    mode: Mode,
    out: Outcome,
) -> None:
    """Record the identity the approved template has now (``proctor.dev/pending-identity``): when it is
    not the approved one (a referenced ConfigMap, the cases or the policy changed without any change of
    the Deployment), the webhook keeps the Deployment paused and no pod of it may start until the exam
    of the new content passes. Observing policies hold nothing."""
    approved = w.approved_template
    if not mode.enforce or approved is None:
        return
    ns = w.ref.namespace
    now = current if w.current == w.approved else await _identity(rt, policy, inputs, ns, approved)
    annotations = {**w.annotations, PENDING_IDENTITY_ANNOTATION: now.digest}
    unapproved = content_unapproved(annotations)
    patch: dict[str, Any] = {}
    if w.annotations.get(PENDING_IDENTITY_ANNOTATION) != now.digest:
        patch["metadata"] = {"annotations": {PENDING_IDENTITY_ANNOTATION: now.digest}}
    if unapproved and not w.paused:
        patch["spec"] = {"paused": True}
    elif not unapproved and content_unapproved(w.annotations) and w.paused and w.current == w.approved:
        patch["spec"] = {"paused": False}  # back to the approved content: the operator's hold ends
    if not patch:
        return
    await rt.call(rt.kube.patch_deployment, ns, w.name, patch)
    if unapproved:
        message = (
            f"the approved template {short(w.approved)} now reads content that was not examined (a "
            f"referenced ConfigMap, the cases or the policy changed: identity {short(now.digest)}): held "
            "until its exam passes"
        )
        key = f"{w.name}|content|{now.digest}"
        out.say(w.ref, "Warning", "ContentChanged", message, key=key)
        out.say(about, "Warning", "ContentChanged", f"Deployment {w.name}: {message}", key=key)


async def _act(
    rt: Runtime, w: Workload, dec: GateDecision, pending: str, *, observing: bool, identity: str
) -> None:
    ns, name = w.ref.namespace, w.name
    if dec.action is Action.APPROVE and (dec.acted or observing):
        # recording the approved revision is not an action on the rollout: observing policies record it
        # too (it is what their canary runs on); only enforcing ones resume a paused rollout
        patch: dict[str, Any] = {
            "metadata": {
                "annotations": {
                    APPROVED_ANNOTATION: pending,
                    APPROVED_TEMPLATE_ANNOTATION: json.dumps(w.template),
                    APPROVED_IDENTITY_ANNOTATION: identity,
                    PENDING_IDENTITY_ANNOTATION: None,
                }
            }
        }
        if dec.acted:
            patch["spec"] = {"paused": False}
        await rt.call(rt.kube.patch_deployment, ns, name, patch)
    elif dec.acted and dec.action is Action.ROLLBACK:
        await rt.call(
            rt.kube.patch_deployment,
            ns,
            name,
            {
                "metadata": {"annotations": {PENDING_ANNOTATION: None, PENDING_SINCE_ANNOTATION: None}},
                "spec": {"template": w.approved_template, "paused": False},
            },
        )
    elif dec.acted and dec.action is Action.HOLD and not w.paused:
        await rt.call(rt.kube.patch_deployment, ns, name, {"spec": {"paused": True}})


def reexam_name(exam: str, reexams: int) -> str:
    """The name of the ``reexams``-th re-exam of an exam (the exam itself at 0)."""
    if reexams == 0:
        return exam
    suffix = f"-r{reexams}"
    return exam[: 253 - len(suffix)] + suffix


def error_hint(w: Workload, due: dt.datetime | None) -> str:
    """How an exam that ended ERROR is examined again (part of the status message)."""
    when = f"examined again after {format_time(due)}, or at once with" if due else "examined again with"
    return f"; {when} kubectl annotate deployment {w.name} {REEXAMINE_ANNOTATION}=<any new value>"


@dataclass(frozen=True)
class Context:
    """What every gated Deployment of a step is decided under."""

    policy: GatePolicy
    about: ObjectRef
    mode: Mode
    hold: str | None  # why the canary holds PASSes (None: it does not)
    reset_token: str | None
    now: dt.datetime
    #: the Deployments approved (or, observing, recorded approved) in this step, with the hash
    approved: list[tuple[str, str]] = field(default_factory=list)
    #: why passing verdicts are held because the judge misses breaches (None: they are not)
    judge_hold: str | None = None


async def _workload(
    rt: Runtime,
    ctx: Context,
    w: Workload,
    prev: GatedWorkload | None,
    breaker: BreakerWindow,
    revoked: str | None,
    out: Outcome,
    inputs: ExamInputs,
) -> tuple[GatedWorkload, bool]:
    """One gated Deployment: its status entry, and whether a new block of its own happened."""
    policy, about, mode = ctx.policy, ctx.about, ctx.mode
    entry = workload_entry(w, prev)
    if prev is not None and prev.reexamine_token:
        entry = entry.model_copy(update={"reexamine_token": prev.reexamine_token})
    if (glass := w.break_glass) is not None and w.current != w.approved:
        by, why = glass
        message = f"rolled out by break-glass ({by}): not examined, not held: {why}"[:1000]
        return entry.model_copy(update={"blocked": False, "message": message, "verdict": None}), False
    if revoked is not None and revoked == w.current and w.approved != w.current:
        if mode.enforce and not w.paused and (prev is None or prev.revoked == revoked):
            await rt.call(rt.kube.patch_deployment, w.ref.namespace, w.name, {"spec": {"paused": True}})
        update = {
            "blocked": mode.enforce,
            "verdict": VerdictName.FAIL,
            "revoked": revoked,
            "message": revoked_message(revoked),
        }
        return entry.model_copy(update=update), False
    ident = await _identity(rt, policy, inputs, w.ref.namespace, w.template)
    await _hold_changed_content(rt, policy, about, inputs, w, ident, mode, out)
    pending = template_to_examine(w.approved, w.current)
    if pending is None and ident.digest == w.approved_identity:
        message = (prev.message if prev else None) or "the running template is the approved one"
        return entry.model_copy(update={"blocked": False, "message": message}), False
    pending = w.current  # a new template, or the approved one reading new content: examined
    if ident.problems:
        return await _untrusted(
            rt,
            policy,
            about,
            w,
            entry,
            prev,
            "; ".join(ident.problems),
            mode,
            out,
            reason=Reason.NOT_EXAMINABLE,
        )
    exam = exam_name(w.name, ident)
    reexams = prev.reexams if prev is not None and prev.run == reexam_name(exam, prev.reexams) else 0
    run_name = reexam_name(exam, reexams)
    entry = entry.model_copy(update={"reexams": reexams})
    run = await _get_run(rt, w.ref.namespace, run_name)
    problem = (
        run_problem(
            run, policy, "exam", pending, identity=ident.digest, case_digest=inputs.context.case_digest
        )
        if run is not None
        else None
    )
    if problem is not None:
        return await _untrusted(rt, policy, about, w, entry, prev, problem, mode, out)
    unexamined = "" if w.pending == w.current else " (it rolled out before its exam: no webhook held it)"
    st = run.status if run is not None else None
    step = exam_step(None if run is None else st.phase.value if st and st.phase else "")
    if step is not Step.DECIDE:
        if step is Step.START_EXAM:
            body = policy_run(policy, "exam", run_name, w.template, workload=w.name, identity=ident.digest)
            await rt.call(rt.kube.create_custom, "EvalRun", w.ref.namespace, body)
            out.say(
                w.ref,
                "Warning" if unexamined else "Normal",
                "ExamStarted",
                f"template {short(pending)} is examined by EvalRun {run_name}{unexamined}",
                key=f"exam:{run_name}",
            )
        what = "exam started" if step is Step.START_EXAM else "exam running"
        update = {
            "run": run_name,
            "blocked": False,
            "message": (awaiting(what, paused=w.paused) + unexamined)[:1024],
            "verdict": None,
        }
        return entry.model_copy(update=update), False
    assert st is not None
    read_now = await _identity(rt, policy, inputs, w.ref.namespace, w.template)
    if read_now.observed != ident.observed:
        # what the exam read changed while it ran: the next step examines the content as it is now
        update = {
            "run": run_name,
            "blocked": False,
            "verdict": None,
            "message": awaiting("content changed during the exam: examined again", paused=w.paused),
        }
        return entry.model_copy(update=update), False
    verdict = st.verdict
    dec = decide(
        verdict.value if verdict else VerdictName.ERROR.value,
        st.message or "",
        allow_warn=policy.spec.allow_warn,
        on_fail=policy.spec.on_fail,
        mode=mode,
        circuit_open=breaker.open,
        has_approved_template=w.approved_template is not None,
        exposed=w.exposed or w.pending != w.current,
        canary_hold=ctx.hold,
        judge_hold=ctx.judge_hold,
    )
    token = w.annotations.get(REEXAMINE_ANNOTATION)
    asked = bool(token) and token != entry.reexamine_token
    again = reexam(
        verdict.value if verdict else None,
        st.completion_time,
        reexams,
        ctx.now,
        asked=asked,
        breaker_open=breaker.open,
    )
    hint = error_hint(w, again.due) if again is not None and not again.start else ""
    said = (dec.message + unexamined)[:880]
    attempt = w.attempt[:64]
    entry = entry.model_copy(
        update={
            "run": run_name,
            "verdict": verdict,
            "blocked": dec.blocked,
            "message": (said + hint)[:1024],
        }
        | ({"attempt": attempt} if attempt else {})
    )
    decided = (
        prev is not None
        and prev.run == run_name
        and prev.verdict == verdict
        and prev.blocked == entry.blocked
        and (prev.attempt or "") == attempt
        # the re-exam hint changes with the breaker; the decision is the same
        and (prev.message == entry.message or (again is not None and (prev.message or "").startswith(said)))
    )
    blocked_now = False
    if not decided:
        # with the breaker open a pass is not recorded as approved either: after the reset it is
        # decided again
        await _act(rt, w, dec, pending, observing=not mode.enforce, identity=ident.digest)
        if dec.action is Action.APPROVE and (dec.acted or not mode.enforce):
            ctx.approved.append((w.name, pending))
        kind, reason = event_reason(dec)
        # one decision, one Event: the same run, rollout attempt and breaker reset decided again (a
        # step repeated after a kill lost its status write) is the same Event
        key = f"{run_name}|{attempt}|{verdict}|{dec.action.value}|{dec.acted}|{ctx.reset_token or ''}"
        out.say(w.ref, kind, reason, f"{dec.message} (EvalRun {run_name})", key=f"{w.name}|{key}")
        out.say(about, kind, reason, f"Deployment {w.name}: {dec.message}", key=f"{w.name}|{key}")
        log.info(
            "gate decision",
            workload=f"{w.ref.namespace}/{w.name}",
            action=dec.action.value,
            acted=dec.acted,
            run=run_name,
        )
        blocked_now = dec.acted and dec.blocked and counts_as_block(dec.reason)
        if dec.acted and dec.blocked:
            held = held_condition(policy.metadata.name or "", dec.reason, dec.message, ctx.now)
            await _say_held(rt, w, held)
    if again is not None and again.start:
        return await _reexamine(
            rt, ctx, w, entry, exam, reexams + 1, token if asked else None, out, identity=ident.digest
        ), blocked_now
    return entry, blocked_now


async def _say_held(rt: Runtime, w: Workload, condition: Mapping[str, str]) -> None:
    """The held rollout's Deployment condition (``kubectl rollout status`` ends on it). It only tells:
    an install whose role lacks ``deployments/status`` still holds, and says so in the log."""
    try:
        await rt.call(rt.kube.set_deployment_condition, w.ref.namespace, w.name, dict(condition))
    except KubeError as e:
        log.warning(
            "held rollout not told on the Deployment", workload=f"{w.ref.namespace}/{w.name}", error=str(e)
        )


async def _reexamine(
    rt: Runtime,
    ctx: Context,
    w: Workload,
    entry: GatedWorkload,
    exam: str,
    reexams: int,
    token: str | None,
    out: Outcome,
    *,
    identity: str,
) -> GatedWorkload:
    """The exam ended ERROR: examine the same template (and content: ``identity``) again under a new
    run (asked for by a person with the annotation, or after its backoff). The rollout stays held
    meanwhile."""
    name = reexam_name(exam, reexams)
    if await _get_run(rt, w.ref.namespace, name) is None:
        body = policy_run(ctx.policy, "exam", name, w.template, workload=w.name, identity=identity)
        await rt.call(rt.kube.create_custom, "EvalRun", w.ref.namespace, body)
    why = f"{REEXAMINE_ANNOTATION}={token}" if token else "after its backoff"
    message = f"the exam of template {entry.revision} ended ERROR: examined again by EvalRun {name} ({why})"
    out.say(w.ref, "Normal", "ReexamStarted", message, key=f"reexam:{name}")
    out.say(ctx.about, "Normal", "ReexamStarted", f"Deployment {w.name}: {message}", key=f"reexam:{name}")
    update: dict[str, Any] = {
        "run": name,
        "reexams": reexams,
        "verdict": None,
        "blocked": False,
        "message": awaiting(message, paused=w.paused)[:1024],
    }
    if token:
        update["reexamine_token"] = token
    return entry.model_copy(update=update)


async def _untrusted(
    rt: Runtime,
    policy: GatePolicy,
    about: ObjectRef,
    w: Workload,
    entry: GatedWorkload,
    prev: GatedWorkload | None,
    problem: str,
    mode: Mode,
    out: Outcome,
    *,
    reason: str = Reason.EXAM_NOT_TRUSTED,
) -> tuple[GatedWorkload, bool]:
    """The exam's name is taken by a run that is not the policy's exam (``ExamNotTrusted``: nothing is
    decided from it; the rollout stays held until that run is deleted), or the workload cannot be
    examined at all (``NotExaminable``: held until its template or the policy changes)."""
    if reason == Reason.EXAM_NOT_TRUSTED:
        message = f"not examined: {problem}; its verdict is ignored and the rollout held until it is deleted"
    else:
        message = f"not examinable: {problem}; held until the template or the policy changes"
    if mode.enforce and not w.paused:
        await rt.call(rt.kube.patch_deployment, w.ref.namespace, w.name, {"spec": {"paused": True}})
    if prev is None or prev.message != message[:1000]:
        key = f"{w.name}|untrusted|{message}"
        out.say(w.ref, "Warning", reason, message, key=key)
        out.say(about, "Warning", reason, f"Deployment {w.name}: {message}", key=key)
    update = {"blocked": mode.enforce, "verdict": VerdictName.ERROR, "message": message[:1000]}
    return entry.model_copy(update=update), False


async def _webhook(rt: Runtime, policy: GatePolicy) -> WebhookState:
    """Whether the API server calls this operator's webhook: a dry-run patch of the policy adding the
    probe label must come back with the probe webhook's answer (a reached webhook is believed for
    ``reconcile_interval``; an unreached one is asked again at the next step)."""
    if not rt.webhook_serving:
        return WEBHOOK_DISABLED
    ns, name = policy.metadata.namespace or "", policy.metadata.name or ""
    cached = rt.webhook_probes.get(ns)
    if cached is not None and time.monotonic() - cached[0] < rt.config.reconcile_interval:
        state: WebhookState = cached[1]
        return state
    nonce = secrets.token_hex(8)
    try:
        seen = await rt.call(
            rt.kube.dry_run_patch_custom,
            "GatePolicy",
            ns,
            name,
            {"metadata": {"labels": {PROBE_LABEL: nonce}}},
        )
    except KubeError as e:
        return webhook_unreachable(e.detail)
    if ((seen.get("metadata") or {}).get("annotations") or {}).get(PROBE_ANSWER_ANNOTATION) != nonce:
        return webhook_unreachable("the API server did not send the probe to this operator's webhook")
    rt.webhook_probes[ns] = (time.monotonic(), webhook_reached())
    return webhook_reached()


def _trusted_condition(profile: Mapping[str, Any] | None) -> tuple[str, str, str] | None:
    """The profile's ``JudgeTrusted`` condition as ``(status, reason, message)`` (None: none yet)."""
    for c in ((profile or {}).get("status") or {}).get("conditions") or ():
        if isinstance(c, Mapping) and c.get("type") == ConditionType.JUDGE_TRUSTED:
            return str(c.get("status")), str(c.get("reason") or ""), str(c.get("message") or "")
    return None


async def reconcile_policy(rt: Runtime, namespace: str, name: str) -> Outcome:
    """One step of one GatePolicy (and of every Deployment it gates)."""
    async with rt.lock(f"gatepolicy:{namespace}/{name}"):
        raw = await rt.call(rt.kube.get_or_none, "GatePolicy", namespace, name)
        if raw is None:
            return Outcome()
        if await release_legacy(rt, ObjectRef.of(raw), raw.get("metadata") or {}):
            return Outcome(recheck=True)  # the patch is an event of its own, which takes the step
        try:
            policy = parse_policy(raw)
        except ManifestError as e:
            return invalid_policy(ObjectRef.of(raw), ObjectMeta.of(raw).generation, e)
        return await _step(rt, raw, policy)


def invalid_policy(about: ObjectRef, generation: int | None, error: ManifestError) -> Outcome:
    """A policy the API model refuses (a CRD older than this operator, a status written by a newer
    one): nothing of it is decided and no step is retried (an edit is an event of its own), and the
    webhook, which reads policies through the same model, does not know it, so every Deployment it
    gates is held (fail closed). The Event says so, once per generation."""
    out = Outcome()
    out.say(
        about,
        "Warning",
        Reason.INVALID_POLICY,
        f"GatePolicy {about.name} does not validate, so the webhook holds every Deployment it gates "
        f"until it is fixed: {error}",
        key=f"invalid generation {generation}",
    )
    return out


async def _step(rt: Runtime, raw: Mapping[str, Any], policy: GatePolicy) -> Outcome:
    out = Outcome(recheck=True)  # the breaker's window moves on, and canary runs finish
    now = rt.now()
    about = ObjectRef.of(raw)
    ns, gen = about.namespace, policy.metadata.generation
    current = policy.status or GatePolicyStatus()
    profile_name = policy.spec.profile_ref.name if policy.spec.profile_ref else None
    profile_raw = (
        await rt.call(rt.kube.get_or_none, "EvalProfile", ns, profile_name) if profile_name else None
    )
    missing = [
        f"{kind} {ref} not found"
        for kind, ref, found in (
            ("CaseSet", policy.spec.case_set_ref.name, None),
            ("EvalProfile", profile_name, profile_raw),
        )
        if ref and (found or await rt.call(rt.kube.get_or_none, kind, ns, ref)) is None
    ]
    trust = judge_trust_view(
        profile_name,
        _trusted_condition(profile_raw),
        hold_untrusted=policy.spec.judge_trust == JudgeTrustAction.HOLD,
    )
    conds = set_condition(
        current.conditions,
        ConditionType.READY,
        ConditionStatus.FALSE if missing else ConditionStatus.TRUE,
        Reason.CASE_SET_NOT_FOUND if missing else Reason.RESOLVED,
        "; ".join(missing) or "case set and profile found",
        now=now,
        observed_generation=gen,
    )
    workloads, problem = await _workloads(rt, policy)
    if problem is not None:
        conds = set_condition(
            conds,
            ConditionType.READY,
            ConditionStatus.FALSE,
            Reason.INVALID_SPEC,
            problem,
            now=now,
            observed_generation=gen,
        )
    enforce = policy.spec.enforcement == Enforcement.ENFORCE
    webhook = await _webhook(rt, policy) if enforce else webhook_reached()
    if enforce and webhook.serving and not webhook.reached:
        conds = set_condition(
            conds,
            ConditionType.READY,
            ConditionStatus.FALSE,
            Reason.WEBHOOK_UNREACHABLE,
            webhook.message,
            now=now,
            observed_generation=gen,
        )
    found = await _canary(rt, policy, workloads, pinned_subject(current.canary))
    canary, tampered = found.canary, found.tampered
    enforced = current.effective_enforcement == Enforcement.ENFORCE
    mode = effective_mode(
        policy.spec.enforcement, canary, webhook, tampered=tampered, enforced_before=enforced
    )
    if enforced and policy.spec.enforcement == Enforcement.OBSERVE:
        # only a person returns an enforcing policy to Observe: say so where it is seen
        out.say(
            about,
            "Warning",
            "EnforcementRelaxed",
            f"spec.enforcement was set to Observe (generation {gen}): gated rollouts are no longer held",
            key=f"relaxed:{gen}",
        )
    if tampered is not None:
        canary = Canary(Determinism.UNKNOWN, Reason.CANARY_TAMPERED, f"not believed: {tampered}"[:1024])
        before = get_condition(current.conditions, ConditionType.DETERMINISTIC)
        if before is None or before.reason != Reason.CANARY_TAMPERED:
            out.say(about, "Warning", Reason.CANARY_TAMPERED, mode.message, key=f"tampered:{tampered}")
    subject = found.subject
    prev = {w.name: w for w in current.workloads}
    revoked = {n: e.revoked for n, e in prev.items() if e.revoked}
    if found.failed and subject is not None:
        owner = next(w for w in workloads if w.name == subject.workload)
        if owner.approved == subject.revision:
            await _revoke(rt, about, owner, subject, out)
            kept = {k: v for k, v in owner.annotations.items() if k not in REVOKED_ANNOTATIONS}
            revoked_owner = Workload(owner.ref, kept, True, owner.template)
            workloads = [revoked_owner if w is owner else w for w in workloads]
        revoked[subject.workload] = subject.revision
        subject = None  # the policy's next approval pins a new subject
    cb = policy.spec.circuit_breaker
    reset = policy.metadata.annotations.get(RESET_CIRCUIT_BREAKER_ANNOTATION)
    token, was_reset = breaker_reset(current.circuit_breaker, reset)
    if was_reset:
        out.say(
            about,
            "Normal",
            "CircuitReset",
            f"circuit breaker reset by a person ({RESET_CIRCUIT_BREAKER_ANNOTATION}={reset})",
            key=f"reset:{reset}",
        )
    hold = canary_hold(canary, subject.workload if subject else None) if mode.enforce else None
    ctx = Context(policy, about, mode, hold, token, now, judge_hold=trust.hold if mode.enforce else None)
    entries, breakers = [], []
    inputs = await _exam_inputs(rt, policy) if workloads else None
    for w in sorted(workloads, key=lambda w: w.name):
        assert inputs is not None
        window = breaker_window(current.circuit_breaker, w.name, cb, now, reset=was_reset)
        entry, blocked_now = await _workload(
            rt, ctx, w, prev.get(w.name), window, revoked.get(w.name), out, inputs
        )
        entries.append(entry)
        blocks, is_open = breaker_after(window, int(blocked_now), now, cb)
        breakers.append(WorkloadBreaker(name=w.name, recent_blocks=list(blocks), open=is_open))
        if is_open and not window.open:
            message = (
                f"needs_human: Deployment {w.name} was blocked {len(blocks)} times in "
                f"{cb.window_minutes} min "
                f"(max {cb.max_blocks}); its rollouts are not resumed, rolled back or re-examined "
                f"automatically until a person sets the annotation {RESET_CIRCUIT_BREAKER_ANNOTATION} on the "
                "policy (other Deployments are not affected)"
            )
            # the blocks recorded before this step: the same whether or not a kill lost its write
            key = f"open:{w.name}:{token or ''}:{format_time(window.blocks[0]) if window.blocks else ''}"
            out.say(about, "Warning", "CircuitOpen", message, key=key)
            out.say(w.ref, "Warning", "CircuitOpen", message, key=key)
    if subject is None and found.subject is None:
        subject = first_approval(ctx.approved, gen or 1)
    canary_status = found.status
    if subject is not None and canary_status is None:
        canary_status = CanaryStatus(
            required=policy.spec.canary.runs,
            workload=subject.workload,
            revision=subject.revision,
            generation=subject.generation,
        )
    elif subject is None and canary_status is not None:
        canary_status = canary_status.model_copy(
            update={"workload": None, "revision": None, "generation": None}
        )
    blocked = [e for e in entries if e.blocked]
    open_breakers = {b.name: len(b.recent_blocks) for b in breakers if b.open}
    conds = policy_conditions(
        conds,
        mode=mode,
        canary=canary,
        blocked=blocked,
        breakers=open_breakers,
        spec=cb,
        now=now,
        generation=gen,
        judge_hold=ctx.judge_hold is not None and ctx.hold is None,
    )
    conds = set_condition(
        conds,
        ConditionType.JUDGE_TRUSTED,
        ConditionStatus(trust.status),
        trust.reason,
        trust.message,
        now=now,
        observed_generation=gen,
    )
    desired = GatePolicyStatus(
        observed_generation=gen,
        effective_enforcement=Enforcement.ENFORCE if mode.enforce else Enforcement.OBSERVE,
        blocked=len(blocked),
        workloads=entries,
        circuit_breaker=CircuitBreakerStatus(open=bool(open_breakers), workloads=breakers, reset_token=token),
        conditions=conds,
        canary=canary_status,
    )
    await rt.post(out.events)  # the decisions' Events before the status that records them as made
    await write_status(rt, about, raw.get("status") or {}, desired)
    return out
