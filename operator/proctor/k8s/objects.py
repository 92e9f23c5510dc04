"""Pure builders of the objects Proctor creates, and the per-case result encoding.

Functions of plain data returning dicts: deterministic names, labels and owner references, so a
retried shard or a restarted operator produces the very same objects (idempotent children).
"""

from __future__ import annotations

import base64
import copy
import gzip
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from proctor.api import EvalRunSpec, GatePolicy, LocalObjectReference, RunTarget, dump
from proctor.api.common import API_VERSION, GATE_POLICY_LABEL, GROUP
from proctor.api.profile import (
    JUDGE_API_KEY_ENV as JUDGE_API_KEY_ENV,  # the Job writes it, the judge reads it
)
from proctor.k8s import candidate, evidence
from proctor.protocol.types import CaseResult, DimensionScore, Failure, Tier

LABEL_MANAGED_BY = "app.kubernetes.io/managed-by"
LABEL_PART_OF = "app.kubernetes.io/part-of"
LABEL_COMPONENT = "app.kubernetes.io/component"
LABEL_CREATED_BY = "app.kubernetes.io/created-by"
LABEL_RUN = "proctor.dev/run"
LABEL_RUN_UID = "proctor.dev/run-uid"
LABEL_SHARD = "proctor.dev/shard"
#: On a finished EvalRun, set by the operator: it watches only runs without it (finished runs need
#: no watching, and Kopf would keep every watched body in memory).
LABEL_FINISHED = "proctor.dev/finished"
#: The operator's watch of EvalRuns: the runs that are not finished (a server-side label selector).
UNFINISHED_SELECTOR = f"!{LABEL_FINISHED}"
LABEL_ATTEMPT = "proctor.dev/attempt"
#: On a gate's EvalRuns: the Deployment examined, and whether it is an exam or a canary run.
LABEL_WORKLOAD = "proctor.dev/workload"
LABEL_GATE_KIND = "proctor.dev/gate-kind"
#: On a gate's exam: the identity it examines (:func:`proctor.gate.identity.approval_identity`).
EXAMINED_IDENTITY_ANNOTATION = "proctor.dev/examined-identity"
#: On a run ``proctor gate`` created: what was examined, in words (its summary shows it).
GATE_TARGET_ANNOTATION = "proctor.dev/gate-target"

#: The labels on everything Proctor makes.
MANAGED: Mapping[str, str] = {LABEL_MANAGED_BY: "proctor", LABEL_PART_OF: "proctor"}
#: The component label of the judge Jobs and their pods: the operator watches and lists them by it.
JUDGE_COMPONENT = "judge"
#: The labels the operator's Job and pod watches select judge Jobs by (a Kopf ``labels=`` filter).
JUDGE_LABELS: Mapping[str, str] = {LABEL_MANAGED_BY: "proctor", LABEL_COMPONENT: JUDGE_COMPONENT}


def judge_selector(run_uid: str) -> str:
    """The label selector of one run's judge Jobs and pods (the same labels the watches filter on)."""
    return ",".join(f"{k}={v}" for k, v in {LABEL_RUN_UID: run_uid, **JUDGE_LABELS}.items())


RESULTS_KEY = "results.jsonl.gz"
#: The key of a shard report ConfigMap's JSON.
REPORT_KEY = "report.json"
PART_ANNOTATION = "proctor.dev/part"
SHA256_ANNOTATION = "proctor.dev/sha256"
#: Compressed bytes per results ConfigMap: far below the 1 MiB object limit, base64 included.
RESULTS_PART_BYTES = 512 * 1024


@dataclass(frozen=True, slots=True)
class RunRef:
    """What a child needs to know about its EvalRun."""

    namespace: str
    name: str
    uid: str


def shard_label(index: int, count: int) -> str:
    """``2/4`` as a label value (``2-of-4``); status uses ``I/N``."""
    return f"{index}-of-{count}"


def _bounded(name: str, limit: int) -> str:
    """Names stay within ``limit``: long ones keep a readable prefix and a hash of the whole."""
    if len(name) <= limit:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:10]
    return f"{name[: limit - 11].rstrip('-.')}-{digest}"


def label_value(text: str) -> str:
    return _bounded(text, 63)


def run_labels(run: RunRef, component: str) -> dict[str, str]:
    return {
        **MANAGED,
        LABEL_COMPONENT: component,
        LABEL_RUN: label_value(run.name),
        LABEL_RUN_UID: run.uid,
    }


def owner_reference(run: RunRef, *, controller: bool = True) -> dict[str, Any]:
    # blockOwnerDeletion needs update rights on the run's finalizers, which the judge's
    # service account does not have (least privilege); garbage collection works without it.
    return {
        "apiVersion": API_VERSION,
        "kind": "EvalRun",
        "name": run.name,
        "uid": run.uid,
        "controller": controller,
        "blockOwnerDeletion": False,
    }


def owning_run(obj: Mapping[str, Any]) -> str | None:
    """The name of the EvalRun that owns ``obj`` (a judge Job, a results ConfigMap), if one does."""
    owners = [
        o for o in (obj.get("metadata") or {}).get("ownerReferences") or [] if o.get("kind") == "EvalRun"
    ]
    return str(owners[0]["name"]) if owners else None


def results_configmap_name(run: str, index: int, count: int, attempt: int, part: int) -> str:
    """Each attempt writes its own (the judge may only create ConfigMaps, never replace one)."""
    return _bounded(f"{run}-results-{index}-of-{count}-a{attempt}-{part}", 253)


def report_configmap_name(run: str, index: int, count: int, attempt: int) -> str:
    return _bounded(f"{run}-report-{index}-of-{count}-a{attempt}", 253)


