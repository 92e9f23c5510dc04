"""The Helm chart (charts/proctor): it lints, renders, is accepted by a real API server, holds
least privilege, and its RBAC is enough for the real operator to run an exam.

helm is built from its Go module by hack/get-helm.sh (cached under ~/.cache/proctor/tools); when
it cannot be had, these tests fail with the reason, they are never skipped.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import json
import re
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
#: What a least-privilege role never holds (``bind`` only on the judge ClusterRole, by name).
FORBIDDEN_VERBS = {"*", "escalate", "impersonate", "deletecollection"}
#: Reading a Secret, in any way.
SECRET_READS = {"get", "list", "watch"}


def allowed_rules(
    fullname: str, webhook_configuration: str
) -> dict[str, set[tuple[str, str, str, str | None]]]:
    """The README's Security section, "RBAC: every rule the chart grants": per role, the
    (apiGroup, resource, verb, resourceName) a rule may grant. Changing the chart's RBAC means
    changing that table, on purpose."""
    text = (REPO / "README.md").read_text()
    section = text.split("### RBAC: every rule the chart grants", 1)[1].split("\n### ", 1)[0]
    out: dict[str, set[tuple[str, str, str, str | None]]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6 or not cells[0].startswith("`"):
            continue
        role, group, resources, verbs, names = (re.findall(r"`([^`]*)`", c) for c in cells[:5])
        group_name = "" if cells[1] == "core" else group[0]
        for r in resources:
            for v in verbs:
                for n in [
                    x.replace("<fullname>-judge", f"{fullname}-judge")
                    .replace("<fullname>-gate", webhook_configuration)
                    .replace("<fullname>", fullname)
                    for x in names
                ] or [None]:
                    out.setdefault(role[0], set()).add((group_name, r, v, n))
    roles = {
        "operator",
        "operator-cluster",
        "operator-agentmonitors",
        "operator-collector-token",
        "operator-cases",
        "judge",
    }
    assert set(out) == roles, "the README's RBAC table lost a role"
    return out


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
    # no Secret: no key makes a judge's report believable (README "Security")
    assert {d["kind"] for d in docs} == {
        "ServiceAccount",
        "ClusterRole",
        "ClusterRoleBinding",
        "Role",  # the runs' cases, in the release namespace only
        "RoleBinding",
        "Service",
        "Deployment",
        "MutatingWebhookConfiguration",  # the chart owns it (helm uninstall removes it)
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
    # the webhook is on by default (fail closed): its certificate is made in memory-backed storage
    # ... and so is the case server's
    assert {m["mountPath"] for m in c["volumeMounts"]} == {
        "/tmp",
        "/etc/proctor/webhook",
        "/etc/proctor/cases",
    }
    for probe in (c["livenessProbe"], c["readinessProbe"]):
        assert probe["httpGet"] == {"path": "/healthz", "port": "health"}
    assert {p["name"]: p["containerPort"] for p in c["ports"]} == {
        "health": 8080,
        "metrics": 9090,
        "webhook": 9443,
        "cases": 9444,
    }
    cases = _one(docs, "Service", "proctor-cases")
    assert cases["spec"]["ports"] == [
        {"name": "https", "port": 9444, "targetPort": "cases", "protocol": "TCP"}
    ]
    svc = _one(docs, "Service", "proctor-metrics")
    assert svc["spec"]["ports"] == [
        {"name": "metrics", "port": 9090, "targetPort": "metrics", "protocol": "TCP"}
    ]
    assert not any("secretKeyRef" in (e.get("valueFrom") or {}) for e in c["env"])

    # the env is what the operator reads: parse it with the operator's own settings code
    env = {e["name"]: e["value"] for e in c["env"] if "value" in e}
    config = OperatorConfig.from_env(env)
    # the intended differences: in its pod the operator serves /metrics and the case server on every
    # address (off a cluster, on loopback), the case server on a fixed port behind its Service,
    # whose name is the certificate's
    assert config == dataclasses.replace(
        OperatorConfig(),
        judge_cluster_role="proctor-judge",
        metrics_addr="0.0.0.0",
        cases_port=9444,
        cases_addr="0.0.0.0",
        cases_host="proctor-cases.proctor-system.svc",
        cases_cert_dir="/etc/proctor/cases",
    ), "the chart's defaults differ from the operator's"
    webhook = webhook_mod().WebhookConfig.from_env(env | {"POD_NAMESPACE": "proctor-system"})
    assert webhook.port == 9443 and webhook.service == ("proctor-system", "proctor-webhook", 443)
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
    assert not [d for d in off if d["kind"] == "Service" and "metrics" in d["metadata"]["name"]], (
        "metrics.port 0 still renders a Service"
    )
    # for an API server that cannot reach Services: the webhook on a host (no Service)
    local = _render(
        helm, tmp_path, {"webhook": {"urlHost": "$(POD_IP)"}}, release="proctor", namespace="proctor-system"
    )
    c = _one(local, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert env["PROCTOR_WEBHOOK_URL_HOST"] == "$(POD_IP)" and "PROCTOR_WEBHOOK_SERVICE" not in env
    names = [e["name"] for e in c["env"]]
    assert names.index("POD_IP") < names.index("PROCTOR_WEBHOOK_URL_HOST")  # $(POD_IP) expands
    assert not [d for d in local if d["kind"] == "Service" and d["metadata"]["name"] == "proctor-webhook"]

    full = _render(
        helm, tmp_path, _full_values(ca_bundle, ["team-a"]), release="proctor", namespace="proctor-system"
    )
    c = _one(full, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    assert c["args"] == ["operator", "--liveness", "http://0.0.0.0:8080/healthz", "-n", "team-a", "--verbose"]
    mounts = {m["name"]: m for m in c["volumeMounts"]}
    assert mounts["webhook-certs"]["readOnly"] is True


def webhook_mod() -> Any:
    return __import__("proctor.gate.webhook", fromlist=["WebhookConfig"])


@pytest.mark.parametrize(
    "watch", [[], ["team-a", "proctor-system", "team-b"]], ids=["clusterwide", "namespaced"]
)
def test_the_webhook_is_the_one_the_operator_applies(
    helm: str, tmp_path: Path, ca_bundle: str, watch: list[str]
) -> None:
    """The chart's MutatingWebhookConfiguration equals what the operator applies from the chart's
    env and arguments at startup (same webhook name, path, selectors), so the two never fight over
    it; with watchNamespaces it sees only those (never its own namespace)."""
    ns = "proctor-system"
    docs = _render(helm, tmp_path, _full_values(ca_bundle, watch), release="proctor", namespace=ns)
    mwc = _one(docs, "MutatingWebhookConfiguration")
    hook, probe, pods, workloads = mwc["webhooks"]
    assert probe["name"] == "probe.gate.proctor.dev"
    assert (pods["name"], pods["failurePolicy"]) == ("pods.gate.proctor.dev", "Fail")
    assert (workloads["name"], workloads["failurePolicy"]) == ("workloads.gate.proctor.dev", "Ignore")
    assert hook["failurePolicy"] == "Fail"
    assert hook["timeoutSeconds"] == 5
    assert hook["sideEffects"] == "NoneOnDryRun"
    assert hook["matchPolicy"] == "Equivalent"
    assert hook["admissionReviewVersions"] == ["v1"]
    assert hook["rules"][0]["operations"] == ["CREATE", "UPDATE"]
    assert hook["objectSelector"] == {
        "matchExpressions": [{"key": "proctor.dev/gate-policy", "operator": "Exists"}]
    }
    assert hook["namespaceSelector"]["matchExpressions"][0]["values"] == ["kube-system", "istio-system", ns]
    only = hook["namespaceSelector"]["matchExpressions"][1:]
    assert only == (
        [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["team-a", "team-b"]}]
        if watch
        else []
    )
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
    args = c["args"]
    watched = [args[i + 1] for i, a in enumerate(args) if a == "-n"]
    cfg = webhook_mod().WebhookConfig.from_env(env, namespaces=watched)
    assert cfg.port == 9443 and cfg.service == (ns, "proctor-webhook", 443)
    assert str(cfg.cert_dir) == next(
        m["mountPath"] for m in c["volumeMounts"] if m["name"] == "webhook-certs"
    )
    ours = objects.mutating_webhook_configuration(
        base64.b64decode(ca_bundle),
        service=cfg.service,
        exclude_namespaces=cfg.exclude,
        only_namespaces=cfg.namespaces,
        failure_policy=cfg.failure_policy,
        name=cfg.name,
    )
    assert mwc["metadata"]["name"] == ours["metadata"]["name"]
    assert mwc["webhooks"] == ours["webhooks"]


# --- least privilege -------------------------------------------------------------------------------


def _cluster_roles(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == "ClusterRole"}


def _roles(docs: list[dict[str, Any]], fullname: str) -> dict[str, list[dict[str, Any]]]:
    """The rendered operator and judge roles' rules, by the README's role names (the collector's
    own ClusterRole and Role are held exact by test_chart_collector.py)."""
    roles = {n: r for n, r in _cluster_roles(docs).items() if n != f"{fullname}-collector"}
    names = {fullname, f"{fullname}-cluster", f"{fullname}-judge", f"{fullname}-agentmonitors"}
    assert set(roles) == names, set(roles)
    namespaced = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Role"}
    # the collector's read of exam results: held exact by test_chart_collector.py, like its ClusterRole
    namespaced.pop(f"{fullname}-collector-exam-results", None)
    out = {
        "operator": roles[fullname]["rules"],
        "operator-cluster": roles[f"{fullname}-cluster"]["rules"],
        "operator-agentmonitors": roles[f"{fullname}-agentmonitors"]["rules"],
        "judge": roles[f"{fullname}-judge"]["rules"],
    }
    out["operator-cases"] = namespaced.pop(f"{fullname}-cases")["rules"]
    token_role = namespaced.pop(f"{fullname}-collector-token", None)
    if token_role is not None:  # only when the operator talks to a collector
        out["operator-collector-token"] = token_role["rules"]
    assert not namespaced, f"Roles the README's table does not list: {sorted(namespaced)}"
    return out


VALUE_SETS: dict[str, Callable[[str], dict[str, Any]]] = {
    "defaults": lambda ca: {},
    "watched namespaces, everything on": lambda ca: _full_values(ca, ["team-a"]),
    "watched namespaces": lambda ca: {"watchNamespaces": ["team-a", "team-b"]},
    "webhook off": lambda ca: {"webhook": {"enabled": False}},
    "webhook on a host": lambda ca: {"webhook": {"urlHost": "127.0.0.1"}},
    "webhook on the pod's address": lambda ca: {"webhook": {"urlHost": "$(POD_IP)"}},
    "judge RBAC by hand": lambda ca: {"operator": {"manageJudgeRBAC": False}},
    "collector": lambda ca: {"collector": {"enabled": True, "secretNames": ["oil-ingest"]}},
    "collector elsewhere": lambda ca: {"collector": {"url": "https://collector.obs.svc:4318"}},
}


@pytest.mark.parametrize("what", list(VALUE_SETS))
def test_the_operator_holds_least_privilege(helm: str, tmp_path: Path, ca_bundle: str, what: str) -> None:
    values = VALUE_SETS[what](ca_bundle)
    docs = _render(helm, tmp_path, values, release="proctor", namespace="proctor-system")
    judge_role = "proctor-judge"
    allowed = allowed_rules("proctor", "proctor-gate")
    for role, rules in _roles(docs, "proctor").items():
        for rule in rules:
            where = f"{role} rule {rule} ({what})"
            assert "nonResourceURLs" not in rule, where
            assert "*" not in rule.get("resources", []) and "*" not in rule.get("apiGroups", []), where
            assert not FORBIDDEN_VERBS & set(rule["verbs"]), where
            if "secrets" in rule.get("resources", []):
                assert not SECRET_READS & set(rule["verbs"]), f"{where} reads Secrets"
            if "bind" in rule["verbs"]:
                assert rule.get("resourceNames") == [judge_role], (
                    f"{where}: bind beyond the judge ClusterRole"
                )
        broader = _grants(rules) - allowed[role]
        assert not broader, f"{role} ({what}) grants what the README's table does not list: {sorted(broader)}"
    # nobody but the chart's ServiceAccounts is bound; the judge's role only to the judge's account
    for b in (d for d in docs if d["kind"] in ("RoleBinding", "ClusterRoleBinding")):
        subjects = {(s["kind"], s["name"]) for s in b["subjects"]}
        if b["roleRef"]["name"] in (
            "proctor-collector",
            "proctor-collector-exam-results",
            "system:auth-delegator",
        ):
            assert subjects == {("ServiceAccount", "proctor-collector")}  # the collector's own
        elif b["roleRef"]["name"] == judge_role:
            assert b["kind"] == "RoleBinding" and subjects == {("ServiceAccount", "proctor-judge")}
        else:
            assert subjects == {("ServiceAccount", "proctor")}


def test_the_readme_table_lists_exactly_what_the_chart_grants(
    helm: str, tmp_path: Path, ca_bundle: str
) -> None:
    """Every row of the README's table is granted by some value set (a rule removed from the chart
    is removed from the table too), and the defaults grant no cluster-wide create of webhook
    configurations: the chart creates its own, the operator may only patch that one name."""
    granted: dict[str, set[tuple[str, str, str, str | None]]] = {}
    for values in VALUE_SETS.values():
        docs = _render(helm, tmp_path, values(ca_bundle), release="proctor", namespace="proctor-system")
        for role, rules in _roles(docs, "proctor").items():
            granted.setdefault(role, set()).update(_grants(rules))
    assert granted == allowed_rules("proctor", "proctor-gate")
    docs = _render(helm, tmp_path, {}, release="proctor", namespace="proctor-system")
    webhook_rights = {g for g in _grants(_roles(docs, "proctor")["operator-cluster"]) if "webhook" in g[1]}
    assert webhook_rights == {
        ("admissionregistration.k8s.io", "mutatingwebhookconfigurations", "patch", "proctor-gate")
    }


def test_the_chart_owns_the_webhook_configuration(helm: str, tmp_path: Path) -> None:
    """With the defaults (an operator-made certificate) the chart creates the configuration, so
    `helm uninstall` removes it: the operator's own, without a caBundle (the operator writes its CA;
    helm never resets a field it does not render). Only a urlHost the chart cannot know does not."""
    ns = "proctor-system"
    docs = _render(helm, tmp_path, {}, release="proctor", namespace=ns)
    mwc = _one(docs, "MutatingWebhookConfiguration")
    c = _one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in c["env"] if "value" in e} | {"POD_NAMESPACE": ns}
    cfg = webhook_mod().WebhookConfig.from_env(env, namespaces=[])
    assert mwc["metadata"]["name"] == cfg.name
    ours = cfg.configuration(b"CA")["webhooks"]
    for hook in ours:
        hook["clientConfig"].pop("caBundle")
    assert mwc["webhooks"] == ours
    host = _render(helm, tmp_path, {"webhook": {"urlHost": "127.0.0.1"}}, release="proctor", namespace=ns)
    assert _one(host, "MutatingWebhookConfiguration")["webhooks"][0]["clientConfig"] == {
        "url": "https://127.0.0.1:9443/proctor-gate"
    }
    pod_ip = _render(helm, tmp_path, {"webhook": {"urlHost": "$(POD_IP)"}}, release="proctor", namespace=ns)
    assert not [d for d in pod_ip if d["kind"] == "MutatingWebhookConfiguration"]


def test_rights_are_namespaced_where_the_operator_manages_namespaces(helm: str, tmp_path: Path) -> None:
    """With watchNamespaces the operator's rights are RoleBindings in those namespaces only (none in
    kube-system or any other), the chart makes the judge's account and binding, and the operator
    holds no rule on ServiceAccounts, RoleBindings or ClusterRoles."""
    docs = _render(
        helm,
        tmp_path,
        {"watchNamespaces": ["team-a", "team-b"]},
        release="proctor",
        namespace="proctor-system",
    )
    bindings = {
        (d["kind"], d["metadata"].get("namespace"), d["roleRef"]["name"])
        for d in docs
        if "Binding" in d["kind"]
    }
    assert bindings == {
        ("RoleBinding", "team-a", "proctor"),
        ("RoleBinding", "team-b", "proctor"),
        ("RoleBinding", "team-a", "proctor-judge"),
        ("RoleBinding", "team-b", "proctor-judge"),
        ("RoleBinding", "team-a", "proctor-agentmonitors"),
        ("RoleBinding", "team-b", "proctor-agentmonitors"),
        ("ClusterRoleBinding", None, "proctor-cluster"),
        ("RoleBinding", "proctor-system", "proctor-cases"),  # the runs' cases, its own namespace only
    }
    held = _grants(_roles(docs, "proctor")["operator"])
    assert not {g for g in held if g[1] in ("serviceaccounts", "rolebindings", "roles", "clusterroles")}
    judge_accounts = [
        d for d in docs if d["kind"] == "ServiceAccount" and d["metadata"]["name"] == "proctor-judge"
    ]
    assert {d["metadata"]["namespace"] for d in judge_accounts} == {"team-a", "team-b"}
    assert all(d["automountServiceAccountToken"] is False for d in judge_accounts)
    c = _one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
    env = {e["name"]: e.get("value") for e in c["env"]}
    assert env["PROCTOR_MANAGE_JUDGE_RBAC"] == "false"  # the chart made them

    # cluster-wide: a ClusterRoleBinding (every namespace; the README says so), and the operator may
    # bind the judge ClusterRole by name instead of holding its rights or creating Roles
    docs = _render(helm, tmp_path, {}, release="proctor", namespace="proctor-system")
    held = _grants(_roles(docs, "proctor")["operator"])
    assert ("rbac.authorization.k8s.io", "clusterroles", "bind", "proctor-judge") in held
    assert not {g for g in held if g[1] == "roles"}
    # it reads reports and results in the runs' namespaces and writes no ConfigMap there: the cases
    # are pinned in its own namespace
    assert {g[2] for g in held if g[1] == "configmaps"} == {"get"}


def test_the_judge_cluster_role_is_the_judges_rules(helm: str, tmp_path: Path) -> None:
    """The judge ClusterRole the chart installs holds exactly the rules the operator's own Role for
    the judge would (proctor.k8s.objects.JUDGE_RULES), and the operator can bind it and write the
    judge's objects (create, then patch by name)."""
    for values in ({}, {"watchNamespaces": ["team-a"]}):
        docs = _render(helm, tmp_path, values, release="proctor", namespace="proctor-system")
        roles = _roles(docs, "proctor")
        assert _grants(roles["judge"]) == _grants([dict(r) for r in objects.JUDGE_RULES])
    docs = _render(helm, tmp_path, {}, release="proctor", namespace="proctor-system")
    held = _grants(_roles(docs, "proctor")["operator"])
    for obj in objects.judge_rbac("team-a", "proctor-judge"):
        group = obj["apiVersion"].rpartition("/")[0]
        resource = {"ServiceAccount": "serviceaccounts", "RoleBinding": "rolebindings"}[obj["kind"]]
        assert (group, resource, "create", None) in held
        assert (group, resource, "patch", obj["metadata"]["name"]) in held
        if obj["kind"] == "RoleBinding":
            assert obj["roleRef"] == {
                "apiGroup": "rbac.authorization.k8s.io",
                "kind": "ClusterRole",
                "name": "proctor-judge",
            }


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
    assert "fail closed" in notes
    # the chart owns the webhook configuration; uninstalling unpauses nothing and says how
    assert "kubectl delete mutatingwebhookconfiguration" not in notes
    assert "removes the operator and the webhook configuration; it unpauses nothing" in notes
    assert "rollout resume" in notes and "app.kubernetes.io/managed-by=proctor" in notes
    # watchNamespaces empty (the default): the NOTES say plainly what that grants
    assert "CLUSTER-WIDE RIGHTS" in notes and "patch Deployments in EVERY namespace" in notes
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


