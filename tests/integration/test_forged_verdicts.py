"""Forged verdicts, tried for real: a candidate that attacks from inside the judge pod, a tenant who
plants results or runs a pod that copies the judge's, the judge's own account used to write a
status, a tenant who squats the gate's exam or approves a template itself.

Each must fail to get a PASS (or an approval): the candidate holds no credential, the operator
believes only reports a pod of the run's own Job vouched for (from a Job that succeeded), the
judge's account writes no status, the gate decides only from its own runs, and only the operator
writes an approval.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO, Cluster, wait_for
from proctor.api import content_digest, parse_caseset, parse_policy, resolve_cases
from proctor.gate.admission import APPROVED_ANNOTATION, PENDING_ANNOTATION
from proctor.gate.identity import ExamContext, approval_identity, case_versions, observed_digest
from proctor.k8s import evidence
from proctor.k8s.objects import (
    LABEL_RUN_UID,
    RunRef,
    case_record,
    encode_results,
    policy_run,
    report_configmap,
    report_configmap_name,
    results_configmaps,
)
from proctor.protocol.types import CaseResult, Tier
from proctor.reconcile.gates import Identity, exam_name

EXAMPLE = REPO / "examples" / "oil-monitoring"
AGENT = REPO / "examples" / "agent" / "deployment.yaml"
FAST = {"PROCTOR_METRICS_PORT": "0", "PROCTOR_RECONCILE_INTERVAL": "1", "PROCTOR_RETRY_BACKOFF": "1,1,1,1"}
TENANT = "tenant"


@pytest.fixture
def operator(
    crds: Cluster, start_operator: Callable[..., subprocess.Popen[bytes]]
) -> Callable[..., subprocess.Popen[bytes]]:
    def start(*, webhook: bool = False, **env: str) -> subprocess.Popen[bytes]:
        return start_operator(webhook=webhook, **{**FAST, **env})

    return start


@pytest.fixture
def tenant(crds: Cluster, namespace: str) -> Callable[..., subprocess.CompletedProcess[str]]:
    """kubectl as a tenant who may write ConfigMaps and Proctor's kinds (not their status)."""
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "tenant"},
        "rules": [
            {
                "apiGroups": [""],
                "resources": ["configmaps"],
                "verbs": ["get", "list", "create", "update", "patch", "delete"],
            },
            {
                "apiGroups": ["proctor.dev"],
                "resources": ["evalruns", "casesets", "evalprofiles", "gatepolicies"],
                "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
            },
        ],
    }
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(role))
    crds.kubectl("-n", namespace, "create", "rolebinding", "tenant", "--role=tenant", f"--user={TENANT}")

    def as_tenant(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
        return crds.kubectl("-n", namespace, f"--as={TENANT}", *args, check=False, **kw)

    return as_tenant


def _answers(name: str) -> dict[str, str]:
    out: dict[str, str] = yaml.safe_load((EXAMPLE / "answers" / f"{name}.yaml").read_text())
    return out


def _status(cluster: Cluster, ns: str, name: str) -> dict[str, Any]:
    out: dict[str, Any] = cluster.get_json("-n", ns, "evalrun", name).get("status") or {}
    return out


def _wait_done(cluster: Cluster, ns: str, name: str, timeout: float = 240) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        st = _status(cluster, ns, name)
        return st if st.get("phase") in ("Evaluated", "PartiallyEvaluated", "Failed") else None

    status: dict[str, Any] = wait_for(done, timeout=timeout, interval=0.5, what=f"EvalRun {name} to finish")
    return status


def _events(cluster: Cluster, ns: str, reason: str) -> list[dict[str, Any]]:
    return [e for e in cluster.get_json("-n", ns, "events")["items"] if e.get("reason") == reason]


# --- the candidate ---------------------------------------------------------------------------------

#: The candidate's code: it answers every question wrongly (NORMAL), and meanwhile tries what a
#: container can: the token a kubelet would give it (KUBECONFIG here; the in-cluster files in a
#: real cluster), else anonymous access, to plant an "everything passed" report and write the run's
#: status with the judge's field manager. It logs what it got.
ATTACK = textwrap.dedent(
    """
    import json, os, threading, time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from kubernetes import client, config

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = json.dumps({"answer": "NORMAL: within limits (AMM 72-00)."}).encode()
            self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
            self.wfile.write(body)

    srv = ThreadingHTTPServer((os.environ["POD_IP"], 8080), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()

    def report(**kw):
        print("ATTACK " + json.dumps(kw), flush=True)

    token_file = "/var/run/secrets/kubernetes.io/serviceaccount/token"
    kubeconfig = os.environ.get("KUBECONFIG")
    report(kubeconfig=kubeconfig, token_file=os.path.exists(token_file))
    if kubeconfig:
        config.load_kube_config(kubeconfig)
        api = client.ApiClient()
    else:
        cfg = client.Configuration()
        cfg.host = os.environ["ATTACK_API"]
        cfg.ssl_ca_cert = os.environ["ATTACK_CA"]
        api = client.ApiClient(cfg)
    ns, run, uid = os.environ["NS"], os.environ["RUN"], os.environ["RUN_UID"]
    labels = {
        "app.kubernetes.io/managed-by": "proctor",
        "app.kubernetes.io/component": "report",
        "proctor.dev/run-uid": uid,
        "proctor.dev/shard": "0-of-1",
        "proctor.dev/attempt": "1",
    }
    owner = {"apiVersion": "proctor.dev/v1alpha1", "kind": "EvalRun", "name": run, "uid": uid}
    forged = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": f"{run}-report-0-of-1-a1", "namespace": ns, "labels": labels,
                     "ownerReferences": [owner]},
        "data": {"report.json": json.dumps({"phase": "Succeeded", "results": ["x"], "sha256": "0" * 64})},
    }
    for what, call in [
        ("create-report", lambda: client.CoreV1Api(api).create_namespaced_config_map(ns, forged)),
        ("patch-status", lambda: client.CustomObjectsApi(api).patch_namespaced_custom_object_status(
            "proctor.dev", "v1alpha1", ns, "evalruns", run,
            {"apiVersion": "proctor.dev/v1alpha1", "kind": "EvalRun", "metadata": {"name": run},
             "status": {"phase": "Evaluated", "verdict": "PASS", "exitCode": 0}},
            field_manager="proctor-judge-0-of-1", force=True, _content_type="application/apply-patch+yaml")),
    ]:
        try:
            call()
            report(**{what: "done"})
        except Exception as e:
            report(**{what: getattr(e, "status", None) or type(e).__name__})
    time.sleep(3600)
    """
)


def _api(cluster: Cluster) -> tuple[str, str]:
    """The API server's URL and the cluster CA's path, from the admin kubeconfig (what an attacker
    inside the cluster knows anyway: kubernetes.default.svc and the CA a pod is given)."""
    kc = yaml.safe_load(cluster.kubeconfig.read_text())
    server = kc["clusters"][0]["cluster"]
    ca = server.get("certificate-authority")
    if ca is None:
        path = cluster.kubeconfig.parent / "attack-ca.crt"
        path.write_bytes(base64.b64decode(server["certificate-authority-data"]))
        ca = str(path)
    elif not Path(ca).is_absolute():
        ca = str(cluster.kubeconfig.parent / ca)
    return str(server["server"]), ca


def test_a_candidate_cannot_forge_its_own_pass(crds: Cluster, namespace: str, operator: Any) -> None:
    """The issue's attack from inside the judge pod. The stand-in gives a container a token only when
    it mounts one, as a kubelet does, so the candidate has none and is refused as anonymous; its
    wrong answers FAIL. (The stand-in cannot stop a host process from reading another container's
    files: the script uses only what a container could.)"""
    if not crds.local:
        pytest.skip("the candidate runs as a local process through the node stand-in")
    operator()
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    server, ca = _api(crds)
    run = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "evil"},
        "spec": {
            "caseSetRef": {"name": "oil-monitoring"},
            "timeoutSeconds": 300,
            "target": {
                "candidate": {
                    "protocol": "http-json",
                    "port": 8080,
                    "path": "/ask",
                    "requestTemplate": '{"question": {{input}}}',
                    "responsePath": "answer",
                },
                "podTemplate": {
                    "spec": {
                        "containers": [
                            {
                                "name": "agent",
                                "image": "proctor:attack",
                                "command": [sys.executable, "-c", ATTACK],
                                "env": [
                                    {
                                        "name": "POD_IP",
                                        "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}},
                                    },
                                    {"name": "NS", "value": namespace},
                                    {"name": "RUN", "value": "evil"},
                                    {
                                        "name": "RUN_UID",
                                        "valueFrom": {
                                            "fieldRef": {"fieldPath": f"metadata.labels['{LABEL_RUN_UID}']"}
                                        },
                                    },
                                    {"name": "ATTACK_API", "value": server},
                                    {"name": "ATTACK_CA", "value": ca},
                                ],
                            }
                        ]
                    }
                },
            },
        },
    }
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(run))
    status = _wait_done(crds, namespace, "evil")
    assert status["verdict"] == "FAIL", status.get("message")
    pods = crds.get_json("-n", namespace, "pods", "-l", "app.kubernetes.io/component=judge")["items"]
    logs = "".join(
        crds.kubectl(
            "-n", namespace, "logs", p["metadata"]["name"], "-c", "candidate-agent", check=False
        ).stdout
        for p in pods
    )
    said: dict[str, Any] = {}
    for line in logs.splitlines():
        if line.startswith("ATTACK "):
            said |= json.loads(line[len("ATTACK ") :])
    assert said.get("kubeconfig") is None and said.get("token_file") is False, said
    assert said.get("create-report") in (401, 403), said
    assert said.get("patch-status") in (401, 403), said