# --- per-case results ------------------------------------------------------------------------------


def case_record(result: CaseResult, *, answer_sha256: str | None = None, repeats: int = 1) -> dict[str, Any]:
    """One case's result as stored in the results ConfigMaps (never the answer itself: it may
    hold a secret the scan found; its digest lets two runs be compared)."""
    rec: dict[str, Any] = {
        "id": result.case_id,
        "tier": result.tier.value,
        "outcome": result.outcome.value,
    }
    if result.category:
        rec["category"] = result.category
    if result.failures:
        rec["failures"] = [{"assertion": f.assertion, "reason": f.reason} for f in result.failures]
    if result.safety_findings:
        rec["safetyFindings"] = result.safety_findings
    if result.dimensions:
        rec["dimensions"] = [_dimension_record(d) for d in result.dimensions]
    if result.error is not None:
        rec["error"] = result.error
    if answer_sha256:
        rec["answerSha256"] = answer_sha256
    if repeats > 1:
        rec["repeats"] = repeats
    return rec


def _dimension_record(d: DimensionScore) -> dict[str, Any]:
    rec: dict[str, Any] = {"name": d.name, "threshold": d.threshold}
    if d.score is None:
        rec["skipped"] = d.skipped_reason or "skipped"
    else:
        rec["score"] = d.score
    if d.agreement is not None:
        rec["agreement"] = d.agreement
    if len(d.samples) > 1:
        rec["samples"] = list(d.samples)
    if d.rationale:
        rec["rationale"] = d.rationale
    return rec


#: What a failed assertion's reason says in the results a tenant can read: a reason may quote the
#: expected value or the reference ("expected HIGH"), so it is kept only in the run's detail in the
#: operator's namespace (:func:`detail_configmaps`).
WITHHELD_REASON = "withheld: it may quote the expected answer"


def public_record(rec: Mapping[str, Any]) -> dict[str, Any]:
    """A case's result as the run's namespace may hold it: what failed (the case, its tier, the
    assertion type, scores and thresholds, which of the profile's grounding documents were chosen),
    never why in words (an assertion's reason, a judge's rationale), which may quote a reference or
    an expected value."""
    out = copy.deepcopy(dict(rec))
    if "failures" in out:
        out["failures"] = [{"assertion": f["assertion"], "reason": WITHHELD_REASON} for f in out["failures"]]
    if "dimensions" in out:
        out["dimensions"] = [{k: v for k, v in d.items() if k != "rationale"} for d in out["dimensions"]]
    return out


def record_to_result(rec: Mapping[str, Any]) -> CaseResult:
    """The inverse of :func:`case_record` (the operator decides from these)."""
    dims = tuple(
        DimensionScore(
            name=d["name"],
            threshold=float(d["threshold"]),
            score=None if "skipped" in d else float(d["score"]),
            skipped_reason=d.get("skipped"),
            agreement=d.get("agreement"),
            samples=tuple(d.get("samples", ())),
            rationale=d.get("rationale", ""),
        )
        for d in rec.get("dimensions", ())
    )
    return CaseResult(
        case_id=rec["id"],
        tier=Tier(rec["tier"]),
        failures=tuple(Failure(f["assertion"], f["reason"]) for f in rec.get("failures", ())),
        safety_findings=int(rec.get("safetyFindings", 0)),
        dimensions=dims,
        error=rec.get("error"),
        category=rec.get("category", ""),
    )


def encode_results(records: Iterable[Mapping[str, Any]]) -> bytes:
    """JSON lines in case-id order, gzipped with a zero timestamp: the same results, the same bytes."""
    lines = sorted(json.dumps(r, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for r in records)
    body = ("\n".join(lines) + "\n").encode() if lines else b""
    return gzip.compress(body, compresslevel=6, mtime=0)


def decode_results(parts: Sequence[bytes]) -> list[dict[str, Any]]:
    text = gzip.decompress(b"".join(parts)).decode()
    # split on "\n" only: json.dumps(ensure_ascii=False) leaves U+2028, U+0085 and the like
    # unescaped inside strings, and str.splitlines() would cut a record there
    return [json.loads(line) for line in text.split("\n") if line]


def _chunks(blob: bytes, part_bytes: int) -> list[bytes]:
    return [blob[i : i + part_bytes] for i in range(0, len(blob), part_bytes)] or [b""]


def _blob_configmaps(
    run: RunRef,
    component: str,
    names: list[str],
    key: str,
    chunks: list[bytes],
    digest: str,
    labels: Mapping[str, str],
) -> list[dict[str, Any]]:
    out = []
    for k, (name, chunk) in enumerate(zip(names, chunks, strict=True)):
        annotations = {PART_ANNOTATION: f"{k + 1}/{len(chunks)}", SHA256_ANNOTATION: digest}
        out.append(
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {
                    "name": name,
                    "namespace": run.namespace,
                    "labels": run_labels(run, component) | dict(labels),
                    "annotations": annotations,
                    "ownerReferences": [owner_reference(run, controller=False)],
                },
                "binaryData": {key: base64.b64encode(chunk).decode()},
            }
        )
    return out


def results_configmaps(
    run: RunRef,
    index: int,
    count: int,
    blob: bytes,
    *,
    attempt: int,
    part_bytes: int = RESULTS_PART_BYTES,
) -> list[dict[str, Any]]:
    """The ConfigMaps holding one shard's compressed results, split so none nears the size limit;
    their bytes are believed only as the digest the shard's report names (:mod:`.evidence`)."""
    chunks = _chunks(blob, part_bytes)
    names = [results_configmap_name(run.name, index, count, attempt, k) for k in range(len(chunks))]
    labels = {LABEL_SHARD: shard_label(index, count), LABEL_ATTEMPT: str(attempt)}
    return _blob_configmaps(run, "results", names, RESULTS_KEY, chunks, evidence.sha256(blob), labels)


