"""The Helm chart (charts/proctor): it lints, renders, is accepted by a real API server, holds
least privilege, and its RBAC is enough for the real operator to run an exam.

helm is built from its Go module by hack/get-helm.sh (cached under ~/.cache/proctor/tools); when
it cannot be had, these tests fail with the reason, they are never skipped.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import socket
import subprocess
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from conftest import REPO, Cluster, wait_for
from proctor.k8s import objects
from proctor.reconcile.config import OperatorConfig

CHART = REPO / "charts" / "proctor"
EXAMPLE = REPO / "examples" / "oil-monitoring"
RBAC_KINDS = {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding"}
#: What a least-privilege operator role never holds.
FORBIDDEN_VERBS = {"*", "escalate", "bind", "impersonate", "deletecollection"}

# The operator's rights in the namespaces it watches, as (apiGroup, resource, verb), with the
# resource name a rule is limited to. Changing the chart's RBAC means changing this on purpose.
EXPECTED_NAMESPACED = {
    *{
        ("proctor.dev", r, v, None)
        for r in ("evalruns", "casesets", "evalprofiles", "gatepolicies")
        for v in ("get", "list", "watch", "patch")
    },
    ("proctor.dev", "evalruns", "create", None),
    ("proctor.dev", "evalruns", "delete", None),
    *{
        ("proctor.dev", f"{r}/status", "patch", None)
        for r in ("evalruns", "casesets", "evalprofiles", "gatepolicies")
    },
    ("proctor.dev", "evalruns/finalizers", "update", None),
    ("proctor.dev", "gatepolicies/finalizers", "update", None),
    *{("apps", "deployments", v, None) for v in ("get", "list", "watch", "patch")},
    *{("batch", "jobs", v, None) for v in ("create", "get", "list", "watch")},
    *{("", "configmaps", v, None) for v in ("get", "list", "create", "patch", "delete")},
    ("", "events", "create", None),
    # why a judge pod does not run: its container statuses, its Job's FailedCreate Events (read only)
    *{("", "pods", v, None) for v in ("get", "list", "watch")},
    *{("", "events", v, None) for v in ("list", "watch")},
    ("", "serviceaccounts", "create", None),
    ("", "serviceaccounts", "patch", "proctor-judge"),
    *{("rbac.authorization.k8s.io", r, "create", None) for r in ("roles", "rolebindings")},
    *{("rbac.authorization.k8s.io", r, "patch", "proctor-judge") for r in ("roles", "rolebindings")},
}
EXPECTED_CLUSTER = {
    ("apiextensions.k8s.io", "customresourcedefinitions", "list", None),
    ("apiextensions.k8s.io", "customresourcedefinitions", "watch", None),
}

SERVICEMONITOR_CRD: dict[str, Any] = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": "servicemonitors.monitoring.coreos.com"},
    "spec": {
        "group": "monitoring.coreos.com",
        "scope": "Namespaced",
        "names": {
            "kind": "ServiceMonitor",
            "listKind": "ServiceMonitorList",
            "plural": "servicemonitors",
            "singular": "servicemonitor",
        },
        "versions": [
            {
                "name": "v1",
                "served": True,
                "storage": True,
                "schema": {
                    "openAPIV3Schema": {
                        "type": "object",
                        "properties": {
                            "spec": {
                                "type": "object",
                                "required": ["selector"],
                                "properties": {
                                    "selector": {
                                        "type": "object",
                                        "x-kubernetes-preserve-unknown-fields": True,
                                    },
                                    "namespaceSelector": {
                                        "type": "object",
                                        "properties": {
                                            "any": {"type": "boolean"},
                                            "matchNames": {"type": "array", "items": {"type": "string"}},
                                        },
                                    },
                                    "endpoints": {
                                        "type": "array",
                                        "items": {
                                            "type": "object",
                                            "properties": {
                                                "port": {"type": "string"},
                                                "path": {"type": "string"},
                                                "scheme": {"type": "string", "enum": ["http", "https"]},
                                                "interval": {"type": "string"},
                                                "scrapeTimeout": {"type": "string"},
                                            },
                                            "x-kubernetes-preserve-unknown-fields": True,
                                        },
                                    },
                                },
                                "x-kubernetes-preserve-unknown-fields": True,
                            }
                        },
                    }
                },
            }
        ],
    },
}


# --- helm ------------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def helm() -> str:
    """The helm binary: hack/get-helm.sh builds it once from the Go module proxy, then reuses it."""
    try:
        proc = subprocess.run(
            ["bash", str(REPO / "hack" / "get-helm.sh")], capture_output=True, text=True, timeout=1200
        )
    except subprocess.TimeoutExpired:
        pytest.fail("hack/get-helm.sh did not finish building helm within 20 minutes")
    path = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    if proc.returncode != 0 or not path or not Path(path).is_file():
        pytest.fail(
            "helm is needed to test charts/proctor and could not be obtained with hack/get-helm.sh "
            f"(exit {proc.returncode}):\n{proc.stderr[-3000:]}"
        )
    return path


def _helm(helm: str, *args: str, cluster: Cluster | None = None) -> subprocess.CompletedProcess[str]:
    env = cluster.env() if cluster is not None else None
    return subprocess.run([helm, *args], capture_output=True, text=True, timeout=120, env=env, check=False)


def _ca_pem() -> bytes:
    """A throwaway CA certificate (what webhook.caBundle carries)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "proctor-chart-test-ca")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