# --- a tenant plants results; the judge's account writes a status ------------------------------------


def _token_kubeconfig(cluster: Cluster, namespace: str, sa: str, path: Path) -> Path:
    token = cluster.kubectl("-n", namespace, "create", "token", sa, "--duration=1h").stdout.strip()
    server, ca = _api(cluster)
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": server, "certificate-authority": ca}}],
                "users": [{"name": sa, "user": {"token": token}}],
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": sa, "namespace": namespace}}],
                "current-context": "c",
            }
        )
    )
    return path


def _forgeries(run: RunRef) -> list[dict[str, Any]]:
    """An "everything passed" report and its results for attempt 1, with the run's owner reference
    and the judge's labels and names, exactly as the judge would write them."""
    passed = [case_record(CaseResult(i, Tier.SAFETY)) for i in _answers("v2-band-bug")]
    blob = encode_results(passed)
    cms = results_configmaps(run, 0, 1, blob, attempt=1)

    report = {
        "phase": "Succeeded",
        "results": [c["metadata"]["name"] for c in cms],
        "sha256": evidence.sha256(blob),
        "summary": {"cases": len(passed), "passed": len(passed), "failed": 0, "unmeasured": 0},
    }
    return [*cms, report_configmap(run, 0, 1, 1, report)]


def test_planted_results_are_ignored_and_never_pass(
    crds: Cluster, namespace: str, operator: Any, tenant: Any, tmp_path: Path
) -> None:
    """A tenant who may write ConfigMaps plants an "everything passed" report and results under the
    names the judge will use, before it runs, with the run's owner and the judge's labels, exactly
    as the judge writes them. No pod of the run's Job vouches for them: the operator rejects them
    with a Warning; the judge refuses to overwrite them (that attempt fails and is retried under new
    names); the verdict is the real one. The judge's own account cannot write the run's status."""
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    run = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "planted"},
        "spec": {
            "caseSetRef": {"name": "oil-monitoring"},
            "target": {"responses": {"inline": _answers("v2-band-bug")}},
        },
    }
    assert tenant("create", "-f", "-", input=json.dumps(run)).returncode == 0
    ref = RunRef(
        namespace, "planted", crds.get_json("-n", namespace, "evalrun", "planted")["metadata"]["uid"]
    )
    for cm in _forgeries(ref):
        out = tenant("create", "-f", "-", input=json.dumps(cm))
        assert out.returncode == 0, out.stderr
    operator()
    status = _wait_done(crds, namespace, "planted")
    assert status["verdict"] == "FAIL", status.get("message")
    rejected = _events(crds, namespace, "ReportRejected")
    assert any(
        report_configmap_name("planted", 0, 1, 1) in e["message"] and "vouches" in e["message"]
        for e in rejected
    ), [e["message"] for e in rejected]
    (shard,) = status["shards"]
    assert shard["attempts"] >= 2 and all("-a1-" not in n for n in shard["results"])

    # the judge's account, as the issue's attacker used it: a shard entry applied with the judge's
    # field manager, and the verdict itself. Both forbidden: the judge writes no status at all.
    kc = _token_kubeconfig(crds, namespace, "proctor-judge", tmp_path / "judge.kubeconfig")
    forged = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "planted"},
        "status": {
            "phase": "Evaluated",
            "verdict": "PASS",
            "shards": [{"name": "0/1", "phase": "Succeeded"}],
        },
    }
    as_judge = subprocess.run(
        [
            crds.kubectl_bin,
            f"--kubeconfig={kc}",
            "apply",
            "--server-side",
            "--subresource=status",
            "--field-manager=proctor-judge-0-of-1",
            "--force-conflicts",
            "-f",
            "-",
        ],
        input=json.dumps(forged),
        capture_output=True,
        text=True,
        check=False,
    )
    assert as_judge.returncode != 0 and "forbidden" in as_judge.stderr.lower(), as_judge.stderr
    assert _status(crds, namespace, "planted")["verdict"] == "FAIL"


