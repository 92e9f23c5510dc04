"""The pure builders of Proctor's child objects, and the per-case result encoding."""

from __future__ import annotations

import base64
import copy
import hashlib
import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proctor.k8s import evidence
from proctor.k8s.objects import (
    AGENT_API_KEY_ENV,
    JUDGE_API_KEY_ENV,
    JUDGE_ATTEMPT_ENV,
    JUDGE_LABELS,
    JUDGE_SERVICE_ACCOUNT,
    JUDGE_TOKEN_VOLUME,
    LABEL_ATTEMPT,
    LABEL_RUN,
    LABEL_RUN_UID,
    LABEL_SHARD,
    MANAGED,
    RESULTS_KEY,
    SA_TOKEN_DIR,
    JudgeJobSpec,
    RunRef,
    SecretKey,
    candidate_security_context,
    case_record,
    decode_results,
    encode_results,
    judge_job,
    judge_job_name,
    judge_rbac,
    judge_selector,
    label_value,
    owner_reference,
    record_to_result,
    report_configmap,
    results_configmap_name,
    results_configmaps,
    shard_label,
    shard_of,
)
from proctor.protocol.types import CaseResult, DimensionScore, Failure, Tier

RUN = RunRef("agents", "support-bot-v2", "0b6c1f9e-5c2a-4c1e-9d8e-3f0a1b2c3d4e")
SPEC = JudgeJobSpec(image="ghcr.io/proctor-dev/proctor:test", deadline_seconds=1800, ttl_seconds=600)
#: What every judge container gets besides the keys a profile names: its attempt (no key of the run:
#: nothing in a judge pod makes a report believable, :mod:`proctor.k8s.evidence`).
RUN_ENV = [{"name": JUDGE_ATTEMPT_ENV, "value": "1"}]
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def pod_of(job: dict[str, Any]) -> dict[str, Any]:
    pod: dict[str, Any] = job["spec"]["template"]["spec"]
    return pod


def judge_container(job: dict[str, Any]) -> dict[str, Any]:
    judge: dict[str, Any]
    (judge,) = [c for c in pod_of(job)["containers"] if c["name"] == "judge"]
    return judge


# --- judge Jobs ---------------------------------------------------------------------------------------


def test_judge_job_is_deterministic() -> None:
    assert judge_job(RUN, 1, 3, 2, SPEC) == judge_job(RUN, 1, 3, 2, SPEC)
    assert judge_job(RUN, 1, 3, 2, SPEC)["metadata"]["name"] == "support-bot-v2-judge-1-of-3-a2"
    assert judge_job(RUN, 1, 3, 2, SPEC)["metadata"]["name"] == judge_job_name(RUN.name, 1, 3, 2)


def test_judge_job_is_owned_by_its_run() -> None:
    meta = judge_job(RUN, 0, 1, 1, SPEC)["metadata"]
    assert meta["namespace"] == "agents"
    (owner,) = meta["ownerReferences"]
    assert owner["apiVersion"] == "proctor.dev/v1alpha1"
    assert owner["kind"] == "EvalRun"
    assert (owner["name"], owner["uid"]) == (RUN.name, RUN.uid)
    assert owner["controller"] is True


def test_judge_job_labels_name_the_run_shard_and_attempt() -> None:
    job = judge_job(RUN, 2, 4, 3, SPEC)
    labels = job["metadata"]["labels"]
    assert labels[LABEL_RUN_UID] == RUN.uid
    assert labels[LABEL_RUN] == RUN.name
    assert labels[LABEL_SHARD] == "2-of-4" == shard_label(2, 4)
    assert labels[LABEL_ATTEMPT] == "3"
    assert labels["app.kubernetes.io/managed-by"] == "proctor"
    assert labels["app.kubernetes.io/component"] == "judge"
    assert job["spec"]["template"]["metadata"]["labels"] == labels
    assert all(LABEL_VALUE.match(v) and len(v) <= 63 for v in labels.values())