def _cond(obj: dict[str, Any], type_: str) -> dict[str, Any]:
    return next((c for c in (obj.get("status") or {}).get("conditions", []) if c["type"] == type_), {})


def _gate_v1_to_v2(crds: Cluster, ns: str, *, webhook: bool) -> None:
    """The chart installed one way or the other, a GatePolicy in Enforce, the example agent v1 -> v2
    (v2 fails its exam). With the webhook, v2 is held before a ReplicaSet exists; without it the
    policy refuses to enforce and v2, which rolled out unexamined, is never called approved."""
    from proctor.gate.admission import APPROVED_ANNOTATION, template_hash
    from proctor.reconcile.gates import short

    policy = yaml.safe_load((EXAMPLE / "gatepolicy.yaml").read_text())
    policy["spec"]["canary"] = {"runs": 1}
    crds.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(policy))
    agent = REPO / "examples" / "agent" / "deployment.yaml"

    def get_policy() -> dict[str, Any]:
        out: dict[str, Any] = crds.get_json("-n", ns, "gatepolicy", "oil-monitoring")
        return out

    def deployment() -> dict[str, Any]:
        out: dict[str, Any] = crds.get_json("-n", ns, "deployment", "oil-agent")
        return out

    def images() -> set[str]:
        rs = crds.get_json("-n", ns, "replicasets", "-l", "app=oil-agent")["items"]
        return {r["spec"]["template"]["spec"]["containers"][0]["image"] for r in rs}

    if not webhook:
        enforcing = wait_for(
            lambda: (c := _cond(get_policy(), "Enforcing")).get("reason") == "WebhookDisabled" and c,
            timeout=60,
            interval=0.5,
            what="Enforcing=False WebhookDisabled",
        )
        assert enforcing["status"] == "False" and "cannot enforce" in enforcing["message"]
        crds.kubectl("-n", ns, "apply", "-f", str(agent))
        crds.kubectl("-n", ns, "set", "image", "deployment/oil-agent", "agent=proctor-example-agent:v2")
        v2 = template_hash(deployment()["spec"]["template"])

        def entry() -> dict[str, Any] | None:
            ws = (get_policy().get("status") or {}).get("workloads") or []
            w = next((w for w in ws if w["name"] == "oil-agent"), None)
            return w if w is not None and w.get("revision") == short(v2) else None

        seen = wait_for(entry, timeout=60, interval=0.5, what="v2 in the policy's status")
        assert "rolled out before its exam" in (seen.get("message") or ""), seen
        assert "approved" not in (seen.get("message") or ""), seen
        annotations = deployment()["metadata"].get("annotations") or {}
        assert annotations.get(APPROVED_ANNOTATION) != v2
        assert get_policy()["status"]["effectiveEnforcement"] == "Observe"
        return

    crds.kubectl("-n", ns, "apply", "-f", str(agent))
    wait_for(
        lambda: APPROVED_ANNOTATION in (deployment()["metadata"].get("annotations") or {}),
        timeout=180,
        interval=1,
        what="v1 to pass its exam and be approved",
    )
    wait_for(
        lambda: _cond(get_policy(), "Enforcing").get("status") == "True",
        timeout=180,
        interval=1,
        what="the policy to enforce after its canary",
    )
    ready = _cond(get_policy(), "Ready")
    assert ready["status"] == "True", ready["message"]  # the API server really calls the webhook
    crds.kubectl("-n", ns, "set", "image", "deployment/oil-agent", "agent=proctor-example-agent:v2")
    assert deployment()["spec"]["paused"] is True  # held by the webhook, in the same request
    blocked = wait_for(
        lambda: (c := _cond(get_policy(), "RolloutBlocked")).get("status") == "True" and c,
        timeout=180,
        interval=1,
        what="the v2 rollout to be blocked",
    )
    assert "oil-consumption-boundary" in blocked["message"]
    assert deployment()["spec"]["paused"] is True
    assert "proctor-example-agent:v2" not in images()  # no v2 ReplicaSet ever existed