# --- a tenant squats the gate's exam -----------------------------------------------------------------


@pytest.mark.admission  # a webhook configuration and a gated Deployment
def test_a_squatted_exam_never_approves_the_template(
    crds: Cluster, namespace: str, operator: Any, tenant: Any
) -> None:
    """The exam's name is predictable (the Deployment, and the identity: the template, what it reads,
    the cases and the policy, all readable by the tenant):
    a tenant creates an EvalRun of that name first, owned by the policy and labelled as its exam,
    on an easy case set with the right answers, so it PASSes. The gate does not take its verdict:
    ExamNotTrusted, and the template is never approved."""
    if not crds.local:
        pytest.skip("the example agent runs through the node stand-in; the webhook is on loopback")
    operator(webhook=True)
    crds.kubectl(
        "-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"), "-f", str(EXAMPLE / "gatepolicy.yaml")
    )
    easy = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "CaseSet",
        "metadata": {"name": "easy"},
        "spec": {
            "cases": [
                {"id": "hello", "tier": "form", "input": "hi", "assert": [{"type": "contains", "value": "a"}]}
            ]
        },
    }
    assert tenant("apply", "-f", "-", input=json.dumps(easy)).returncode == 0
    raw_policy = crds.get_json("-n", namespace, "gatepolicy", "oil-monitoring")
    policy = parse_policy(raw_policy)
    # the template as the API server stores it (defaults filled in): what the gate hashes
    stored = crds.kubectl("-n", namespace, "apply", "--dry-run=server", "-o", "json", "-f", str(AGENT))
    template = json.loads(stored.stdout)["spec"]["template"]
    # the exam's name from what a tenant can read: the identity of the template on the policy's cases
    stored_cases = crds.get_json("-n", namespace, "caseset", "oil-monitoring")
    cases = resolve_cases(parse_caseset(stored_cases), {})
    context = ExamContext(content_digest(cases), policy.metadata.uid or "", policy.metadata.generation or 0)
    ident = Identity(
        approval_identity(template, {}, context), observed_digest({}, case_versions(stored_cases))
    )
    name = exam_name("oil-agent", ident)
    squat = policy_run(policy, "exam", name, template, workload="oil-agent", identity=ident.digest)
    squat["spec"]["caseSetRef"] = {"name": "easy"}
    squat["spec"]["target"] = {"responses": {"inline": {"hello": "a fine answer"}}}
    squat["metadata"]["namespace"] = namespace
    squat["metadata"]["ownerReferences"][0]["blockOwnerDeletion"] = False
    out = tenant("create", "-f", "-", input=json.dumps(squat))
    assert out.returncode == 0, out.stderr
    assert _wait_done(crds, namespace, name)["verdict"] == "PASS"  # the operator ran it, honestly
    crds.kubectl("-n", namespace, "apply", "-f", str(AGENT))

    wait_for(
        lambda: any(
            "oil-agent" in e["message"] or e["involvedObject"]["name"] == "oil-agent"
            for e in _events(crds, namespace, "ExamNotTrusted")
        ),
        timeout=120,
        interval=1,
        what="the ExamNotTrusted Event",
    )
    entry = next(
        w
        for w in crds.get_json("-n", namespace, "gatepolicy", "oil-monitoring")["status"]["workloads"]
        if w["name"] == "oil-agent"
    )
    assert entry["message"].startswith("not examined") and "another pod template" in entry["message"], entry
    d = crds.get_json("-n", namespace, "deployment", "oil-agent")
    assert APPROVED_ANNOTATION not in (d["metadata"].get("annotations") or {})