def test_the_judge_selector_and_watch_labels_select_every_judge_job_and_only_its_run() -> None:
    """The one selector the operator lists a run's Jobs and pods by, and the labels its watches
    filter on, match what the Job template writes: a Job it made is never invisible to it."""
    labels = judge_job(RUN, 0, 1, 1, SPEC)["metadata"]["labels"]
    wanted = dict(pair.split("=", 1) for pair in judge_selector(RUN.uid).split(","))
    assert wanted.items() <= labels.items()
    assert JUDGE_LABELS.items() <= labels.items()
    assert judge_selector("another-uid") != judge_selector(RUN.uid)


def test_judge_job_never_retries_on_its_own_and_ends() -> None:
    spec = judge_job(RUN, 0, 1, 1, SPEC)["spec"]
    assert spec["backoffLimit"] == 0
    assert spec["activeDeadlineSeconds"] == 1800
    assert spec["ttlSecondsAfterFinished"] == 600
    assert pod_of(judge_job(RUN, 0, 1, 1, SPEC))["restartPolicy"] == "Never"


def test_judge_job_runs_its_shard() -> None:
    judge = judge_container(judge_job(RUN, 1, 3, 1, SPEC))
    assert judge["image"] == SPEC.image
    assert judge["args"] == ["judge", "--run", "agents/support-bot-v2", "--shard", "1/3"]
    assert pod_of(judge_job(RUN, 1, 3, 1, SPEC))["serviceAccountName"] == JUDGE_SERVICE_ACCOUNT