@pytest.mark.parametrize(
    "webhook",
    [
        # both create gated Deployments (v1 -> v2); webhook-on's configuration sees them in every namespace
        pytest.param(False, id="webhook-off", marks=pytest.mark.admission),
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
    # the local API server cannot reach Services: the chart's own value for that, the host
    values["webhook"] = (
        {"urlHost": "127.0.0.1", "port": _free_port()}  # the chart's failurePolicy: Fail
        if webhook
        else {"enabled": False}
    )
    # the operator's own namespace, apart from the one it manages (the webhook never gates its own
    # namespace: the chart excludes it, so the probe would say the gate cannot enforce there)
    home = f"{namespace}-sys"
    docs = _render(helm, tmp_path, values, release=namespace, namespace=home)
    # what helm would create before the operator starts: its RBAC and (webhook on) the chart's own
    # MutatingWebhookConfiguration, which the operator may only patch
    rbac = [d for d in docs if d["kind"] in RBAC_KINDS or d["kind"] == "MutatingWebhookConfiguration"]
    cluster_scoped = [d for d in rbac if d["kind"].startswith("Cluster")]
    webhook_configuration = f"{namespace}-proctor-gate"
    crds.kubectl("create", "namespace", home)
    try:
        crds.kubectl(
            "apply", "--server-side", "-f", "-", input="\n---\n".join(yaml.safe_dump(d) for d in rbac)
        )
        sa = _one(docs, "Deployment")["spec"]["template"]["spec"]["serviceAccountName"]
        kubeconfig = _token_kubeconfig(crds, home, sa, tmp_path / "operator.kubeconfig")

        # the chart's container, run here as a process: its args and env, a free probe port
        container = _one(docs, "Deployment")["spec"]["template"]["spec"]["containers"][0]
        port = _free_port()
        args = [a.replace("http://0.0.0.0:8080", f"http://127.0.0.1:{port}") for a in container["args"]]
        assert args[0] == "operator"
        env = {e["name"]: e["value"] for e in container["env"] if "value" in e}
        env |= {
            "KUBECONFIG": str(kubeconfig),
            "POD_NAMESPACE": home,
            "PROCTOR_METRICS_PORT": "0",
            "PROCTOR_RECONCILE_INTERVAL": "1",
            "PROCTOR_RETRY_BACKOFF": "1,1,1,1",
            "PROCTOR_LOG_FORMAT": "console",
            # the case server on loopback (judge pods are processes here: no Service to resolve)
            "PROCTOR_CASES_PORT": "0",
            "PROCTOR_CASES_ADDR": "127.0.0.1",
            "PROCTOR_CASES_HOST": "127.0.0.1",
            "PROCTOR_CASES_CERT_DIR": str(tmp_path / "cases-certs"),
        }
        if webhook:
            assert env["PROCTOR_WEBHOOK_CONFIGURATION"] == webhook_configuration
            assert env["PROCTOR_WEBHOOK_URL_HOST"] == "127.0.0.1" and "PROCTOR_WEBHOOK_SERVICE" not in env
            # a process, not a pod: no emptyDir at the chart's certificate path
            env |= {"PROCTOR_WEBHOOK_ADDR": "127.0.0.1", "PROCTOR_WEBHOOK_CERT_DIR": str(tmp_path / "certs")}
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
        # the chart made the judge's account and binding (to its judge ClusterRole); no Role exists
        binding = crds.get_json("-n", namespace, "rolebinding", "proctor-judge")
        assert binding["roleRef"]["name"] == f"{namespace}-proctor-judge"
        assert crds.kubectl("-n", namespace, "get", "role", "proctor-judge", check=False).returncode != 0
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

        _gate_v1_to_v2(crds, namespace, webhook=webhook)

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
        crds.kubectl("delete", "namespace", home, "--wait=false", "--ignore-not-found", check=False)