# --- the tenant-attack suite: a verdict comes only from the run's own Job ----------------------------
#
# The tenant of the trust model (README "Security"): a ServiceAccount that may edit Deployments (and
# their scale) and ConfigMaps in its own namespace and create any pod there, acting through a
# token-only kubeconfig (a TokenRequest for that account), never the admin.

TENANT_SA = "tenant"


@pytest.fixture
def tenant_sa(
    crds: Cluster, namespace: str, tmp_path: Path
) -> Callable[..., subprocess.CompletedProcess[str]]:
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": TENANT_SA},
        "rules": [
            {
                "apiGroups": ["apps"],
                "resources": ["deployments", "deployments/scale"],
                "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
            },
            {
                "apiGroups": [""],
                "resources": ["configmaps"],
                "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
            },
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch", "create", "delete"]},
        ],
    }
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(role))
    crds.kubectl("-n", namespace, "create", "serviceaccount", TENANT_SA)
    crds.kubectl(
        "-n", namespace, "create", "rolebinding", TENANT_SA, f"--role={TENANT_SA}",
        f"--serviceaccount={namespace}:{TENANT_SA}",
    )  # fmt: skip
    kc = _token_kubeconfig(crds, namespace, TENANT_SA, tmp_path / "tenant-sa.kubeconfig")

    def as_tenant(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [crds.kubectl_bin, f"--kubeconfig={kc}", "-n", namespace, *args],
            capture_output=True,
            text=True,
            check=False,
            **kw,
        )

    return as_tenant


#: A candidate that serves wrong answers (NORMAL for everything), but only once the test says so:
#: until then the run's genuine judge waits for it, and the tenant has its turn.
WAITING_CANDIDATE = textwrap.dedent(
    """
    import json, os, pathlib, time
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            body = json.dumps({"answer": "NORMAL: within limits (AMM 72-00)."}).encode()
            self.send_response(200); self.send_header("Content-Length", str(len(body))); self.end_headers()
            self.wfile.write(body)

    while not pathlib.Path(os.environ["GO"]).exists():
        time.sleep(0.2)
    ThreadingHTTPServer((os.environ["POD_IP"], 8080), H).serve_forever()
    """
)

#: The tenant's pod: with whatever the judge pod has (its ServiceAccount and token), it writes an
#: "everything passed" report and results exactly as the judge would, and vouches for the report
#: in its own termination message as the judge does.
FORGER = textwrap.dedent(
    """
    import json, os
    from kubernetes import client, config
    from proctor.k8s import evidence
    from proctor.k8s.objects import RunRef, case_record, encode_results, report_configmap, results_configmaps
    from proctor.protocol.types import CaseResult, Tier

    config.load_kube_config(os.environ["KUBECONFIG"])
    core = client.CoreV1Api()
    ns, run, uid = os.environ["NS"], os.environ["RUN"], os.environ["RUN_UID"]
    ref = RunRef(ns, run, uid)
    ids = json.loads(os.environ["CASES"])
    blob = encode_results([case_record(CaseResult(i, Tier.SAFETY)) for i in ids])
    cms = results_configmaps(ref, 0, 1, blob, attempt=1)
    report = {"phase": "Succeeded", "results": [c["metadata"]["name"] for c in cms],
              "sha256": evidence.sha256(blob),
              "summary": {"cases": len(ids), "passed": len(ids), "failed": 0, "unmeasured": 0}}
    for cm in [*cms, report_configmap(ref, 0, 1, 1, report)]:
        core.create_namespaced_config_map(ns, cm)
        print("FORGED", cm["metadata"]["name"], flush=True)
    digest = evidence.report_digest(uid, "0/1", 1, report)
    path = os.environ.get(evidence.NODE_TERMINATION_LOG_ENV) or evidence.TERMINATION_LOG
    with open(path, "w") as f:
        f.write(evidence.termination_message(digest, "everything passed"))
    """
)