def test_judge_pod_is_restricted() -> None:
    spec = JudgeJobSpec(
        image="i",
        deadline_seconds=60,
        candidate={"spec": {"containers": [{"name": "agent", "image": "agent:2"}]}},
        candidate_container="agent",
    )
    pod = pod_of(judge_job(RUN, 0, 1, 1, spec))
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    assert "hostNetwork" not in pod and "hostPID" not in pod
    sc = judge_container(judge_job(RUN, 0, 1, 1, spec))["securityContext"]
    assert sc["runAsNonRoot"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["capabilities"] == {"drop": ["ALL"]}
    assert sc["seccompProfile"] == {"type": "RuntimeDefault"}
    assert sc.get("privileged") is not True


def test_keys_reach_the_judge_only_through_secret_refs() -> None:
    spec = JudgeJobSpec(
        image="i",
        deadline_seconds=60,
        judge_key=SecretKey("judge-credentials", "api-key"),
        agent_key=SecretKey("agent-token", "token"),
    )
    env = judge_container(judge_job(RUN, 0, 1, 1, spec))["env"]
    assert env == [
        {
            "name": JUDGE_API_KEY_ENV,
            "valueFrom": {"secretKeyRef": {"name": "judge-credentials", "key": "api-key"}},
        },
        {"name": AGENT_API_KEY_ENV, "valueFrom": {"secretKeyRef": {"name": "agent-token", "key": "token"}}},
        *RUN_ENV,
    ]
    assert all("value" not in e for e in env if e["name"] != JUDGE_ATTEMPT_ENV)


def test_no_keys_only_the_runs_key_and_attempt() -> None:
    assert judge_container(judge_job(RUN, 0, 1, 1, SPEC))["env"] == RUN_ENV
    assert judge_container(judge_job(RUN, 0, 1, 3, SPEC))["env"][-1] == {
        "name": JUDGE_ATTEMPT_ENV,
        "value": "3",
    }
    assert "initContainers" not in pod_of(judge_job(RUN, 0, 1, 1, SPEC))


TEMPLATE: dict[str, Any] = {
    "metadata": {"labels": {"app": "support-bot"}},
    "spec": {
        "containers": [
            {
                "name": "agent",
                "image": "registry.example/support-bot:2.0",
                "ports": [{"containerPort": 8080}],
                "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}},
                "lifecycle": {"preStop": {"exec": {"command": ["sleep", "5"]}}},
                "restartPolicy": "OnFailure",
            },
            {"name": "metrics-exporter", "image": "exporter:1"},
        ]
    },
}


def test_the_candidate_runs_as_a_native_sidecar() -> None:
    before = copy.deepcopy(TEMPLATE)
    spec = JudgeJobSpec(image="i", deadline_seconds=60, candidate=TEMPLATE, candidate_container="agent")
    pod = pod_of(judge_job(RUN, 0, 1, 1, spec))
    side, exporter = pod["initContainers"]  # the pod runs whole: the other container too
    assert exporter["name"] == "candidate-metrics-exporter"
    assert side["name"] == "candidate-agent"
    assert side["restartPolicy"] == "Always"
    assert side["image"] == "registry.example/support-bot:2.0"
    assert side["readinessProbe"] == TEMPLATE["spec"]["containers"][0]["readinessProbe"]
    assert "lifecycle" not in side
    assert [c["name"] for c in pod["containers"]] == ["judge"]
    assert before == TEMPLATE  # the run's template is not modified


def test_without_a_named_container_every_candidate_container_is_a_sidecar() -> None:
    spec = JudgeJobSpec(image="i", deadline_seconds=60, candidate=TEMPLATE)
    sides = pod_of(judge_job(RUN, 0, 1, 1, spec))["initContainers"]
    assert [s["name"] for s in sides] == ["candidate-agent", "candidate-metrics-exporter"]
    assert all(s["restartPolicy"] == "Always" for s in sides)


def test_naming_the_serving_container_drops_none_of_the_others() -> None:
    """What a container the exam left out would have done (a proxy, a config reloader) decides the
    agent's behaviour too: the pod runs whole, the named container is only the one served."""
    spec = JudgeJobSpec(
        image="i", deadline_seconds=60, candidate=TEMPLATE, candidate_container="metrics-exporter"
    )
    sides = pod_of(judge_job(RUN, 0, 1, 1, spec))["initContainers"]
    assert [s["name"] for s in sides] == ["candidate-agent", "candidate-metrics-exporter"]


def test_a_bare_pod_spec_is_accepted_as_a_candidate() -> None:
    spec = JudgeJobSpec(
        image="i", deadline_seconds=60, candidate=TEMPLATE["spec"], candidate_container="agent"
    )
    side, _ = pod_of(judge_job(RUN, 0, 1, 1, spec))["initContainers"]
    assert side["name"] == "candidate-agent"


def test_jobs_do_not_share_mutable_parts() -> None:
    a = judge_job(RUN, 0, 1, 1, SPEC)
    b = judge_job(RUN, 0, 1, 1, SPEC)
    judge_container(a)["securityContext"]["readOnlyRootFilesystem"] = False
    judge_container(a)["securityContext"]["capabilities"]["drop"].clear()
    assert judge_container(b)["securityContext"]["readOnlyRootFilesystem"] is True
    assert judge_container(judge_job(RUN, 0, 1, 1, SPEC))["securityContext"]["capabilities"] == {
        "drop": ["ALL"]
    }


# --- judge RBAC ---------------------------------------------------------------------------------------


def _granted(rules: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {
        (group, resource, verb)
        for rule in rules
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        for verb in rule["verbs"]
    }


def test_judge_rbac_is_least_privilege() -> None:
    sa, role, binding = judge_rbac("agents")
    assert (sa["kind"], role["kind"], binding["kind"]) == ("ServiceAccount", "Role", "RoleBinding")
    assert {o["metadata"]["namespace"] for o in (sa, role, binding)} == {"agents"}
    assert sa["automountServiceAccountToken"] is False  # a pod naming it gets no token by default
    # read a run and what it references, create its results and report: no status, no Secret, and
    # no change to an existing object (a case set's ConfigMap, another run's results)
    assert _granted(role["rules"]) == {
        ("proctor.dev", "evalruns", "get"),
        ("proctor.dev", "casesets", "get"),
        ("proctor.dev", "evalprofiles", "get"),
        ("", "configmaps", "get"),
        ("", "configmaps", "create"),
    }
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": JUDGE_SERVICE_ACCOUNT,
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": JUDGE_SERVICE_ACCOUNT, "namespace": "agents"}
    ]


def test_judge_rbac_binds_the_charts_cluster_role_when_there_is_one() -> None:
    sa, binding = judge_rbac("agents", "proctor-judge-rules")
    assert (sa["kind"], binding["kind"]) == ("ServiceAccount", "RoleBinding")
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "ClusterRole",
        "name": "proctor-judge-rules",
    }