def report_configmap(
    run: RunRef, index: int, count: int, attempt: int, report: Mapping[str, Any]
) -> dict[str, Any]:
    """A shard's report (what the runner measured, or why it could not).

    The judge writes only this and its results ConfigMaps, never the run's status, and vouches for
    the report's digest (:func:`.evidence.report_digest`) in its termination message: the operator
    believes the report only as that digest and copies it into ``status.shards``.
    """
    labels = run_labels(run, "report") | {LABEL_SHARD: shard_label(index, count), LABEL_ATTEMPT: str(attempt)}
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": report_configmap_name(run.name, index, count, attempt),
            "namespace": run.namespace,
            "labels": labels,
            "ownerReferences": [owner_reference(run, controller=False)],
        },
        "data": {REPORT_KEY: evidence.canonical(report).decode()},
    }


# --- the cases a run pinned when it started ----------------------------------------------------------

SNAPSHOT_KEY = "cases.json.gz"
#: The label value of a run's case snapshot (``app.kubernetes.io/component``).
SNAPSHOT_COMPONENT = "cases"
#: ... and of a run's full results in the operator's namespace.
DETAIL_COMPONENT = "results-detail"


#: On what the operator keeps in its own namespace for a run: the run's namespace (its name and UID
#: are :data:`LABEL_RUN` and :data:`LABEL_RUN_UID`).
LABEL_RUN_NAMESPACE = "proctor.dev/run-namespace"


def snapshot_configmap_name(run_uid: str, part: int) -> str:
    """Named by the run's UID: kept in the operator's namespace, where runs of every namespace meet."""
    return _bounded(f"proctor-cases-{run_uid}-{part}", 253)


def encode_cases(cases: Iterable[Mapping[str, Any]]) -> bytes:
    """The resolved cases, in order, as gzipped JSON (a zero timestamp: the same cases, the same bytes)."""
    body = json.dumps(list(cases), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return gzip.compress(body, compresslevel=6, mtime=0)


def decode_cases(parts: Sequence[bytes]) -> list[dict[str, Any]]:
    data = json.loads(gzip.decompress(b"".join(parts)).decode())
    if not isinstance(data, list):
        raise ValueError("a case snapshot holds a list of cases")
    return data


def snapshot_configmaps(
    run: RunRef, blob: bytes, *, namespace: str, part_bytes: int = RESULTS_PART_BYTES
) -> list[dict[str, Any]]:
    """The ConfigMaps pinning a run's cases when it starts, in the operator's own ``namespace``
    (never the run's: whoever may read ConfigMaps there, the tenant, would read the references and
    assertions). No owner reference (it cannot cross namespaces): the operator deletes them when the
    run is over. Its judges get their shard's cases from the operator's case server."""
    chunks = _chunks(blob, part_bytes)
    digest = hashlib.sha256(blob).hexdigest()
    labels = run_labels(run, SNAPSHOT_COMPONENT) | {LABEL_RUN_NAMESPACE: run.namespace}
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": snapshot_configmap_name(run.uid, k),
                "namespace": namespace,
                "labels": dict(labels),
                "annotations": {PART_ANNOTATION: f"{k + 1}/{len(chunks)}", SHA256_ANNOTATION: digest},
            },
            "binaryData": {SNAPSHOT_KEY: base64.b64encode(chunk).decode()},
        }
        for k, chunk in enumerate(chunks)
    ]


#: Where a local operator keeps pinned cases and full results when neither variable names a namespace.
DEFAULT_STORE_NAMESPACE = "proctor-system"


def store_namespace(env: Mapping[str, str]) -> str:
    """The operator's namespace for pinned cases and full results: ``PROCTOR_STORE_NAMESPACE``, else
    its own (``POD_NAMESPACE``), else :data:`DEFAULT_STORE_NAMESPACE` (the operator and the collector
    both find them by this one rule)."""
    return (
        env.get("PROCTOR_STORE_NAMESPACE", "").strip()
        or env.get("POD_NAMESPACE", "").strip()
        or DEFAULT_STORE_NAMESPACE
    )


def detail_configmap_name(run_uid: str, index: int, count: int, attempt: int, part: int) -> str:
    return _bounded(f"proctor-results-{run_uid}-{index}-of-{count}-a{attempt}-{part}", 253)


def detail_configmaps(
    run: RunRef,
    index: int,
    count: int,
    attempt: int,
    blob: bytes,
    *,
    namespace: str,
    part_bytes: int = RESULTS_PART_BYTES,
) -> list[dict[str, Any]]:
    """One shard's full results (every reason and rationale, :func:`case_record`), kept in the
    operator's ``namespace`` for a platform engineer: the run's own namespace holds only
    :func:`public_record` forms. Named by the run's UID, shard and attempt; never what a verdict is
    decided from (that is the vouched-for results in the run's namespace)."""
    chunks = _chunks(blob, part_bytes)
    digest = hashlib.sha256(blob).hexdigest()
    labels = run_labels(run, DETAIL_COMPONENT) | {
        LABEL_RUN_NAMESPACE: run.namespace,
        LABEL_SHARD: shard_label(index, count),
        LABEL_ATTEMPT: str(attempt),
    }
    return [
        {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": detail_configmap_name(run.uid, index, count, attempt, k),
                "namespace": namespace,
                "labels": dict(labels),
                "annotations": {PART_ANNOTATION: f"{k + 1}/{len(chunks)}", SHA256_ANNOTATION: digest},
            },
            "binaryData": {RESULTS_KEY: base64.b64encode(chunk).decode()},
        }
        for k, chunk in enumerate(chunks)
    ]