def _candidate_run(name: str, go: Path) -> dict[str, Any]:
    return {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": name},
        "spec": {
            "caseSetRef": {"name": "oil-monitoring"},
            "timeoutSeconds": 600,
            "target": {
                "candidate": {
                    "protocol": "http-json",
                    "port": 8080,
                    "path": "/ask",
                    "requestTemplate": '{"question": {{input}}}',
                    "responsePath": "answer",
                    "readinessTimeoutSeconds": 600,
                },
                "podTemplate": {
                    "spec": {
                        "containers": [
                            {
                                "name": "agent",
                                "image": "proctor:candidate",
                                "command": [sys.executable, "-c", WAITING_CANDIDATE],
                                "env": [
                                    {
                                        "name": "POD_IP",
                                        "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}},
                                    },
                                    {"name": "GO", "value": str(go)},
                                ],
                            }
                        ]
                    }
                },
            },
        },
    }


def _forging_pod(judge_pod: Mapping[str, Any], ns: str, run: str, uid: str, *, owned: bool) -> dict[str, Any]:
    """A pod with the judge pod's ServiceAccount, token volume and labels, running the tenant's own
    command; when ``owned``, also the judge pod's owner reference (the Job, as its controller). The
    Job's selector label is left out: with it the Job controller would count the pod as an extra
    one of its own and delete it (without it, it may release the pod: either way Kubernetes helps;
    what is tested here is that the operator never believes it)."""
    meta, spec = judge_pod["metadata"], judge_pod["spec"]
    selector = ("batch.kubernetes.io/controller-uid", "controller-uid")
    labels = {k: v for k, v in meta["labels"].items() if k not in selector}
    judge = next(c for c in spec["containers"] if c["name"] == "judge")
    tokens = [v for v in spec["volumes"] if v["name"] in {m["name"] for m in judge["volumeMounts"]}]
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"{run}-forger", "labels": labels},
        "spec": {
            "serviceAccountName": spec["serviceAccountName"],
            "automountServiceAccountToken": False,
            "restartPolicy": "Never",
            "volumes": tokens,
            "containers": [
                {
                    "name": "judge",
                    "image": judge["image"],
                    "command": [sys.executable, "-c", FORGER],
                    "env": [
                        {"name": "NS", "value": ns},
                        {"name": "RUN", "value": run},
                        {"name": "RUN_UID", "value": uid},
                        {"name": "CASES", "value": json.dumps(sorted(_answers("v2-band-bug")))},
                    ],
                    "volumeMounts": judge["volumeMounts"],
                }
            ],
        },
    }
    if owned:
        pod["metadata"]["ownerReferences"] = [
            {k: v for k, v in o.items() if k != "blockOwnerDeletion"} for o in meta["ownerReferences"]
        ]
    return pod


@pytest.mark.parametrize("owned", [False, True], ids=["judge-account-and-token", "owned-by-the-job"])
def test_a_tenant_pod_that_copies_the_judge_never_makes_a_verdict(
    crds: Cluster, namespace: str, operator: Any, tenant_sa: Any, tmp_path: Path, owned: bool
) -> None:
    """While the genuine judge waits for its candidate, the tenant creates a pod with everything the
    judge pod has (the ServiceAccount proctor-judge, its projected token, its labels) and, in the
    second case, an owner reference to the judge Job as its controller, running its own command:
    it writes an "everything passed" report and results under the
    judge's names and vouches for them in its termination message. No key exists to steal; the pod
    is not what the Job's template makes, so nothing it vouches for is believed: a Warning, the
    attempt retried, and the real verdict (FAIL), never PASS."""
    if not crds.local:
        pytest.skip("the candidate and the tenant's pod run through the node stand-in")
    go = tmp_path / "go"
    operator()
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_candidate_run("exam", go)))
    uid = crds.get_json("-n", namespace, "evalrun", "exam")["metadata"]["uid"]

    def judge_pod() -> dict[str, Any] | None:
        out = tenant_sa("get", "pods", "-l", "app.kubernetes.io/component=judge", "-o", "json")
        assert out.returncode == 0, out.stderr
        running = [
            p for p in json.loads(out.stdout)["items"] if (p.get("status") or {}).get("phase") == "Running"
        ]
        return running[0] if running else None

    genuine = wait_for(judge_pod, timeout=120, what="the genuine judge pod")
    forger = _forging_pod(genuine, namespace, "exam", uid, owned=owned)
    made = tenant_sa("create", "-f", "-", input=json.dumps(forger))
    assert made.returncode == 0, made.stderr

    def forged() -> bool:
        out = tenant_sa("get", "pod", forger["metadata"]["name"], "-o", "json")
        phase = json.loads(out.stdout).get("status", {}).get("phase") if out.returncode == 0 else None
        assert phase != "Failed", tenant_sa("logs", forger["metadata"]["name"]).stdout
        return phase == "Succeeded"

    wait_for(forged, timeout=120, what="the tenant's pod to write its forgery")
    assert tenant_sa("get", "configmap", report_configmap_name("exam", 0, 1, 1)).returncode == 0
    go.touch()
    status = _wait_done(crds, namespace, "exam", timeout=300)
    assert status["verdict"] == "FAIL", status.get("message")
    rejected = [e for e in _events(crds, namespace, "ReportRejected") if e["type"] == "Warning"]
    messages = [e["message"] for e in rejected]
    # owned: the operator finds it is not the Job's template, unless the Job controller released it
    # first (a pod it controls must match its selector, which the forger leaves out)
    why = ("template makes", "not controlled by Job") if owned else ("not controlled by Job",)
    assert any(forger["metadata"]["name"] in m and any(w in m for w in why) for m in messages), messages
    assert any(report_configmap_name("exam", 0, 1, 1) in m and "vouches" in m for m in messages), messages
    (shard,) = status["shards"]
    assert shard["attempts"] >= 2 and all("-a1-" not in n for n in shard["results"])