# --- the candidate holds nothing of the judge's ------------------------------------------------------------


def test_only_the_judge_container_holds_the_token_and_the_runs_key() -> None:
    spec = JudgeJobSpec(image="i", deadline_seconds=60, candidate=TEMPLATE)
    pod = pod_of(judge_job(RUN, 0, 1, 1, spec))
    assert pod["automountServiceAccountToken"] is False
    (volume,) = pod["volumes"]
    assert volume["name"] == JUDGE_TOKEN_VOLUME
    assert {next(iter(src)) for src in volume["projected"]["sources"]} == {
        "serviceAccountToken",
        "configMap",
        "downwardAPI",
    }
    judge = judge_container(judge_job(RUN, 0, 1, 1, spec))
    assert judge["volumeMounts"] == [
        {"name": JUDGE_TOKEN_VOLUME, "mountPath": SA_TOKEN_DIR, "readOnly": True}
    ]
    assert RUN_ENV[0] in judge["env"]
    # what it vouches for goes where the kubelet reads it (a pod that moved it is not this template)
    assert judge["terminationMessagePath"] == evidence.TERMINATION_LOG
    for side in pod["initContainers"]:
        assert "volumeMounts" not in side


def test_a_candidate_cannot_mount_the_judges_volume() -> None:
    """A template written for the attack: a mount of the judge's token volume (a Deployment may
    declare an emptyDir of that name), a host port."""
    hostile = {
        "spec": {
            "containers": [
                {
                    "name": "agent",
                    "image": "agent:evil",
                    "volumeMounts": [{"name": JUDGE_TOKEN_VOLUME, "mountPath": "/steal"}],
                    "volumeDevices": [{"name": JUDGE_TOKEN_VOLUME, "devicePath": "/dev/x"}],
                    "env": [
                        {"name": "OWN", "valueFrom": {"secretKeyRef": {"name": "agent-own", "key": "token"}}},
                    ],
                    "envFrom": [{"configMapRef": {"name": "settings"}}],
                    "ports": [{"containerPort": 8080, "hostPort": 80, "hostIP": "0.0.0.0"}],
                }
            ]
        }
    }
    pod = pod_of(judge_job(RUN, 0, 1, 1, JudgeJobSpec(image="i", deadline_seconds=60, candidate=hostile)))
    (side,) = pod["initContainers"]
    # the mount names the candidate's own (renamed, here absent) volume, never the judge's; the exam
    # refuses such a template before any pod (test_candidate_pod.py)
    assert side["volumeMounts"] == [{"name": f"candidate-{JUDGE_TOKEN_VOLUME}", "mountPath": "/steal"}]
    assert [v["name"] for v in pod["volumes"]] == [JUDGE_TOKEN_VOLUME]
    assert "volumeDevices" not in side
    assert [e["name"] for e in side["env"]] == ["OWN"]  # its own Secret, as in its Deployment
    assert side["envFrom"] == [{"configMapRef": {"name": "settings"}}]
    assert side["ports"] == [{"containerPort": 8080}]