def configmap_blob(cm: Mapping[str, Any], key: str) -> bytes:
    """The bytes one part of a results or snapshot ConfigMap holds."""
    return base64.b64decode((cm.get("binaryData") or {}).get(key, ""))


def shard_of(position: int, count: int) -> int:
    """The shard a case at ``position`` (in case-set order) belongs to."""
    return position % count


# --- EvalRuns ----------------------------------------------------------------------------------


def evalrun(
    name: str,
    spec: EvalRunSpec,
    *,
    labels: Mapping[str, str],
    namespace: str | None = None,
    annotations: Mapping[str, str] | None = None,
    owner: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """An EvalRun (the one builder: the gate's reconciler and ``proctor gate`` both use it). The spec
    holds exactly the fields that were given, so the API server fills in its defaults."""
    meta: dict[str, Any] = {"name": name, "labels": dict(labels)}
    if namespace is not None:
        meta["namespace"] = namespace
    if annotations:
        meta["annotations"] = dict(annotations)
    if owner is not None:
        meta["ownerReferences"] = [dict(owner)]
    return {"apiVersion": API_VERSION, "kind": "EvalRun", "metadata": meta, "spec": dump(spec, only_set=True)}


def policy_run(
    policy: GatePolicy,
    kind: str,
    name: str,
    template: Mapping[str, Any],
    *,
    workload: str | None = None,
    identity: str | None = None,
) -> dict[str, Any]:
    """An EvalRun examining a pod ``template`` under a GatePolicy, owned by the policy: ``kind`` is
    ``exam`` (a pending template of ``workload``) or ``canary`` (the approved one, again)."""
    spec, meta = policy.spec, policy.metadata
    assert meta.name is not None and meta.uid is not None  # a policy read from the API server
    run_spec = EvalRunSpec(
        case_set_ref=spec.case_set_ref,
        profile_ref=spec.profile_ref,
        policy_ref=LocalObjectReference(name=meta.name),
        target=RunTarget(pod_template=dict(template), candidate=spec.candidate),
        shards=spec.shards,
        timeout_seconds=spec.timeout_seconds,
    )
    labels = {**MANAGED, GATE_POLICY_LABEL: meta.name, LABEL_GATE_KIND: kind}
    if workload:
        labels[LABEL_WORKLOAD] = label_value(workload)
    owner = {
        "apiVersion": API_VERSION,
        "kind": "GatePolicy",
        "name": meta.name,
        "uid": meta.uid,
        "controller": True,
        "blockOwnerDeletion": True,
    }
    annotations = {EXAMINED_IDENTITY_ANNOTATION: identity} if identity else None
    return evalrun(name, run_spec, labels=labels, owner=owner, annotations=annotations)


#: The key of the recorded answers ``proctor gate --responses`` hands to its run.
ANSWERS_KEY = "answers.json"


def responses_configmap_name(run: str) -> str:
    return f"{run}-responses"


def responses_configmap(
    namespace: str, run: str, answers: Mapping[str, str], *, labels: Mapping[str, str] = {}
) -> dict[str, Any]:
    """The ConfigMap holding a run's recorded answers (the runner reads it; made before the run)."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": responses_configmap_name(run),
            "namespace": namespace,
            "labels": {**MANAGED, LABEL_COMPONENT: "responses", LABEL_RUN: run, **labels},
        },
        "data": {ANSWERS_KEY: json.dumps(dict(answers), ensure_ascii=False, indent=0)},
    }


# --- judge Jobs --------------------------------------------------------------------------------------

JUDGE_SERVICE_ACCOUNT = "proctor-judge"
#: The judge container of a judge pod (the one that vouches for its report, :mod:`.evidence`).
JUDGE_CONTAINER = "judge"
#: The judge container's environment: the judge's API key and the agent endpoint's (from Secrets,
#: by ``secretKeyRef``), where the candidate sidecar listens (the pod's IP, downward API) and the
#: attempt it writes results for. Nothing in it makes a report believable (:mod:`.evidence`).
AGENT_API_KEY_ENV = "PROCTOR_AGENT_API_KEY"
CANDIDATE_HOST_ENV = "PROCTOR_CANDIDATE_HOST"
JUDGE_ATTEMPT_ENV = "PROCTOR_JUDGE_ATTEMPT"
#: Where a container's ServiceAccount token is mounted (the in-cluster client reads it there), and
#: the judge pod's one volume: the token, projected for the judge container alone.
SA_TOKEN_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
JUDGE_TOKEN_VOLUME = "proctor-judge-api-access"
#: The judge's credential for the operator's case server (:mod:`proctor.reconcile.caseserver`): a
#: ServiceAccount token for :data:`OPERATOR_AUDIENCE` only (the API server refuses it), bound to the
#: pod (it dies with it), projected into the judge container alone. A candidate's volumes are all
#: renamed ``candidate-*`` and a projected token in its template is refused, so none can name it.
OPERATOR_AUDIENCE = "proctor-operator"
OPERATOR_TOKEN_VOLUME = "proctor-judge-operator-token"
OPERATOR_TOKEN_DIR = "/var/run/secrets/proctor.dev/operator"
OPERATOR_TOKEN_FILE = "token"
#: The shortest lifetime the API server grants a projected token; the kubelet renews it.
OPERATOR_TOKEN_SECONDS = 600
#: Where the judge fetches its shard's cases (``https://HOST:PORT``) and the PEM CA that verifies
#: that server: the operator sets both in the Job (a CA is public; what it guards is the token).
CASES_URL_ENV = "PROCTOR_CASES_URL"
CASES_CA_ENV = "PROCTOR_CASES_CA"
#: The case server's paths: ``GET`` with the judge's token answers its shard's cases; ``POST`` of
#: its full results (gzipped JSON lines) keeps them in the operator's namespace.
CASES_PATH = "/v1/cases"
DETAIL_PATH = "/v1/results"
#: Stand-in only (:mod:`proctor.devcluster.node`): JSON ``{mountPath: host directory}`` of the
#: token volumes a container run as a local process mounts (it cannot mount at the real path).
NODE_MOUNTS_ENV = "PROCTOR_NODE_MOUNTS"


def mounted(path: str, env: Mapping[str, str]) -> str:
    """Where a file under a volume's ``mountPath`` is for this process: the path itself in a real
    container, the stand-in node's directory for it on the local control plane."""
    try:
        mounts = json.loads(env.get(NODE_MOUNTS_ENV) or "{}")
    except ValueError:
        mounts = {}
    for at, host in (mounts if isinstance(mounts, dict) else {}).items():
        if path == at or path.startswith(at.rstrip("/") + "/"):
            return str(host) + path[len(at.rstrip("/")) :]
    return path


#: What the judge may do, and nothing more: read a run and what it references, create its results
#: and report ConfigMaps. It writes no status and changes no existing object (it cannot rewrite a
#: case set's ConfigMap, nor another run's results). The chart's judge ClusterRole holds the same.
JUDGE_RULES: tuple[Mapping[str, Any], ...] = (
    {"apiGroups": [GROUP], "resources": ["evalruns", "casesets", "evalprofiles"], "verbs": ["get"]},
    {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["get", "create"]},
)

_RESTRICTED_CONTAINER: dict[str, Any] = {
    "allowPrivilegeEscalation": False,
    "readOnlyRootFilesystem": True,
    "runAsNonRoot": True,
    "capabilities": {"drop": ["ALL"]},
    "seccompProfile": {"type": "RuntimeDefault"},
}
#: SELinux types the restricted (and baseline) Pod Security Standard allows.
_SELINUX_TYPES = frozenset({"container_t", "container_init_t", "container_kvm_t", "container_engine_t"})
#: The only capability restricted Pod Security lets a container add.
_ALLOWED_CAPABILITY = "NET_BIND_SERVICE"


def judge_job_name(run: str, index: int, count: int, attempt: int) -> str:
    """Deterministic: a restarted operator computes the same name and finds the Job it made."""
    return _bounded(f"{run}-judge-{index}-of-{count}-a{attempt}", 63)


@dataclass(frozen=True, slots=True)
class SecretKey:
    name: str
    key: str


@dataclass(frozen=True, slots=True)
class JudgeJobSpec:
    """Everything a judge Job depends on besides the run itself."""

    image: str
    deadline_seconds: int
    ttl_seconds: int = 3600
    judge_key: SecretKey | None = None
    agent_key: SecretKey | None = None
    candidate: Mapping[str, Any] | None = None
    candidate_container: str | None = None
    service_account: str = JUDGE_SERVICE_ACCOUNT
    image_pull_policy: str = "IfNotPresent"
    #: the pod's hostname, shaped like a production pod's name (:func:`candidate.production_hostname`)
    hostname: str | None = None
    #: the operator's case server and its CA (:data:`CASES_URL_ENV`): the judge fetches its cases there
    cases_url: str | None = None
    cases_ca: str | None = None


def _spec_of(template: Mapping[str, Any]) -> Mapping[str, Any]:
    spec = template.get("spec", template)
    return spec if isinstance(spec, Mapping) else {}


def _secret_env(name: str, ref: SecretKey) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"secretKeyRef": {"name": ref.name, "key": ref.key}}}