def test_a_job_that_failed_after_its_judge_reported_yields_no_verdict(
    crds: Cluster, namespace: str, operator: Any
) -> None:
    """The judge measures right answers, writes its report, vouches for it, and then its container
    ends in error (the image here exits 3 after the judge: a crash, an OOM kill on the way out).
    The report is genuine, and still no verdict: a Job that failed never yields one. The run ends
    in ERROR with the cause, never PASS."""
    if not crds.local:
        pytest.skip("the failing judge image is a command of the node stand-in")
    operator(PROCTOR_JUDGE_IMAGE="proctor-fails-after-report", PROCTOR_MAX_ATTEMPTS="2")
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    run = {
        "apiVersion": "proctor.dev/v1alpha1",
        "kind": "EvalRun",
        "metadata": {"name": "crashy"},
        "spec": {
            "caseSetRef": {"name": "oil-monitoring"},
            "target": {"responses": {"inline": _answers("v1-correct")}},
        },
    }
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(run))
    status = _wait_done(crds, namespace, "crashy")
    assert (status["phase"], status["verdict"]) == ("Failed", "ERROR"), status.get("message")
    # the report was the judge's own: its pod vouched for it, and it said every case passed
    cm = crds.get_json("-n", namespace, "configmap", report_configmap_name("crashy", 0, 1, 1))
    report = json.loads(cm["data"]["report.json"])
    assert report["phase"] == "Succeeded" and report["summary"]["failed"] == 0
    (pod,) = crds.get_json("-n", namespace, "pods", "-l", "job-name=crashy-judge-0-of-1-a1")["items"]
    (judge,) = [c for c in pod["status"]["containerStatuses"] if c["name"] == "judge"]
    assert judge["state"]["terminated"]["exitCode"] == 3
    uid = crds.get_json("-n", namespace, "evalrun", "crashy")["metadata"]["uid"]
    said = evidence.vouched(judge["state"]["terminated"].get("message"))
    assert said == evidence.report_digest(uid, "0/1", 1, report)
    messages = [e["message"] for e in _events(crds, namespace, "ReportRejected")]
    assert any("its Job failed" in m for m in messages), messages


@pytest.mark.admission  # a webhook configuration and a gated Deployment
def test_a_tenant_cannot_approve_a_template_itself(
    crds: Cluster, namespace: str, operator: Any, tenant_sa: Any
) -> None:
    """The approval is written only by the operator's identity: the tenant, with its right to patch
    Deployments, copies the held template's hash into the approval and unpauses. Refused; the
    Deployment stays held."""
    if not crds.local:
        pytest.skip("the webhook is on loopback")
    operator(webhook=True)
    crds.kubectl(
        "-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"), "-f", str(EXAMPLE / "gatepolicy.yaml")
    )
    made = tenant_sa("apply", "-f", str(AGENT))
    assert made.returncode == 0, made.stderr

    def held() -> dict[str, Any] | None:
        d = crds.get_json("-n", namespace, "deployment", "oil-agent")
        return d if PENDING_ANNOTATION in (d["metadata"].get("annotations") or {}) else None

    d = wait_for(held, timeout=120, interval=1, what="the gate to hold the new Deployment")
    pending = d["metadata"]["annotations"][PENDING_ANNOTATION]
    forged = {"metadata": {"annotations": {APPROVED_ANNOTATION: pending}}, "spec": {"paused": False}}
    out = tenant_sa("patch", "deployment", "oil-agent", "--type=merge", "-p", json.dumps(forged))
    assert out.returncode != 0 and "written only by the Proctor operator" in out.stderr, out
    after = crds.get_json("-n", namespace, "deployment", "oil-agent")
    assert (after["metadata"].get("annotations") or {}).get(APPROVED_ANNOTATION) != pending