@pytest.fixture(scope="module")
def ca_bundle() -> str:
    return base64.b64encode(_ca_pem()).decode()


def _full_values(ca_bundle: str, namespaces: list[str]) -> dict[str, Any]:
    """Everything optional switched on."""
    return {
        "watchNamespaces": namespaces,
        "webhook": {
            "enabled": True,
            "certSecret": "proctor-webhook-tls",
            "caBundle": ca_bundle,
            "excludeNamespaces": ["istio-system"],
        },
        "metrics": {"serviceMonitor": {"enabled": True, "labels": {"release": "prometheus"}}},
        "commonLabels": {"team": "platform"},
        "commonAnnotations": {"example.com/owner": "platform"},
        "podAnnotations": {"example.com/scrape": "false"},
        "extraEnv": [{"name": "EXTRA", "value": "1"}],
        "nodeSelector": {"kubernetes.io/os": "linux"},
        "tolerations": [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
        "operator": {"verbose": True, "runHistory": 10},
    }


def _values_file(tmp_path: Path, values: dict[str, Any]) -> str:
    path = tmp_path / f"values-{len(list(tmp_path.glob('values-*')))}.yaml"
    path.write_text(yaml.safe_dump(values))
    return str(path)


def _render(
    helm: str, tmp_path: Path, values: dict[str, Any], *, release: str, namespace: str, crds: bool = False
) -> list[dict[str, Any]]:
    args = ["template", release, str(CHART), "-n", namespace, "-f", _values_file(tmp_path, values)]
    proc = _helm(helm, *args, *(["--include-crds"] if crds else []))
    assert proc.returncode == 0, f"helm {' '.join(args)} failed:\n{proc.stderr}"
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def _one(docs: list[dict[str, Any]], kind: str, name: str | None = None) -> dict[str, Any]:
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, f"expected one {kind} {name or ''}, found {len(found)}"
    return found[0]


def _grants(rules: list[dict[str, Any]]) -> set[tuple[str, str, str, str | None]]:
    return {
        (g, r, v, n)
        for rule in rules
        for g in rule.get("apiGroups", [])
        for r in rule.get("resources", [])
        for v in rule["verbs"]
        for n in rule.get("resourceNames") or [None]
    }


def _covers(held: set[tuple[str, str, str, str | None]], g: str, r: str, v: str) -> bool:
    """Whether ``held`` grants verb ``v`` on every object of ``g``/``r`` (no resourceNames limit)."""
    return (g, r, v, None) in held


# --- lint and render -------------------------------------------------------------------------------


def test_helm_lint_passes_with_default_and_full_values(helm: str, tmp_path: Path, ca_bundle: str) -> None:
    for values in ({}, _full_values(ca_bundle, ["team-a", "team-b"])):
        proc = _helm(helm, "lint", "--strict", str(CHART), "-f", _values_file(tmp_path, values))
        assert proc.returncode == 0, f"helm lint failed with {values}:\n{proc.stdout}{proc.stderr}"
        assert "0 chart(s) failed" in proc.stdout


def test_bad_values_are_refused_with_the_reason(helm: str, tmp_path: Path) -> None:
    cases = [
        ({"replicas": 2}, "replicas"),
        ({"webhook": {"enabled": True, "certSecret": "tls"}}, "webhook.caBundle"),
        ({"webhook": {"failurePolicy": "Sometimes"}}, "failurePolicy"),
        ({"watchNamespaces": ["Not_A_Namespace"]}, "watchNamespaces"),
        ({"operator": {"logFormat": "xml"}}, "logFormat"),
    ]
    for values, needle in cases:
        proc = _helm(helm, "template", "x", str(CHART), "-f", _values_file(tmp_path, values))
        assert proc.returncode != 0, f"{values} was accepted"
        assert needle in proc.stderr, f"{values}: {proc.stderr}"


def test_the_rendered_deployment_is_restricted_and_configures_the_operator(
    helm: str, tmp_path: Path, ca_bundle: str
) -> None:
    docs = _render(helm, tmp_path, {}, release="proctor", namespace="proctor-system")
    assert {d["kind"] for d in docs} == {
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Service",
        "Deployment",
    }
    deploy = _one(docs, "Deployment")
    assert deploy["metadata"]["name"] == "proctor"
    assert deploy["spec"]["replicas"] == 1
    assert deploy["spec"]["strategy"] == {"type": "Recreate"}
    pod = deploy["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] == 65532
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    (c,) = pod["containers"]
    assert c["image"] == "ghcr.io/proctor-dev/proctor:0.1.0"
    assert c["args"] == ["operator", "--liveness", "http://0.0.0.0:8080/healthz"]
    sc = c["securityContext"]
    assert sc["readOnlyRootFilesystem"] is True
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"] == {"drop": ["ALL"]}
    assert {m["mountPath"] for m in c["volumeMounts"]} == {"/tmp"}
    for probe in (c["livenessProbe"], c["readinessProbe"]):
        assert probe["httpGet"] == {"path": "/healthz", "port": "health"}
    assert {p["name"]: p["containerPort"] for p in c["ports"]} == {"health": 8080, "metrics": 9090}
    svc = _one(docs, "Service")
    assert svc["spec"]["ports"] == [
        {"name": "metrics", "port": 9090, "targetPort": "metrics", "protocol": "TCP"}
    ]

    # the env is what the operator reads: parse it with the operator's own settings code
    env = {e["name"]: e["value"] for e in c["env"] if "value" in e}
    config = OperatorConfig.from_env(env)
    assert config == OperatorConfig(), "the chart's defaults differ from the operator's"
    off = _render(
        helm,
        tmp_path,
        {
            "operator": {"manageJudgeRBAC": False, "retryBackoff": "5,10", "runHistory": 0},
            "metrics": {"port": 0},
        },
        release="proctor",
        namespace="proctor-system",
    )
    c = _one(off, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    config = OperatorConfig.from_env({e["name"]: e["value"] for e in c["env"] if "value" in e})
    assert (config.manage_judge_rbac, config.backoff, config.run_history, config.metrics_port) == (
        False,
        (5.0, 10.0),
        0,
        0,
    )
    assert not [d for d in off if d["kind"] == "Service"], "metrics.port 0 still renders a Service"

    full = _render(
        helm, tmp_path, _full_values(ca_bundle, ["team-a"]), release="proctor", namespace="proctor-system"
    )
    c = _one(full, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    assert c["args"] == ["operator", "--liveness", "http://0.0.0.0:8080/healthz", "-n", "team-a", "--verbose"]
    mounts = {m["name"]: m for m in c["volumeMounts"]}
    assert mounts["webhook-certs"]["readOnly"] is True


def test_the_webhook_is_the_one_the_operator_applies(helm: str, tmp_path: Path, ca_bundle: str) -> None:
    """The chart's MutatingWebhookConfiguration equals what the operator applies from the chart's
    env at startup (same webhook name, path, selectors), so the two never fight over it."""
    webhook_mod = pytest.importorskip("proctor.gate.webhook", reason="the operator's webhook is not built")
    ns = "proctor-system"
    docs = _render(helm, tmp_path, _full_values(ca_bundle, []), release="proctor", namespace=ns)
    mwc = _one(docs, "MutatingWebhookConfiguration")
    (hook,) = mwc["webhooks"]
    assert hook["failurePolicy"] == "Fail"
    assert hook["timeoutSeconds"] == 5
    assert hook["sideEffects"] == "None"
    assert hook["matchPolicy"] == "Equivalent"
    assert hook["admissionReviewVersions"] == ["v1"]
    assert hook["rules"][0]["operations"] == ["CREATE", "UPDATE"]
    assert hook["objectSelector"] == {
        "matchExpressions": [{"key": "proctor.dev/gate-policy", "operator": "Exists"}]
    }
    assert hook["namespaceSelector"]["matchExpressions"][0]["values"] == ["kube-system", "istio-system", ns]
    assert hook["clientConfig"]["service"] == {
        "namespace": ns,
        "name": "proctor-webhook",
        "port": 443,
        "path": "/proctor-gate",
    }
    svc = _one(docs, "Service", "proctor-webhook")
    assert svc["spec"]["ports"][0]["port"] == 443

    c = _one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in c["env"] if "value" in e} | {"POD_NAMESPACE": ns}
    cfg = webhook_mod.WebhookConfig.from_env(env)
    assert cfg.port == 9443 and cfg.service == (ns, "proctor-webhook", 443)
    assert str(cfg.cert_dir) == next(
        m["mountPath"] for m in c["volumeMounts"] if m["name"] == "webhook-certs"
    )
    ours = objects.mutating_webhook_configuration(
        base64.b64decode(ca_bundle),
        service=cfg.service,
        exclude_namespaces=cfg.exclude,
        failure_policy=cfg.failure_policy,
        name=cfg.name,
    )
    assert mwc["metadata"]["name"] == ours["metadata"]["name"]
    assert mwc["webhooks"] == ours["webhooks"]


# --- least privilege -------------------------------------------------------------------------------


def _cluster_roles(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == "ClusterRole"}


def test_the_operator_holds_least_privilege(helm: str, tmp_path: Path, ca_bundle: str) -> None:
    for values in ({}, _full_values(ca_bundle, ["team-a"]), {"webhook": {"enabled": True}}):
        docs = _render(helm, tmp_path, values, release="proctor", namespace="proctor-system")
        roles = _cluster_roles(docs)
        # proctor-agentmonitors: the AgentMonitor rights (templates/collector-operator-rbac.yaml,
        # held exactly in tests/integration/test_chart_collector.py)
        assert set(roles) == {"proctor", "proctor-cluster", "proctor-agentmonitors"}
        for name, role in roles.items():
            for rule in role["rules"]:
                where = f"ClusterRole {name} rule {rule} ({values})"
                assert "nonResourceURLs" not in rule, where
                assert "secrets" not in rule.get("resources", []), f"{where} grants Secrets"
                assert "*" not in rule.get("resources", []) and "*" not in rule.get("apiGroups", []), where
                assert not FORBIDDEN_VERBS & set(rule["verbs"]), where
                assert not [r for r in rule.get("resources", []) if r.endswith("/*") or r == "pods/exec"], (
                    where
                )

    # default values: exactly these rights, nothing more
    docs = _render(helm, tmp_path, {}, release="proctor", namespace="proctor-system")
    roles = _cluster_roles(docs)
    assert _grants(roles["proctor"]["rules"]) == EXPECTED_NAMESPACED
    assert _grants(roles["proctor-cluster"]["rules"]) == EXPECTED_CLUSTER
    bindings = {d["metadata"]["name"]: d for d in docs if d["kind"] == "ClusterRoleBinding"}
    assert {b["roleRef"]["name"] for b in bindings.values()} == {
        "proctor",
        "proctor-cluster",
        "proctor-agentmonitors",
    }
    for b in bindings.values():
        assert b["subjects"] == [{"kind": "ServiceAccount", "name": "proctor", "namespace": "proctor-system"}]

    # watching named namespaces: a RoleBinding in each, cluster-wide only what Kopf observes
    docs = _render(
        helm,
        tmp_path,
        {"watchNamespaces": ["team-a", "team-b"]},
        release="proctor",
        namespace="proctor-system",
    )
    assert {
        (d["metadata"]["namespace"], d["roleRef"]["name"]) for d in docs if d["kind"] == "RoleBinding"
    } == {
        ("team-a", "proctor"),
        ("team-b", "proctor"),
        ("team-a", "proctor-agentmonitors"),
        ("team-b", "proctor-agentmonitors"),
    }
    assert [d["roleRef"]["name"] for d in docs if d["kind"] == "ClusterRoleBinding"] == ["proctor-cluster"]
    assert _grants(_cluster_roles(docs)["proctor-cluster"]["rules"]) == EXPECTED_CLUSTER | {
        ("", "namespaces", "list", None),
        ("", "namespaces", "watch", None),
    }

    # without managing the judge's RBAC the operator cannot write RBAC objects, and writes only the
    # ConfigMaps that pin a run's cases (create, patch: server-side apply), never listing or deleting
    docs = _render(helm, tmp_path, {"operator": {"manageJudgeRBAC": False}}, release="p", namespace="ns")
    held = _grants(_cluster_roles(docs)["p-proctor"]["rules"])
    assert {g for g in held if g[1] in ("serviceaccounts", "roles", "rolebindings")} == set()
    assert {g[2] for g in held if g[1] == "configmaps"} == {"get", "create", "patch"}

    # the webhook: the same namespaced rights, and only its own webhook configuration
    docs = _render(helm, tmp_path, _full_values(ca_bundle, []), release="proctor", namespace="proctor-system")
    roles = _cluster_roles(docs)
    assert _grants(roles["proctor"]["rules"]) == EXPECTED_NAMESPACED
    assert {
        (v, n)
        for g, r, v, n in _grants(roles["proctor-cluster"]["rules"])
        if r == "mutatingwebhookconfigurations"
    } == {("patch", "proctor-gate")}


def test_the_operator_may_grant_the_judge_role(helm: str, tmp_path: Path) -> None:
    """RBAC escalation prevention: a subject can only create a Role (and bind it) holding
    permissions it has itself. The judge Role the operator applies must be inside its ClusterRole."""
    for values in ({}, {"watchNamespaces": ["team-a"]}):
        docs = _render(helm, tmp_path, values, release="proctor", namespace="proctor-system")
        held = _grants(_cluster_roles(docs)["proctor"]["rules"])
        judge = objects.judge_rbac("team-a")
        role = next(o for o in judge if o["kind"] == "Role")
        missing = [
            (g, r, v)
            for rule in role["rules"]
            for g in rule["apiGroups"]
            for r in rule["resources"]
            for v in rule["verbs"]
            if not _covers(held, g, r, v)
        ]
        assert not missing, f"the operator cannot grant the judge Role; it lacks {missing}"
        # and it may write each of the judge's objects (create, then patch by name)
        for obj in judge:
            group = obj["apiVersion"].rpartition("/")[0]
            resource = {"ServiceAccount": "serviceaccounts", "Role": "roles", "RoleBinding": "rolebindings"}[
                obj["kind"]
            ]
            assert (group, resource, "create", None) in held
            assert (group, resource, "patch", obj["metadata"]["name"]) in held


# --- on the API server -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def servicemonitor_crd(cluster: Cluster) -> Iterator[None]:
    """A minimal ServiceMonitor CRD (the Prometheus Operator's is not on a bare cluster); a
    cluster that has the real one keeps it untouched."""
    name = SERVICEMONITOR_CRD["metadata"]["name"]
    existed = cluster.kubectl("get", "crd", name, check=False).returncode == 0
    if not existed:
        cluster.kubectl("apply", "--server-side", "-f", "-", input=json.dumps(SERVICEMONITOR_CRD))
        cluster.kubectl("wait", "--for=condition=Established", f"crd/{name}", "--timeout=60s")
    yield
    if not existed:
        cluster.kubectl("delete", "crd", name, "--ignore-not-found", "--wait=false", check=False)


@pytest.mark.usefixtures("servicemonitor_crd")
def test_the_rendered_chart_is_accepted_by_the_api_server(
    helm: str, cluster: Cluster, namespace: str, tmp_path: Path, ca_bundle: str
) -> None:
    # a namespace enforcing the restricted Pod Security Standard, to hold the operator's pod to it
    restricted = f"{namespace}-pss"
    cluster.kubectl("create", "namespace", restricted)
    cluster.kubectl("label", "namespace", restricted, "pod-security.kubernetes.io/enforce=restricted")
    privileged = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "root"},
        "spec": {"containers": [{"name": "c", "image": "x", "securityContext": {"privileged": True}}]},
    }
    refused = cluster.kubectl(
        "create", "--dry-run=server", "-n", restricted, "-f", "-", input=json.dumps(privileged), check=False
    )
    assert refused.returncode != 0 and "restricted" in refused.stderr, "Pod Security is not enforced here"
    renders = {
        "default": ({}, True),
        "full": (_full_values(ca_bundle, [namespace]), False),
        "operator-made certificate": (
            {"webhook": {"enabled": True}, "operator": {"manageJudgeRBAC": False}},
            False,
        ),
    }
    for i, (what, (values, crds)) in enumerate(renders.items()):
        docs = _render(helm, tmp_path, values, release=f"{namespace}-{i}", namespace=namespace, crds=crds)
        if what == "full":
            assert {"ServiceMonitor", "MutatingWebhookConfiguration", "RoleBinding"} <= {
                d["kind"] for d in docs
            }
        proc = cluster.kubectl(
            "apply",
            "--server-side",
            "--force-conflicts",
            "--field-manager=proctor-chart-test",
            "--dry-run=server",
            "-n",
            namespace,
            "-f",
            "-",
            input="\n---\n".join(yaml.safe_dump(d) for d in docs),
            check=False,
        )
        assert proc.returncode == 0, f"the API server refused the {what} render:\n{proc.stderr}"
        assert proc.stdout.count("(server dry run)") == len(docs), proc.stdout

        # the operator's pod passes the "restricted" Pod Security Standard (enforced on Pods)
        template = _one(docs, "Deployment")["spec"]["template"]
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"pss-{i}"}, **template}
        pod["metadata"] = {**template["metadata"], "name": f"pss-{i}"}
        cluster.kubectl("-n", restricted, "create", "serviceaccount", template["spec"]["serviceAccountName"])
        proc = cluster.kubectl(
            "create", "--dry-run=server", "-n", restricted, "-f", "-", input=json.dumps(pod), check=False
        )
        assert proc.returncode == 0, (
            f"the {what} pod breaks the restricted Pod Security Standard:\n{proc.stderr}"
        )

    # helm itself installs it against this API server (dry run): NOTES render and say what to do
    out = _helm(
        helm,
        "install",
        f"{namespace}-notes",
        str(CHART),
        "-n",
        namespace,
        "--dry-run=server",
        "-f",
        _values_file(tmp_path, {"webhook": {"enabled": True}}),
        cluster=cluster,
    )
    assert out.returncode == 0, out.stderr
    notes = out.stdout.split("NOTES:", 1)[1]
    assert f"rollout status deployment/{namespace}-notes-proctor" in notes
    assert "fail closed" in notes and "kubectl delete mutatingwebhookconfiguration" in notes
    cluster.kubectl("delete", "namespace", restricted, "--wait=false", check=False)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _token_kubeconfig(cluster: Cluster, namespace: str, sa: str, path: Path) -> Path:
    """A kubeconfig that authenticates as the chart's ServiceAccount (a TokenRequest token)."""
    token = cluster.kubectl("-n", namespace, "create", "token", sa, "--duration=1h").stdout.strip()
    admin = yaml.safe_load(cluster.kubeconfig.read_text())
    context = next(c for c in admin["contexts"] if c["name"] == admin["current-context"])["context"]
    entry = next(c for c in admin["clusters"] if c["name"] == context["cluster"])
    server = dict(entry["cluster"])
    if "certificate-authority" in server:  # relative to the admin kubeconfig
        ca = Path(server["certificate-authority"])
        server["certificate-authority"] = str(ca if ca.is_absolute() else cluster.kubeconfig.parent / ca)
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": server}],
                "users": [{"name": sa, "user": {"token": token}}],
                "contexts": [{"name": "c", "context": {"cluster": "c", "user": sa, "namespace": namespace}}],
                "current-context": "c",
            }
        )
    )
    return path