def candidate_security_context(
    container: Mapping[str, Any] | None, pod: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A candidate's securityContext: the restricted Pod Security Standard, keeping the Deployment's
    own settings where they are at least as strict (a non-root user or group, a read-only root
    filesystem, a Localhost seccomp or AppArmor profile, an allowed SELinux type); anything looser
    (privileged, root, added capabilities, escalation) is not carried into the judge pod."""
    c, p = dict(container or {}), dict(pod or {})
    added = ((c.get("capabilities") or {}).get("add")) or []
    out: dict[str, Any] = {
        "allowPrivilegeEscalation": False,
        "privileged": False,
        "runAsNonRoot": True,
        "capabilities": {"drop": ["ALL"]}
        | ({"add": [_ALLOWED_CAPABILITY]} if _ALLOWED_CAPABILITY in added else {}),
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    if c.get("readOnlyRootFilesystem") is True:
        out["readOnlyRootFilesystem"] = True
    for name in ("runAsUser", "runAsGroup"):
        value = c.get(name, p.get(name))
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            out[name] = value
    seccomp = c.get("seccompProfile") or p.get("seccompProfile") or {}
    if seccomp.get("type") == "Localhost" and seccomp.get("localhostProfile"):
        out["seccompProfile"] = {"type": "Localhost", "localhostProfile": seccomp["localhostProfile"]}
    apparmor = c.get("appArmorProfile") or p.get("appArmorProfile") or {}
    if apparmor.get("type") in ("RuntimeDefault", "Localhost"):
        out["appArmorProfile"] = dict(apparmor)
    selinux = c.get("seLinuxOptions") or p.get("seLinuxOptions") or {}
    if selinux.get("type") in _SELINUX_TYPES and not selinux.get("user") and not selinux.get("role"):
        out["seLinuxOptions"] = {k: selinux[k] for k in ("type", "level") if selinux.get(k)}
    return out


def _sidecars(
    pod_template: Mapping[str, Any],
    container: str | None,
    *,
    hostname: str | None = None,
) -> list[dict[str, Any]]:
    """The candidate's pod as the judge pod's init containers: the template's init containers first (as
    they are: run to completion, or native sidecars), then every one of its containers as a native
    sidecar (started first, stopped last). Each keeps its own volume mounts (of its own, renamed,
    volumes: :mod:`proctor.k8s.candidate`), sees the production values of the downward API, and holds
    nothing of the judge's: no host port, a restricted securityContext (the judge's token volume is
    not theirs to mount: their volumes are renamed).
    ``container`` (the one that serves the agent) is carried like the others: the exam runs the pod
    whole."""
    del container  # every container runs; the judge reaches the serving one on its port
    spec = pod_template.get("spec", pod_template)

    def rename(name: str) -> str:
        return f"candidate-{name}"[:63]

    dropped = ("lifecycle", "volumeMounts", "volumeDevices", "securityContext")
    out = []
    for kind in ("initContainers", "containers"):
        for c in spec.get(kind) or []:
            side = {k: copy.deepcopy(v) for k, v in c.items() if k not in dropped and k != "restartPolicy"}
            if kind == "containers" or c.get("restartPolicy") == "Always":
                side["restartPolicy"] = "Always"
            side["name"] = rename(str(c.get("name", "agent")))
            if post_start := (c.get("lifecycle") or {}).get("postStart"):
                # what the container does as it starts decides its behaviour; a preStop hook only
                # delays the end of the exam, and is left out
                side["lifecycle"] = {"postStart": copy.deepcopy(post_start)}
            side["securityContext"] = candidate_security_context(
                c.get("securityContext"), spec.get("securityContext")
            )
            if c.get("volumeMounts"):
                side["volumeMounts"] = candidate.candidate_mounts(c["volumeMounts"])
            if "ports" in side:
                side["ports"] = [
                    {k: v for k, v in p.items() if k not in ("hostPort", "hostIP")} for p in side["ports"]
                ]
            if "env" in side:
                side["env"] = candidate.production_env(
                    side["env"],
                    pod_template,
                    hostname=hostname,
                    rename=rename,
                )
            out.append(side)
    return out


def _token_volume() -> dict[str, Any]:
    """The ServiceAccount token as a kubelet projects it (token, cluster CA, namespace): mounted into
    the judge container only, the pod itself automounting nothing."""
    return {
        "name": JUDGE_TOKEN_VOLUME,
        "projected": {
            "sources": [
                {"serviceAccountToken": {"path": "token", "expirationSeconds": 3607}},
                {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {
                    "downwardAPI": {
                        "items": [
                            {
                                "path": "namespace",
                                "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                            }
                        ]
                    }
                },
            ]
        },
    }


def _operator_token_volume() -> dict[str, Any]:
    """The judge's token for the operator's case server: its audience only, bound to the pod."""
    source = {
        "audience": OPERATOR_AUDIENCE,
        "expirationSeconds": OPERATOR_TOKEN_SECONDS,
        "path": OPERATOR_TOKEN_FILE,
    }
    return {"name": OPERATOR_TOKEN_VOLUME, "projected": {"sources": [{"serviceAccountToken": source}]}}


def judge_job(run: RunRef, index: int, count: int, attempt: int, spec: JudgeJobSpec) -> dict[str, Any]:
    """One shard's judge Job: restricted Pod Security, a deadline, a TTL, no retries of its own
    (the operator retries with its own backoff, so a harness failure is never read as a verdict).

    Only the judge container holds a credential: the ServiceAccount token (a projected volume; the
    pod automounts none), which the candidate sidecars do not get. What makes its report believed
    is no credential: the digest it writes to its termination message (:mod:`.evidence`), read
    from the status of a pod that is this template.
    """
    labels = run_labels(run, JUDGE_COMPONENT) | {
        LABEL_SHARD: shard_label(index, count),
        LABEL_ATTEMPT: str(attempt),
    }
    env = [
        _secret_env(JUDGE_API_KEY_ENV, spec.judge_key) if spec.judge_key else None,
        _secret_env(AGENT_API_KEY_ENV, spec.agent_key) if spec.agent_key else None,
        {"name": JUDGE_ATTEMPT_ENV, "value": str(attempt)},
        {"name": CASES_URL_ENV, "value": spec.cases_url} if spec.cases_url else None,
        {"name": CASES_CA_ENV, "value": spec.cases_ca} if spec.cases_url and spec.cases_ca else None,
    ]
    mounts = [{"name": JUDGE_TOKEN_VOLUME, "mountPath": SA_TOKEN_DIR, "readOnly": True}]
    volumes = [_token_volume()]
    if spec.cases_url:
        mounts.append({"name": OPERATOR_TOKEN_VOLUME, "mountPath": OPERATOR_TOKEN_DIR, "readOnly": True})
        volumes.append(_operator_token_volume())
    pod: dict[str, Any] = {
        "serviceAccountName": spec.service_account,
        "automountServiceAccountToken": False,
        "restartPolicy": "Never",
        "enableServiceLinks": False,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": 65532,
            "runAsGroup": 65532,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "volumes": volumes,
        "containers": [
            {
                "name": JUDGE_CONTAINER,
                "image": spec.image,
                "imagePullPolicy": spec.image_pull_policy,
                "args": ["judge", "--run", f"{run.namespace}/{run.name}", "--shard", f"{index}/{count}"],
                "env": [e for e in env if e is not None],
                "securityContext": copy.deepcopy(_RESTRICTED_CONTAINER),
                "resources": {
                    "requests": {"cpu": "100m", "memory": "256Mi"},
                    "limits": {"memory": "1Gi"},
                },
                "volumeMounts": mounts,
                "terminationMessagePath": evidence.TERMINATION_LOG,
                "terminationMessagePolicy": "FallbackToLogsOnError",
            }
        ],
    }
    if spec.candidate is not None:
        pod["initContainers"] = _sidecars(spec.candidate, spec.candidate_container, hostname=spec.hostname)
        pod["volumes"] += candidate.candidate_volumes(spec.candidate)
        # what production pods get: the Service environment variables (Kubernetes' default is true)
        pod["enableServiceLinks"] = _spec_of(spec.candidate).get("enableServiceLinks") is not False
        if spec.hostname:
            pod["hostname"] = spec.hostname
        pod["containers"][0]["env"].append(
            {"name": CANDIDATE_HOST_ENV, "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}
        )
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": judge_job_name(run.name, index, count, attempt),
            "namespace": run.namespace,
            "labels": labels,
            "ownerReferences": [owner_reference(run) | {"blockOwnerDeletion": True}],
        },
        "spec": {
            "backoffLimit": 0,
            "activeDeadlineSeconds": spec.deadline_seconds,
            "ttlSecondsAfterFinished": spec.ttl_seconds,
            "template": {"metadata": {"labels": labels}, "spec": pod},
        },
    }


def judge_rbac(namespace: str, cluster_role: str | None = None) -> list[dict[str, Any]]:
    """The judge's ServiceAccount in a namespace and its rights (:data:`JUDGE_RULES`): a RoleBinding
    to ``cluster_role`` (the chart's judge ClusterRole: the operator needs only ``bind`` on that one
    name), or, without one (a local operator), a Role of its own with the same rules.

    No Secrets, no status: the judge's API key reaches the container through ``secretKeyRef``,
    resolved by the kubelet, and the judge reports in ConfigMaps the operator verifies.
    """
    meta = {"namespace": namespace, "labels": dict(MANAGED)}
    sa = {
        "apiVersion": "v1",
        "kind": "ServiceAccount",
        "metadata": {"name": JUDGE_SERVICE_ACCOUNT, **meta},
        # a pod naming this account gets no token unless it asks for one (the judge Job mounts it
        # into the judge container alone)
        "automountServiceAccountToken": False,
    }
    role_ref = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": cluster_role}
    out: list[dict[str, Any]] = [sa]
    if cluster_role is None:
        role_ref = {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": JUDGE_SERVICE_ACCOUNT}
        out.append(
            {
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "Role",
                "metadata": {"name": JUDGE_SERVICE_ACCOUNT, **meta},
                "rules": [copy.deepcopy(dict(r)) for r in JUDGE_RULES],
            }
        )
    out.append(
        {
            "apiVersion": "rbac.authorization.k8s.io/v1",
            "kind": "RoleBinding",
            "metadata": {"name": JUDGE_SERVICE_ACCOUNT, **meta},
            "roleRef": role_ref,
            "subjects": [{"kind": "ServiceAccount", "name": JUDGE_SERVICE_ACCOUNT, "namespace": namespace}],
        }
    )
    return out


# --- Events ----------------------------------------------------------------------------------------

#: Who posts Proctor's Events (``source.component``, ``reportingComponent``).
EVENT_COMPONENT = "proctor-operator"


def event_name(name: str, uid: str | None, reason: str, key: str) -> str:
    """A decision's Event name: the same decision, the same name, so posting it again (a restarted
    operator, a step repeated after a kill) finds it there instead of saying it twice."""
    digest = hashlib.sha256(f"{uid or ''}|{reason}|{key}".encode()).hexdigest()[:16]
    return f"{_bounded(name, 253 - 17)}.{digest}"


def event(
    involved: Mapping[str, Any],
    *,
    type: str,
    reason: str,
    message: str,
    now: str,
    name: str | None = None,
) -> dict[str, Any]:
    """A core/v1 Event about ``involved`` (apiVersion, kind, namespace, name, uid); a deterministic
    ``name`` for a decision, else a generated one."""
    ns = involved["namespace"]
    meta: dict[str, Any] = {"namespace": ns, "labels": dict(MANAGED)}
    meta |= {"name": name} if name else {"generateName": f"{_bounded(involved['name'], 200)}."}
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": meta,
        "involvedObject": {k: v for k, v in involved.items() if v},
        "type": type,
        "reason": reason,
        "message": message,
        "source": {"component": EVENT_COMPONENT},
        "reportingComponent": EVENT_COMPONENT,
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
    }


# --- the admission webhook -------------------------------------------------------------------------

WEBHOOK_NAME = "gate.proctor.dev"
WEBHOOK_HANDLER_ID = "proctor-gate"
#: The second webhook: how the operator learns that the API server really calls it. It dry-runs a
#: patch of a GatePolicy adding :data:`PROBE_LABEL`; this webhook (only objects with that label)
#: answers with :data:`PROBE_ANSWER_ANNOTATION` set to the same nonce.
PROBE_WEBHOOK_NAME = "probe.gate.proctor.dev"
PROBE_HANDLER_ID = "proctor-probe"
PROBE_LABEL = "proctor.dev/webhook-probe"
PROBE_ANSWER_ANNOTATION = "proctor.dev/webhook-probe-answer"
#: What makes a gated workload's pods (:mod:`proctor.gate.pods`): ReplicaSets, their scale, Pods.
#: The webhook writes the gate label into a gated Deployment's pod template, so its ReplicaSets and
#: Pods carry it: those are seen by :data:`PODS_WEBHOOK_NAME`, which fails closed like the gate.
#: Everything else (a hand-made ReplicaSet or Pod without the label, any scale of a ReplicaSet,
#: whose Scale has no labels) by :data:`WORKLOADS_WEBHOOK_NAME`, which fails open: it sees every
#: pod of the namespaces it covers, and the operator being down must not stop them all. Its Pods
#: cannot start anyway while the operator is down, if they carry the label.
PODS_WEBHOOK_NAME = "pods.gate.proctor.dev"
WORKLOADS_WEBHOOK_NAME = "workloads.gate.proctor.dev"
PODS_HANDLER_ID = "proctor-pods"


def mutating_webhook_configuration(
    ca_bundle: bytes,
    *,
    url: str | None = None,
    service: tuple[str, str, int] | None = None,
    exclude_namespaces: Sequence[str] = ("kube-system",),
    only_namespaces: Sequence[str] = (),
    timeout_seconds: int = 5,
    failure_policy: str = "Fail",
    name: str = "proctor-gate",
) -> dict[str, Any]:
    """The webhook that pauses gated Deployments: only objects labelled ``proctor.dev/gate-policy``
    (on the old or the new object: the API server matches either), never in ``exclude_namespaces``
    and, for an operator that watches some namespaces, only in ``only_namespaces`` (another
    install's namespaces are its own webhook's: this one knows neither their policies nor their
    operator, so it would hold their Deployments and refuse their approvals);
    a short timeout; ``Fail`` by default, so with the operator down a gated Deployment cannot change
    (fail closed) while everything else is untouched. Its only side effect, an Event when a person
    breaks the glass, is skipped on dry runs (``NoneOnDryRun``). And the probe webhook (see
    :data:`PROBE_WEBHOOK_NAME`), which sees nothing but the operator's own dry runs."""
    if (url is None) == (service is None):
        raise ValueError("give exactly one of url and service")

    def client(handler: str) -> dict[str, Any]:
        out: dict[str, Any] = {"caBundle": base64.b64encode(ca_bundle).decode()}
        if url is not None:
            out["url"] = url.rstrip("/") + f"/{handler}"
        else:
            assert service is not None
            out["service"] = {
                "namespace": service[0],
                "name": service[1],
                "port": service[2],
                "path": f"/{handler}",
            }
        return out

    name_key = "kubernetes.io/metadata.name"
    expressions: list[dict[str, Any]] = [
        {"key": name_key, "operator": "NotIn", "values": list(exclude_namespaces)}
    ]
    if only_namespaces:
        gated = [ns for ns in dict.fromkeys(only_namespaces) if ns not in exclude_namespaces]
        # every namespace carries its name label: DoesNotExist matches none (In needs a value)
        expressions.append(
            {"key": name_key, "operator": "In", "values": gated}
            if gated
            else {"key": name_key, "operator": "DoesNotExist"}
        )
    namespaces = {"matchExpressions": expressions}
    common = {
        "namespaceSelector": namespaces,
        "admissionReviewVersions": ["v1"],
        "matchPolicy": "Equivalent",
        "timeoutSeconds": timeout_seconds,
        "reinvocationPolicy": "Never",
    }
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": name, "labels": dict(MANAGED)},
        "webhooks": [
            {
                "name": WEBHOOK_NAME,
                "clientConfig": client(WEBHOOK_HANDLER_ID),
                "rules": [
                    {
                        "apiGroups": ["apps"],
                        "apiVersions": ["v1"],
                        "resources": ["deployments"],
                        "operations": ["CREATE", "UPDATE"],
                        "scope": "Namespaced",
                    }
                ],
                "objectSelector": {"matchExpressions": [{"key": GATE_POLICY_LABEL, "operator": "Exists"}]},
                "sideEffects": "NoneOnDryRun",
                "failurePolicy": failure_policy,
                **common,
            },
            {
                "name": PROBE_WEBHOOK_NAME,
                "clientConfig": client(PROBE_HANDLER_ID),
                "rules": [
                    {
                        "apiGroups": [GROUP],
                        "apiVersions": [API_VERSION.rpartition("/")[2]],
                        "resources": ["gatepolicies"],
                        "operations": ["UPDATE"],
                        "scope": "Namespaced",
                    }
                ],
                "objectSelector": {"matchExpressions": [{"key": PROBE_LABEL, "operator": "Exists"}]},
                "sideEffects": "None",
                "failurePolicy": "Fail",
                **common,
            },
            {
                "name": PODS_WEBHOOK_NAME,
                "clientConfig": client(PODS_HANDLER_ID),
                "rules": pod_rules(scale=False),
                "objectSelector": {"matchExpressions": [{"key": GATE_POLICY_LABEL, "operator": "Exists"}]},
                "sideEffects": "None",
                "failurePolicy": failure_policy,
                **common,
            },
            {
                "name": WORKLOADS_WEBHOOK_NAME,
                "clientConfig": client(PODS_HANDLER_ID),
                "rules": pod_rules(scale=True),
                "objectSelector": {
                    "matchExpressions": [{"key": GATE_POLICY_LABEL, "operator": "DoesNotExist"}]
                },
                "sideEffects": "None",
                "failurePolicy": "Ignore",
                **common,
            },
        ],
    }


def pod_rules(*, scale: bool) -> list[dict[str, Any]]:
    """What makes pods: ReplicaSets created or changed (and their scale, which carries no labels),
    Pods created. A Deployment's scale is not here: the Deployment controller carries it out
    through its ReplicaSets, which are."""
    return [
        {
            "apiGroups": ["apps"],
            "apiVersions": ["v1"],
            "resources": ["replicasets", "replicasets/scale"] if scale else ["replicasets"],
            "operations": ["CREATE", "UPDATE"],
            "scope": "Namespaced",
        },
        {
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "resources": ["pods"],
            "operations": ["CREATE"],
            "scope": "Namespaced",
        },
    ]