# --- the cases are the operator's, not the tenant's (guarantee 4) --------------------------------------

#: A pod's probe of the operator's case server: it asks for cases with the token it holds (a file
#: its volume projects, found as the stand-in maps the mount path, or none) and prints the answer.
PROBE = textwrap.dedent(
    """
    import json, os, ssl, urllib.error, urllib.request
    from proctor.k8s.objects import mounted

    token = ""
    if os.environ.get("TOKEN_PATH"):
        with open(mounted(os.environ["TOKEN_PATH"], os.environ)) as f:
            token = f.read().strip()
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(os.environ["CASES_URL"] + "/v1/cases", headers=headers)
    context = ssl.create_default_context(cadata=os.environ["CASES_CA"])
    try:
        with urllib.request.urlopen(request, context=context, timeout=30) as r:
            status, body = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, body = e.code, e.read().decode()
    print("PROBE " + json.dumps({"status": status, "body": body}), flush=True)
    """
)


def _judge_env(pod: Mapping[str, Any]) -> dict[str, str]:
    judge = next(c for c in pod["spec"]["containers"] if c["name"] == "judge")
    return {e["name"]: e["value"] for e in judge.get("env") or [] if "value" in e}


def _probe_pods(judge_pod: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """What a tenant can make to ask the case server for the exam's cases: a copy of the genuine
    judge pod (its ServiceAccount, both token volumes, its labels, an owner reference to its Job
    as controller, its candidate sidecars) whose judge container runs the probe; a pod of the
    namespace's default ServiceAccount with its own token for the operator's audience; one with a
    token for another audience; one with none."""
    from proctor.k8s.objects import OPERATOR_AUDIENCE, OPERATOR_TOKEN_DIR

    env = _judge_env(judge_pod)
    where = [{"name": "CASES_URL", "value": env["PROCTOR_CASES_URL"]}]
    where.append({"name": "CASES_CA", "value": env["PROCTOR_CASES_CA"]})
    meta = judge_pod["metadata"]
    selector = ("batch.kubernetes.io/controller-uid", "controller-uid")
    copy_spec = json.loads(json.dumps(judge_pod["spec"]))
    copy_spec.pop("nodeName", None)
    judge = next(c for c in copy_spec["containers"] if c["name"] == "judge")
    judge |= {"command": [sys.executable, "-c", PROBE], "args": []}
    judge["env"] = [*judge["env"], *where, {"name": "TOKEN_PATH", "value": f"{OPERATOR_TOKEN_DIR}/token"}]
    copy = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "copy-of-judge",
            "labels": {k: v for k, v in meta["labels"].items() if k not in selector},
            "ownerReferences": [
                {k: v for k, v in o.items() if k != "blockOwnerDeletion"} for o in meta["ownerReferences"]
            ],
        },
        "spec": copy_spec,
    }

    def own(name: str, audience: str | None) -> dict[str, Any]:
        volumes, mounts, token = [], [], []
        if audience:
            source = {"audience": audience, "expirationSeconds": 600, "path": "token"}
            volumes = [{"name": "t", "projected": {"sources": [{"serviceAccountToken": source}]}}]
            mounts = [{"name": "t", "mountPath": "/var/run/probe"}]
            token = [{"name": "TOKEN_PATH", "value": "/var/run/probe/token"}]
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name},
            "spec": {
                "automountServiceAccountToken": False,
                "restartPolicy": "Never",
                "volumes": volumes,
                "containers": [
                    {
                        "name": "probe",
                        "image": "proctor:probe",
                        "command": [sys.executable, "-c", PROBE],
                        "env": [*where, *token],
                        "volumeMounts": mounts,
                    }
                ],
            },
        }

    return {
        "copy-of-judge": copy,
        "own-token": own("own-token", OPERATOR_AUDIENCE),
        "other-audience": own("other-audience", "proctor-collector"),
        "no-token": own("no-token", None),
    }