@pytest.mark.parametrize(
    "webhook",
    [
        pytest.param(False, id="webhook-off"),
        # its webhook configuration sees gated Deployments in every namespace
        pytest.param(True, id="webhook-on", marks=pytest.mark.admission),
    ],
)
def test_the_operator_runs_an_exam_with_the_charts_rbac(
    helm: str,
    crds: Cluster,
    namespace: str,
    tmp_path: Path,
    run_operator: Callable[..., subprocess.Popen[bytes]],
    webhook: bool,
) -> None:
    """The chart's ServiceAccount, ClusterRoles and bindings, applied for real; the operator runs
    as that ServiceAccount with the chart's arguments and env, and examines two runs: it creates
    the judge's RBAC (escalation check), Jobs, events, status, and prunes history (delete). With
    the webhook, it also creates its MutatingWebhookConfiguration (operator-made certificate)."""
    if webhook and not crds.local:
        pytest.skip("the API server must reach the webhook on this machine's loopback")
    values: dict[str, Any] = {"watchNamespaces": [namespace], "operator": {"runHistory": 1}}
    if webhook:
        values["webhook"] = {"enabled": True, "failurePolicy": "Ignore"}
    docs = _render(helm, tmp_path, values, release=namespace, namespace=namespace)
    rbac = [d for d in docs if d["kind"] in RBAC_KINDS]
    cluster_scoped = [d for d in rbac if d["kind"].startswith("Cluster")]
    webhook_configuration = f"{namespace}-proctor-gate"
    try:
        crds.kubectl(
            "apply", "--server-side", "-f", "-", input="\n---\n".join(yaml.safe_dump(d) for d in rbac)
        )
        sa = _one(docs, "ServiceAccount")["metadata"]["name"]
        kubeconfig = _token_kubeconfig(crds, namespace, sa, tmp_path / "operator.kubeconfig")

        # the chart's container, run here as a process: its args and env, a free probe port
        container = _one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
        port = _free_port()
        args = [a.replace("http://0.0.0.0:8080", f"http://127.0.0.1:{port}") for a in container["args"]]
        assert args[0] == "operator"
        env = {e["name"]: e["value"] for e in container["env"] if "value" in e}
        env |= {
            "KUBECONFIG": str(kubeconfig),
            "POD_NAMESPACE": namespace,
            "PROCTOR_METRICS_PORT": "0",
            "PROCTOR_RECONCILE_INTERVAL": "1",
            "PROCTOR_RETRY_BACKOFF": "1,1,1,1",
            "PROCTOR_LOG_FORMAT": "console",
        }
        if webhook:
            # the API server reaches the webhook on loopback here, not through the chart's Service
            assert env["PROCTOR_WEBHOOK_CONFIGURATION"] == webhook_configuration
            del env["PROCTOR_WEBHOOK_SERVICE"]
            env |= {
                "PROCTOR_WEBHOOK_PORT": str(_free_port()),
                "PROCTOR_WEBHOOK_ADDR": "127.0.0.1",
                "PROCTOR_WEBHOOK_URL_HOST": "127.0.0.1",
                "PROCTOR_WEBHOOK_CERT_DIR": str(tmp_path / "certs"),
            }
        proc = run_operator(*args[1:], env=env)

        def log() -> str:
            return "\n".join(p.read_text(errors="replace") for p in tmp_path.glob("operator-*.log"))

        def healthy() -> bool:
            assert proc.poll() is None, f"the operator exited:\n{log()[-4000:]}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_for(healthy, timeout=60, what="the operator (as the chart's ServiceAccount) to start")
        if webhook:
            mwc = crds.get_json(
                "mutatingwebhookconfiguration", webhook_configuration, "--show-managed-fields"
            )
            assert "proctor-operator" in {m["manager"] for m in mwc["metadata"]["managedFields"]}
        crds.kubectl("-n", namespace, "apply", "-f", str(EXAMPLE / "caseset.yaml"))
        answers = yaml.safe_load((EXAMPLE / "answers" / "v1-correct.yaml").read_text())

        def run(name: str) -> dict[str, Any]:
            crds.kubectl(
                "-n",
                namespace,
                "apply",
                "-f",
                "-",
                input=json.dumps(
                    {
                        "apiVersion": "proctor.dev/v1alpha1",
                        "kind": "EvalRun",
                        "metadata": {"name": name},
                        "spec": {
                            "caseSetRef": {"name": "oil-monitoring"},
                            "target": {"responses": {"inline": answers}},
                        },
                    }
                ),
            )

            def done() -> dict[str, Any] | None:
                st = crds.get_json("-n", namespace, "evalrun", name).get("status") or {}
                return st if st.get("phase") in ("Evaluated", "PartiallyEvaluated", "Failed") else None

            status: dict[str, Any] = wait_for(done, timeout=120, interval=0.5, what=f"EvalRun {name}")
            return status

        first = run("first")
        assert (first["phase"], first["verdict"]) == ("Evaluated", "PASS"), first.get("message")
        role = crds.get_json("-n", namespace, "role", "proctor-judge", "--show-managed-fields")
        assert "proctor-operator" in {m["manager"] for m in role["metadata"]["managedFields"]}
        second = run("second")
        assert second["verdict"] == "PASS", second.get("message")
        wait_for(
            lambda: crds.kubectl("-n", namespace, "get", "evalrun", "first", check=False).returncode != 0,
            timeout=60,
            what="history retention to delete the older run",
        )
        cset = crds.get_json("-n", namespace, "caseset", "oil-monitoring")["status"]
        assert next(c for c in cset["conditions"] if c["type"] == "Ready")["status"] == "True"
        events = crds.kubectl("-n", namespace, "get", "events", "-o", "json").stdout
        assert "VerdictPass" in events

        refusals = ("forbidden", "not enough permissions", " 403")
        denied = [line for line in log().splitlines() if any(r in line.lower() for r in refusals)]
        assert not denied, "the operator was refused something:\n" + "\n".join(denied[:20])
    finally:
        if webhook:
            crds.kubectl(
                "delete", "mutatingwebhookconfiguration", webhook_configuration, "--ignore-not-found"
            )
        for d in cluster_scoped:
            crds.kubectl(
                "delete", d["kind"].lower(), d["metadata"]["name"], "--ignore-not-found", check=False
            )