def test_the_candidate_runs_restricted_keeping_the_deployments_stricter_settings() -> None:
    loose = candidate_security_context(
        {"privileged": True, "runAsUser": 0, "capabilities": {"add": ["SYS_ADMIN", "NET_BIND_SERVICE"]}},
        {"runAsUser": 0, "seccompProfile": {"type": "Unconfined"}},
    )
    assert loose == {
        "allowPrivilegeEscalation": False,
        "privileged": False,
        "runAsNonRoot": True,
        "capabilities": {"drop": ["ALL"], "add": ["NET_BIND_SERVICE"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }
    strict = candidate_security_context(
        {
            "readOnlyRootFilesystem": True,
            "runAsUser": 1001,
            "seccompProfile": {"type": "Localhost", "localhostProfile": "agent.json"},
            "seLinuxOptions": {"type": "container_t", "level": "s0:c1,c2"},
        },
        {"runAsGroup": 2000, "appArmorProfile": {"type": "RuntimeDefault"}},
    )
    assert strict == {
        "allowPrivilegeEscalation": False,
        "privileged": False,
        "runAsNonRoot": True,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "Localhost", "localhostProfile": "agent.json"},
        "readOnlyRootFilesystem": True,
        "runAsUser": 1001,
        "runAsGroup": 2000,
        "appArmorProfile": {"type": "RuntimeDefault"},
        "seLinuxOptions": {"type": "container_t", "level": "s0:c1,c2"},
    }
    # an SELinux user or role, or an unconfined type, is not carried over
    assert "seLinuxOptions" not in candidate_security_context({"seLinuxOptions": {"type": "spc_t"}}, None)
    assert "seLinuxOptions" not in candidate_security_context(
        {"seLinuxOptions": {"type": "container_t", "user": "system_u"}}, None
    )


def test_a_reports_digest_covers_its_run_shard_attempt_and_content() -> None:
    report = {"phase": "Succeeded", "results": ["x"], "sha256": "0" * 64}
    cm = report_configmap(RUN, 1, 2, 3, report)
    assert cm["metadata"]["name"] == "support-bot-v2-report-1-of-2-a3"
    assert json.loads(cm["data"]["report.json"]) == report
    digest = evidence.report_digest(RUN.uid, "1/2", 3, json.loads(cm["data"]["report.json"]))
    others = {
        evidence.report_digest(RUN.uid, "0/2", 3, report),
        evidence.report_digest(RUN.uid, "1/2", 2, report),
        evidence.report_digest("another-uid", "1/2", 3, report),
        evidence.report_digest(RUN.uid, "1/2", 3, report | {"phase": "Failed"}),
    }
    assert digest not in others and len(others) == 4


# --- names ----------------------------------------------------------------------------------------------

dns_labels = st.from_regex(r"[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?", fullmatch=True)
run_names = st.lists(dns_labels, min_size=1, max_size=12).map(".".join).filter(lambda n: len(n) <= 253)


@given(run_names, st.integers(0, 63), st.integers(1, 64), st.integers(1, 10))
def test_child_names_stay_within_limits(name: str, index: int, count: int, attempt: int) -> None:
    job = judge_job_name(name, index, count, attempt)
    assert len(job) <= 63
    assert DNS_SUBDOMAIN.match(job), job
    cm = results_configmap_name(name, index, count, attempt, 0)
    assert len(cm) <= 253
    assert DNS_SUBDOMAIN.match(cm), cm
    label = label_value(name)
    assert len(label) <= 63
    assert LABEL_VALUE.match(label), label


@given(run_names, run_names, st.integers(1, 5), st.integers(1, 5))
def test_child_names_stay_unique(a: str, b: str, attempt_a: int, attempt_b: int) -> None:
    if (a, attempt_a) != (b, attempt_b):
        assert judge_job_name(a, 0, 2, attempt_a) != judge_job_name(b, 0, 2, attempt_b)
    if a != b:
        assert label_value(a) != label_value(b)
        assert results_configmap_name(a, 0, 2, 1, 0) != results_configmap_name(b, 0, 2, 1, 0)
    if attempt_a != attempt_b:
        assert results_configmap_name(a, 0, 2, attempt_a, 0) != results_configmap_name(a, 0, 2, attempt_b, 0)


def test_long_run_names_keep_a_readable_prefix_and_a_hash() -> None:
    long = "nightly-regression-exam-for-the-customer-support-agent-" + "x" * 60
    names = {judge_job_name(long, 0, 4, attempt) for attempt in range(1, 6)}
    assert len(names) == 5
    for n in names:
        assert len(n) == 63
        assert n.startswith("nightly-regression-exam")
        assert re.search(r"-[0-9a-f]{10}$", n)
    short = judge_job_name("short", 0, 1, 1)
    assert short == "short-judge-0-of-1-a1"
    assert judge_job_name(long[:-1] + "y", 0, 4, 1) != judge_job_name(long, 0, 4, 1)


def test_owner_reference_of_results_is_not_the_controller() -> None:
    (cm,) = results_configmaps(RUN, 0, 1, encode_results([]), attempt=1)
    (owner,) = cm["metadata"]["ownerReferences"]
    assert owner == owner_reference(RUN, controller=False)
    assert owner["controller"] is False
    assert owner["uid"] == RUN.uid


def test_shard_of_spreads_cases_round_robin() -> None:
    assert [shard_of(i, 3) for i in range(7)] == [0, 1, 2, 0, 1, 2, 0]


# --- per-case results --------------------------------------------------------------------------------

texts = st.text(max_size=40)  # any Unicode: reasons and rationales quote agents and judges
scores = st.floats(0, 100, allow_nan=False)


@st.composite
def dimension_scores(draw: st.DrawFn) -> DimensionScore:
    measured = draw(st.booleans())
    return DimensionScore(
        name=draw(st.sampled_from(["safety", "factual_grounding", "tone", "llm-rubric"])),
        threshold=draw(scores),
        score=draw(scores) if measured else None,
        skipped_reason=None if measured else draw(st.text(min_size=1, max_size=40)),
        agreement=draw(st.none() | st.floats(0, 1, allow_nan=False)),
        samples=tuple(draw(st.just([]) | st.lists(scores, min_size=2, max_size=3))),
        rationale=draw(texts),
    )


@st.composite
def case_results(draw: st.DrawFn, case_id: str) -> CaseResult:
    return CaseResult(
        case_id=case_id,
        tier=draw(st.sampled_from(list(Tier))),
        failures=tuple(draw(st.lists(st.builds(Failure, texts, texts), max_size=3))),
        safety_findings=draw(st.integers(0, 3)),
        dimensions=tuple(draw(st.lists(dimension_scores(), max_size=3))),
        error=draw(st.none() | texts),
        category=draw(st.sampled_from(["", "refusals", "billing"])),
    )


@st.composite
def result_sets(draw: st.DrawFn) -> list[CaseResult]:
    ids = draw(st.lists(st.text(min_size=1, max_size=20), unique=True, max_size=12))
    return [draw(case_results(i)) for i in ids]


def unpack(cms: list[dict[str, Any]]) -> list[bytes]:
    return [base64.b64decode(cm["binaryData"][RESULTS_KEY]) for cm in cms]


def by_id(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(records, key=lambda r: json.dumps(r, sort_keys=True))


@settings(max_examples=150, deadline=None)
@given(result_sets(), st.integers(1, 64))
def test_results_round_trip_through_split_configmaps(results: list[CaseResult], part_bytes: int) -> None:
    records = [case_record(r, answer_sha256="ab" * 32) for r in results]
    blob = encode_results(records)
    cms = results_configmaps(RUN, 1, 2, blob, attempt=1, part_bytes=part_bytes)
    assert len(cms) == max(1, -(-len(blob) // part_bytes))
    assert b"".join(unpack(cms)) == blob
    decoded = decode_results(unpack(cms))
    assert by_id(decoded) == by_id(records)
    back = {r.case_id: r for r in map(record_to_result, decoded)}
    for original in results:
        again = back[original.case_id]
        assert again == original  # outcome, failures, findings, dimensions, error, category
        assert again.outcome is original.outcome


@settings(max_examples=100, deadline=None)
@given(result_sets(), st.randoms(use_true_random=False))
def test_the_same_results_encode_to_the_same_bytes(results: list[CaseResult], rnd: Any) -> None:
    records = [case_record(r) for r in results]
    shuffled = list(records)
    rnd.shuffle(shuffled)
    assert encode_results(shuffled) == encode_results(records)
    assert results_configmaps(RUN, 0, 1, encode_results(shuffled), attempt=1) == results_configmaps(
        RUN, 0, 1, encode_results(records), attempt=1
    )


def test_line_separators_inside_text_survive_the_round_trip() -> None:
    # a judge's rationale or an agent's words may hold U+2028, U+0085 or a form feed
    reason = "line\u2028separator, next\u0085line, feed\x0c, group\x1d, para\u2029"
    result = CaseResult(
        "c1",
        Tier.TRUST,
        failures=(Failure("contains", reason),),
        dimensions=(DimensionScore("tone", 50.0, 80.0, rationale=reason),),
    )
    (decoded,) = decode_results([encode_results([case_record(result)])])
    assert record_to_result(decoded) == result


def test_results_configmaps_are_labelled_and_annotated() -> None:
    blob = encode_results([case_record(CaseResult("a", Tier.SAFETY))])
    cms = results_configmaps(RUN, 1, 3, blob, attempt=2, part_bytes=10)
    assert len(cms) > 1
    names = [cm["metadata"]["name"] for cm in cms]
    assert names == [f"support-bot-v2-results-1-of-3-a2-{k}" for k in range(len(cms))]
    for k, cm in enumerate(cms):
        meta = cm["metadata"]
        assert meta["namespace"] == "agents"
        assert meta["labels"][LABEL_SHARD] == "1-of-3"
        assert meta["labels"][LABEL_RUN_UID] == RUN.uid
        assert meta["labels"]["app.kubernetes.io/component"] == "results"
        assert meta["labels"][LABEL_ATTEMPT] == "2"
        assert meta["annotations"]["proctor.dev/part"] == f"{k + 1}/{len(cms)}"
        assert len(meta["annotations"]["proctor.dev/sha256"]) == 64
        assert meta["annotations"]["proctor.dev/sha256"] == evidence.sha256(blob)


def test_empty_results_still_make_one_configmap() -> None:
    (cm,) = results_configmaps(RUN, 0, 1, encode_results([]), attempt=1)
    assert decode_results(unpack([cm])) == []


def test_several_shards_decode_together() -> None:
    a = encode_results([case_record(CaseResult("a", Tier.SAFETY))])
    b = encode_results([case_record(CaseResult("b", Tier.FORM, failures=(Failure("regex", "no match"),)))])
    parts = unpack(results_configmaps(RUN, 0, 2, a, attempt=1, part_bytes=16)) + unpack(
        results_configmaps(RUN, 1, 2, b, attempt=1)
    )
    assert [r["id"] for r in decode_results(parts)] == ["a", "b"]


def test_case_record_keeps_no_answer_and_omits_empty_fields() -> None:
    record = case_record(CaseResult("a", Tier.FORM), answer_sha256="f" * 64, repeats=3)
    assert record == {"id": "a", "tier": "form", "outcome": "passed", "answerSha256": "f" * 64, "repeats": 3}
    assert case_record(CaseResult("a", Tier.FORM)) == {"id": "a", "tier": "form", "outcome": "passed"}


def test_a_skipped_dimension_is_never_a_zero_in_the_record() -> None:
    record = case_record(CaseResult("a", Tier.TRUST, dimensions=(DimensionScore("tone", 50.0),)))
    (dim,) = record["dimensions"]
    assert dim == {"name": "tone", "threshold": 50.0, "skipped": "skipped"}  # a reason is always written
    again = record_to_result(record)
    assert again.dimensions[0].score is None
    assert again.dimensions[0].skipped_reason == "skipped"
    assert record["outcome"] == again.outcome.value == "unmeasured"


@pytest.mark.parametrize("samples", [(), (70.0,)])
def test_a_single_sample_is_not_stored(samples: tuple[float, ...]) -> None:
    record = case_record(
        CaseResult("a", Tier.TRUST, dimensions=(DimensionScore("tone", 50.0, 70.0, samples=samples),))
    )
    assert "samples" not in record["dimensions"][0]


def test_a_runs_cases_are_pinned_in_the_operators_namespace_and_read_back_as_they_were() -> None:
    from proctor.k8s.objects import (
        SNAPSHOT_KEY,
        configmap_blob,
        decode_cases,
        encode_cases,
        snapshot_configmaps,
    )

    run = RunRef("team", "r", "uid-1")
    noise = [hashlib.sha256(str(i).encode()).hexdigest() for i in range(5000)]  # gzip cannot fold it
    cases = [{"id": f"c{i:05d}", "tier": "form", "input": f"q {i} {noise[i]}"} for i in range(5000)]
    blob = encode_cases(cases)
    assert encode_cases(cases) == blob  # the same cases, the same bytes: a repeated step changes nothing
    cms = snapshot_configmaps(run, blob, namespace="proctor-system", part_bytes=64 * 1024)
    names = [c["metadata"]["name"] for c in cms]
    assert len(cms) > 1 and names[:2] == ["proctor-cases-uid-1-0", "proctor-cases-uid-1-1"]
    for cm in cms:
        meta = cm["metadata"]
        # never the run's namespace, where the tenant reads ConfigMaps
        assert meta["namespace"] == "proctor-system"
        assert meta["labels"]["app.kubernetes.io/component"] == "cases"
        assert meta["labels"]["proctor.dev/run-uid"] == "uid-1"
        assert meta["labels"]["proctor.dev/run-namespace"] == "team"
        assert "ownerReferences" not in meta  # none can cross namespaces: the operator deletes them
    assert decode_cases([configmap_blob(cm, SNAPSHOT_KEY) for cm in cms]) == cases


def test_a_decisions_event_name_is_the_decisions() -> None:
    from proctor.k8s.objects import event, event_name

    name = event_name("r", "uid-1", "VerdictFail", "verdict")
    assert name == event_name("r", "uid-1", "VerdictFail", "verdict")
    assert name != event_name("r", "uid-2", "VerdictFail", "verdict")  # another run of that name
    assert name != event_name("r", "uid-1", "JobCreated", "verdict")
    assert len(event_name("x" * 300, "u", "R", "k")) <= 253
    involved = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "namespace": "t",
        "name": "r",
        "uid": "u",
    }
    named = event(
        involved, type="Warning", reason="VerdictFail", message="m", now="2026-01-01T00:00:00Z", name=name
    )
    assert named["metadata"] == {"namespace": "t", "labels": dict(MANAGED), "name": name}
    assert named["involvedObject"] == involved and named["count"] == 1
    anonymous = event(involved, type="Normal", reason="X", message="m", now="2026-01-01T00:00:00Z")
    assert anonymous["metadata"]["generateName"] == "r."


def test_the_results_a_tenant_reads_never_say_why_in_words() -> None:
    """A reason may quote the expected answer and a judge's rationale the reference: the run's
    namespace keeps what failed (case, tier, assertion type, scores, thresholds), the operator's
    namespace the whole record."""
    from proctor.k8s.objects import WITHHELD_REASON, detail_configmaps, public_record

    result = CaseResult(
        "c1",
        Tier.SAFETY,
        failures=(Failure("label", "expected label HIGH, got NORMAL"),),
        dimensions=(DimensionScore("faithfulness", 0.7, score=0.2, rationale="the manual says HIGH"),),
    )
    full = case_record(result) | {"grounding": "amm-72-00"}
    public = public_record(full)
    assert "HIGH" not in json.dumps(public)
    assert public["grounding"] == "amm-72-00"  # the profile's document ids: the tenant's own
    assert public["failures"] == [{"assertion": "label", "reason": WITHHELD_REASON}]
    assert public["dimensions"] == [{"name": "faithfulness", "threshold": 0.7, "score": 0.2}]
    assert record_to_result(public).outcome is result.outcome  # the verdict needs no reason
    assert full["failures"][0]["reason"] == "expected label HIGH, got NORMAL"  # the input is not changed
    (cm,) = detail_configmaps(RunRef("team", "r", "uid-1"), 0, 2, 1, b"x", namespace="proctor-system")
    assert cm["metadata"]["name"] == "proctor-results-uid-1-0-of-2-a1-0"
    assert cm["metadata"]["namespace"] == "proctor-system" and "ownerReferences" not in cm["metadata"]