def test_a_tenant_gets_no_case_of_an_exam_from_configmaps_or_the_case_server(
    crds: Cluster, namespace: str, operator: Any, tenant_sa: Any, tmp_path: Path
) -> None:
    """While an exam's genuine judge waits for its candidate, the tenant (a ServiceAccount that may
    read every ConfigMap of its namespace and create any pod there, token-only kubeconfig) looks
    for the exam's cases. No ConfigMap of its namespace holds them, the operator's namespace is not
    its to read, and the case server answers none of its pods: a copy of the judge pod with the
    judge's own token volumes and an owner reference to the Job (not the Job's template: 403), its
    own ServiceAccount's token for the operator's audience (not a judge: 403), a token for another
    audience or none (401). The genuine judge gets its cases and the exam reaches its verdict."""
    if not crds.local:
        pytest.skip("the tenant's pods reach the operator on loopback through the node stand-in")
    go = tmp_path / "go"
    operator()
    crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
    crds.kubectl("-n", namespace, "apply", "-f", "-", input=json.dumps(_candidate_run("exam", go)))
    references = [
        str(a.get("value"))
        for c in yaml.safe_load((EXAMPLE / "caseset.yaml").read_text())["spec"]["cases"]
        for a in c.get("assert") or []
        if isinstance(a.get("value"), str) and len(str(a.get("value"))) > 3
    ]
    assert references

    def judge_pod() -> dict[str, Any] | None:
        out = tenant_sa("get", "pods", "-l", "app.kubernetes.io/component=judge", "-o", "json")
        assert out.returncode == 0, out.stderr
        running = [
            p for p in json.loads(out.stdout)["items"] if (p.get("status") or {}).get("phase") == "Running"
        ]
        return running[0] if running else None

    genuine = wait_for(judge_pod, timeout=120, what="the genuine judge pod")
    run = crds.get_json("-n", namespace, "evalrun", "exam")
    snapshot = run["status"]["snapshot"]

    # what the tenant can read: every ConfigMap of its namespace, none with a case or a reference
    listed = tenant_sa("get", "configmaps", "-o", "json")
    assert listed.returncode == 0, listed.stderr
    for cm in json.loads(listed.stdout)["items"]:
        assert cm["metadata"].get("labels", {}).get("app.kubernetes.io/component") != "cases", cm["metadata"]
        text = json.dumps(cm.get("data") or {})
        assert not any(ref in text for ref in references), cm["metadata"]["name"]
    for name in snapshot["configMaps"]:
        assert tenant_sa("get", "configmap", name).returncode != 0  # not in its namespace
        out = tenant_sa("get", "configmap", name, "-n", "proctor-system")
        assert out.returncode != 0 and "forbidden" in out.stderr, out

    # what its pods get from the case server
    pods = _probe_pods(genuine)
    for pod in pods.values():
        made = tenant_sa("create", "-f", "-", input=json.dumps(pod))
        assert made.returncode == 0, made.stderr

    said: dict[str, dict[str, Any]] = {}

    def answers() -> bool:
        for name in set(pods) - set(said):
            # what the pod printed (read by the test, not the tenant)
            container = "judge" if name == "copy-of-judge" else "probe"
            logs = crds.kubectl("-n", namespace, "logs", name, "-c", container, check=False)
            lines = [ln for ln in logs.stdout.splitlines() if ln.startswith("PROBE ")]
            if lines:
                said[name] = json.loads(lines[-1][len("PROBE ") :])
        return len(said) == len(pods)

    wait_for(answers, timeout=120, interval=1, what="the tenant's pods to ask the case server")
    copied = said["copy-of-judge"]
    # not the Job's template; or not the Job's at all, when the Job controller released it first (a
    # pod it controls must match its selector, which the copy leaves out: _forging_pod says why)
    assert copied["status"] == 403, said
    assert "not the pod Job" in copied["body"] or "not controlled by a Job" in copied["body"], said
    assert said["own-token"]["status"] == 403 and "not controlled by a Job" in said["own-token"]["body"], said
    assert said["other-audience"]["status"] == 401, said
    assert said["no-token"]["status"] == 401, said
    for answer in said.values():
        assert not any(ref in answer["body"] for ref in references), answer

    go.touch()
    status = _wait_done(crds, namespace, "exam", timeout=300)
    assert status["verdict"] == "FAIL", status.get("message")  # its wrong answers, measured

    # the results the tenant can read say what failed (case, tier, assertion type), never why in
    # words: no reason quotes a reference; nor does the run's status
    from proctor.k8s.objects import RESULTS_KEY, WITHHELD_REASON, configmap_blob, decode_results

    listed = tenant_sa("get", "configmaps", "-l", "app.kubernetes.io/component=results", "-o", "json")
    public = [
        rec
        for cm in json.loads(listed.stdout)["items"]
        for rec in decode_results([configmap_blob(cm, RESULTS_KEY)])
    ]
    failures = [f for rec in public for f in rec.get("failures") or []]
    assert failures and all(f["reason"] == WITHHELD_REASON for f in failures), (public, listed.stderr)
    assert not any(ref in json.dumps(public) for ref in references)
    assert status["firstFailures"] and all(f["reason"] == WITHHELD_REASON for f in status["firstFailures"])
    assert {f["assertion"] for f in status["firstFailures"]} <= {f["assertion"] for f in failures}
    # the full detail is the operator's, for a platform engineer (read here as the admin)
    kept = crds.get_json(
        "-n", "proctor-system", "configmaps", "-l", f"proctor.dev/run-uid={run['metadata']['uid']}"
    )["items"]
    detail = [
        rec
        for cm in kept
        if cm["metadata"]["labels"]["app.kubernetes.io/component"] == "results-detail"
        for rec in decode_results([configmap_blob(cm, RESULTS_KEY)])
    ]
    reasons = [f["reason"] for rec in detail for f in rec.get("failures") or []]
    assert reasons, kept
    assert WITHHELD_REASON not in reasons and len(reasons) == len(failures), reasons
    # the run is over: its cases are gone from the operator's namespace too
    wait_for(
        lambda: all(
            crds.kubectl("-n", "proctor-system", "get", "configmap", n, check=False).returncode != 0
            for n in snapshot["configMaps"]
        ),
        timeout=60,
        what="the finished run's cases to be deleted",
    )
