"""The Helm chart's collector (collector.enabled): what it renders, the rights it grants (each rule
listed here on purpose), the values it refuses, and the chart installed for real: the node
stand-in runs its pods, spans reach the collector, the chart's operator writes the AgentMonitor's
status from it with its own service-account token.

helm is built from its Go module by hack/get-helm.sh (cached under ~/.cache/proctor/tools); when
it cannot be had, these tests fail with the reason, they are never skipped.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from collecting import TIMEOUT, agent_turn, manifests, tracer
from conftest import REPO, Cluster, wait_for
from proctor.collector import add_arguments
from proctor.reconcile.config import OperatorConfig
from proctor.testing.judgeserver import JudgeServer

CHART = REPO / "charts" / "proctor"
INGEST_TOKEN = "chart-ingest-token"

Grant = tuple[str, str, str, str | None]

#: The collector's rights (ClusterRole <fullname>-collector): list the monitors it serves and their
#: profiles, create Events (notices). Changing the chart's RBAC means changing this on purpose.
COLLECTOR_RULES: set[Grant] = {
    ("proctor.dev", "agentmonitors", "list", None),
    ("proctor.dev", "evalprofiles", "list", None),
    ("proctor.dev", "evalruns", "get", None),
    ("", "events", "create", None),
}
#: The operator's rights on AgentMonitors (ClusterRole <fullname>-agentmonitors).
OPERATOR_MONITOR_RULES: set[Grant] = {
    ("proctor.dev", "agentmonitors", "get", None),
    ("proctor.dev", "agentmonitors", "list", None),
    ("proctor.dev", "agentmonitors", "watch", None),
    ("proctor.dev", "agentmonitors/status", "patch", None),
    # performing approved recommendations (armb-act): claim (perform), hold-canary (patch), the
    # captureTo CaseSet (create), a rollback's previous ReplicaSet (list)
    ("proctor.dev", "agentmonitors", "patch", None),
    ("proctor.dev", "agentmonitors", "perform", None),
    ("proctor.dev", "casesets", "create", None),
    ("apps", "replicasets", "list", None),
}


@pytest.fixture(scope="module")
def helm() -> str:
    proc = subprocess.run(
        ["bash", str(REPO / "hack" / "get-helm.sh")],
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    path = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    if proc.returncode != 0 or not path or not Path(path).is_file():
        pytest.fail(
            f"helm could not be obtained with hack/get-helm.sh (exit {proc.returncode}):\n{proc.stderr}"
        )
    return path


def _values(tmp_path: Path, values: dict[str, Any]) -> str:
    path = tmp_path / f"values-{len(list(tmp_path.glob('values-*')))}.yaml"
    path.write_text(yaml.safe_dump(values))
    return str(path)


def render(
    helm: str, tmp_path: Path, values: dict[str, Any], *, ns: str = "proctor-system"
) -> list[dict[str, Any]]:
    proc = subprocess.run(
        [helm, "template", "proctor", str(CHART), "-n", ns, "-f", _values(tmp_path, values)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return [d for d in yaml.safe_load_all(proc.stdout) if d]


def refused(helm: str, tmp_path: Path, values: dict[str, Any]) -> str:
    proc = subprocess.run(
        [helm, "template", "proctor", str(CHART), "-f", _values(tmp_path, values)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode != 0, f"{values} was accepted"
    return proc.stderr


def one(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    found = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    assert len(found) == 1, f"expected one {kind} {name}, found {len(found)}"
    return found[0]


def grants(role: dict[str, Any]) -> set[Grant]:
    return {
        (g, r, v, n)
        for rule in role["rules"]
        for g in rule.get("apiGroups", [])
        for r in rule.get("resources", [])
        for v in rule["verbs"]
        for n in rule.get("resourceNames") or [None]
    }


def env_of(container: dict[str, Any]) -> dict[str, str]:
    return {e["name"]: e["value"] for e in container.get("env") or [] if "value" in e}


ENABLED = {"collector": {"enabled": True}}


def test_the_collector_is_off_by_default_and_the_operator_rights_on_monitors_are_not(
    helm: str, tmp_path: Path
) -> None:
    docs = render(helm, tmp_path, {})
    assert not [d for d in docs if "collector" in d["metadata"]["name"]]
    operator = one(docs, "Deployment", "proctor")["spec"]["template"]["spec"]["containers"][0]
    assert "PROCTOR_COLLECTOR_URL" not in env_of(operator)
    assert grants(one(docs, "ClusterRole", "proctor-agentmonitors")) == OPERATOR_MONITOR_RULES
    binding = one(docs, "ClusterRoleBinding", "proctor-agentmonitors")
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "proctor", "namespace": "proctor-system"}
    ]
    scoped = render(helm, tmp_path, {"watchNamespaces": ["team-a"]})
    assert one(scoped, "RoleBinding", "proctor-agentmonitors")["metadata"]["namespace"] == "team-a"
    assert not [
        d for d in scoped if d["kind"] == "ClusterRoleBinding" and "agentmonitors" in d["metadata"]["name"]
    ]


def test_the_collector_renders_as_its_flags_and_the_operator_is_pointed_at_it(
    helm: str, tmp_path: Path
) -> None:
    docs = render(helm, tmp_path, ENABLED)
    deploy = one(docs, "Deployment", "proctor-collector")
    assert deploy["spec"]["replicas"] == 1 and deploy["spec"]["strategy"] == {"type": "Recreate"}
    pod = deploy["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "proctor-collector" and pod["securityContext"]["runAsNonRoot"]
    (c,) = pod["containers"]
    assert c["image"] == "ghcr.io/proctor-dev/proctor:0.1.0"
    # the arguments are the collector's own flags: parse them with its own parser
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    assert c["args"][0] == "collector"
    args = parser.parse_args(c["args"][1:])
    assert (args.listen, args.db, args.concurrency, args.namespace) == (
        "0.0.0.0:4318",
        "sqlite:////var/lib/proctor/collector.db",
        8,
        [],
    )
    assert {m["mountPath"]: m["name"] for m in c["volumeMounts"]} == {
        "/tmp": "tmp",
        "/var/lib/proctor": "data",
    }
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["data"]["persistentVolumeClaim"] == {"claimName": "proctor-collector"}
    assert c["startupProbe"]["httpGet"] == {"path": "/healthz", "port": "otlp-http"}
    assert c["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": "otlp-http"}
    assert c["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": "otlp-http"}
    assert c["ports"] == [{"name": "otlp-http", "containerPort": 4318, "protocol": "TCP"}]
    pvc = one(docs, "PersistentVolumeClaim", "proctor-collector")
    assert (
        pvc["spec"]["accessModes"] == ["ReadWriteOnce"]
        and pvc["spec"]["resources"]["requests"]["storage"] == "5Gi"
    )
    assert pvc["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep"
    svc = one(docs, "Service", "proctor-collector")
    assert svc["spec"]["ports"] == [
        {"name": "otlp-http", "port": 4318, "targetPort": "otlp-http", "protocol": "TCP"}
    ]
    assert svc["spec"]["selector"] == deploy["spec"]["selector"]["matchLabels"]
    # its pods have a name of their own: the operator's Deployment and metrics Service never select them
    operator = one(docs, "Deployment", "proctor")
    pod_labels = deploy["spec"]["template"]["metadata"]["labels"]
    assert not operator["spec"]["selector"]["matchLabels"].items() <= pod_labels.items()
    assert not one(docs, "Service", "proctor-metrics")["spec"]["selector"].items() <= pod_labels.items()
    # the operator reads the monitors' summaries from the chart's collector Service
    config = OperatorConfig.from_env(env_of(operator["spec"]["template"]["spec"]["containers"][0]))
    assert config.collector_url == "http://proctor-collector.proctor-system.svc:4318"

    external = render(helm, tmp_path, {"collector": {"url": "http://collector.obs.svc:4318"}})
    c = one(external, "Deployment", "proctor")["spec"]["template"]["spec"]["containers"][0]
    assert env_of(c)["PROCTOR_COLLECTOR_URL"] == "http://collector.obs.svc:4318"
    assert not [d for d in external if d["metadata"]["name"] == "proctor-collector"]


def test_the_collector_holds_least_privilege(helm: str, tmp_path: Path) -> None:
    docs = render(helm, tmp_path, ENABLED)
    assert grants(one(docs, "ClusterRole", "proctor-collector")) == COLLECTOR_RULES  # no Secret at all
    binding = one(docs, "ClusterRoleBinding", "proctor-collector")
    subject = [{"kind": "ServiceAccount", "name": "proctor-collector", "namespace": "proctor-system"}]
    assert binding["subjects"] == subject
    # exam results: get ConfigMaps in the operator's (release) namespace only, never list
    exam = one(docs, "Role", "proctor-collector-exam-results")
    assert exam["metadata"]["namespace"] == "proctor-system"
    assert grants(exam) == {("", "configmaps", "get", None)}
    assert one(docs, "RoleBinding", "proctor-collector-exam-results")["subjects"] == subject
    delegator = one(docs, "ClusterRoleBinding", "proctor-collector-auth-delegator")
    assert delegator["roleRef"]["name"] == "system:auth-delegator" and delegator["subjects"] == subject

    named = render(
        helm,
        tmp_path,
        {
            "collector": {
                "enabled": True,
                "secretNames": ["oil-ingest", "judge-api-key"],
                "namespaces": ["team-a"],
            }
        },
    )
    assert grants(one(named, "ClusterRole", "proctor-collector")) == COLLECTOR_RULES | {
        ("", "secrets", "get", "oil-ingest"),
        ("", "secrets", "get", "judge-api-key"),
    }
    assert one(named, "RoleBinding", "proctor-collector")["metadata"]["namespace"] == "team-a"
    assert not [
        d for d in named if d["kind"] == "ClusterRoleBinding" and d["metadata"]["name"] == "proctor-collector"
    ]
    c = one(named, "Deployment", "proctor-collector")["spec"]["template"]["spec"]["containers"][0]
    assert c["args"][-2:] == ["-n", "team-a"]


def test_postgresql_allows_replicas_and_sqlite_refuses_them(helm: str, tmp_path: Path) -> None:
    assert "collector/replicas" in refused(helm, tmp_path, {"collector": {"enabled": True, "replicas": 2}})
    assert "urlSecret.name" in refused(
        helm, tmp_path, {"collector": {"enabled": True, "database": {"type": "postgresql"}}}
    )
    assert "database/type" in refused(
        helm, tmp_path, {"collector": {"enabled": True, "database": {"type": "mysql"}}}
    )
    docs = render(
        helm,
        tmp_path,
        {
            "collector": {
                "enabled": True,
                "replicas": 3,
                "database": {"type": "postgresql", "urlSecret": {"name": "proctor-db", "key": "url"}},
            }
        },
    )
    deploy = one(docs, "Deployment", "proctor-collector")
    assert deploy["spec"]["replicas"] == 3 and deploy["spec"]["strategy"]["type"] == "RollingUpdate"
    c = deploy["spec"]["template"]["spec"]["containers"][0]
    assert "--db" not in c["args"]
    db = next(e for e in c["env"] if e["name"] == "PROCTOR_DB")
    assert db["valueFrom"] == {"secretKeyRef": {"name": "proctor-db", "key": "url"}}
    assert not [d for d in docs if d["kind"] == "PersistentVolumeClaim"]


def test_sqlite_durability_is_full_unless_the_value_says_normal(helm: str, tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)

    def synchronous(values: dict[str, Any]) -> str:
        c = one(render(helm, tmp_path, values), "Deployment", "proctor-collector")["spec"]["template"]
        return str(parser.parse_args(c["spec"]["containers"][0]["args"][1:]).sqlite_synchronous)

    assert synchronous(ENABLED) == "FULL"
    normal = {"collector": {"enabled": True, "database": {"sqliteSynchronous": "NORMAL"}}}
    assert synchronous(normal) == "NORMAL"
    # OFF (no fsync) is not a level the chart accepts
    off = {"collector": {"enabled": True, "database": {"sqliteSynchronous": "OFF"}}}
    assert "sqliteSynchronous" in refused(helm, tmp_path, off)


def test_the_servicemonitor_scrapes_the_collector(helm: str, tmp_path: Path) -> None:
    docs = render(
        helm, tmp_path, {"collector": {"enabled": True}, "metrics": {"serviceMonitor": {"enabled": True}}}
    )
    sm = one(docs, "ServiceMonitor", "proctor-collector")
    assert sm["spec"]["endpoints"][0] | {"interval": None, "scrapeTimeout": None} == {
        "port": "otlp-http",
        "path": "/metrics",
        "scheme": "http",
        "interval": None,
        "scrapeTimeout": None,
    }
    svc = one(docs, "Service", "proctor-collector")
    assert sm["spec"]["selector"]["matchLabels"].items() <= svc["metadata"]["labels"].items()


def test_the_collector_pod_passes_the_restricted_pod_security_standard(
    helm: str, cluster: Cluster, namespace: str, tmp_path: Path
) -> None:
    restricted = f"{namespace}-pss"
    cluster.kubectl("create", "namespace", restricted)
    try:
        cluster.kubectl("label", "namespace", restricted, "pod-security.kubernetes.io/enforce=restricted")
        docs = render(helm, tmp_path, ENABLED, ns=restricted)
        template = one(docs, "Deployment", "proctor-collector")["spec"]["template"]
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            **template,
            "metadata": {**template["metadata"], "name": "pss"},
        }
        cluster.kubectl("-n", restricted, "create", "serviceaccount", "proctor-collector")
        proc = cluster.kubectl(
            "create", "--dry-run=server", "-n", restricted, "-f", "-", input=json.dumps(pod), check=False
        )
        assert proc.returncode == 0, proc.stderr
        applied = cluster.kubectl(
            "apply",
            "--dry-run=server",
            "-n",
            restricted,
            "-f",
            "-",
            input="\n---\n".join(yaml.safe_dump(d) for d in docs if "collector" in d["metadata"]["name"]),
            check=False,
        )
        assert applied.returncode == 0, applied.stderr
    finally:
        cluster.kubectl("delete", "namespace", restricted, "--wait=false", check=False)


# --- installed for real ----------------------------------------------------------------------------


def _pod_ip(cluster: Cluster, namespace: str, selector: str) -> str | None:
    pods = cluster.get_json("-n", namespace, "pods", "-l", selector).get("items") or []
    ready = [
        p
        for p in pods
        if p["metadata"].get("deletionTimestamp") is None
        and any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions") or [])
    ]
    return ready[0]["status"].get("podIP") if len(ready) == 1 else None


def test_the_installed_chart_collects_spans_and_the_operator_writes_the_monitors_status(
    helm: str, crds: Cluster, namespace: str, tmp_path: Path
) -> None:
    """helm install with the chart's defaults plus the collector: the node stand-in runs the operator
    and the collector as processes; the chart's own mount path for SQLite (/var/lib/proctor) is the
    claim's directory under the stand-in's, and nothing is written to the host's /var/lib/proctor.
    The operator authenticates to the collector with its own service-account token (TokenReview +
    SubjectAccessReview: the chart's RBAC decides)."""
    host_path = Path("/var/lib/proctor")
    existed = host_path.exists()
    release = namespace
    # the release in a namespace of its own: the operator never acts in its own namespace (where its
    # certificates and the collector live), so the monitor lives where the agent does
    home = f"{namespace}-proctor"[:63]
    crds.kubectl("create", "namespace", home)
    with JudgeServer() as judge:
        objects = manifests(judge.base_url, tokenSecretRef={"name": "oil-ingest", "key": "token"})
        for obj in objects:
            obj["metadata"]["namespace"] = namespace
        secret = {
            "apiVersion": "v1",
            "kind": "Secret",
            "metadata": {"name": "oil-ingest", "namespace": namespace},
            "stringData": {"token": INGEST_TOKEN},
        }
        crds.kubectl(
            "apply",
            "-f",
            "-",
            input=json.dumps({"apiVersion": "v1", "kind": "List", "items": [*objects, secret]}),
        )
        values = {
            "watchNamespaces": [namespace],
            "collector": {
                "enabled": True,
                "namespaces": [namespace],
                "secretNames": ["oil-ingest"],
            },
            "operator": {"logFormat": "console"},
            # the gate is not this test's subject: the chart's default webhook (fail closed, on a
            # Service the local API server cannot reach) would hold gated Deployments of every
            # other test running beside this one
            "webhook": {"enabled": False},
        }
        env = crds.env()

        def helm_run(*args: str) -> None:
            proc = subprocess.run(
                [helm, *args], capture_output=True, text=True, timeout=300, env=env, check=False
            )
            assert proc.returncode == 0, f"helm {' '.join(args)}:\n{proc.stderr}"

        helm_run("install", release, str(CHART), "-n", home, "-f", _values(tmp_path, values))
        try:
            selector = "app.kubernetes.io/name=proctor-collector"
            ip = wait_for(
                lambda: _pod_ip(crds, home, selector), timeout=TIMEOUT, what="the collector pod Ready"
            )
            url = f"http://{ip}:4318"
            assert httpx.get(f"{url}/readyz").status_code == 200
            with tracer(url, token=INGEST_TOKEN) as tr:
                agent_turn(tr, "chart-1", "Oil at 0.30 qt/hr?", "ELEVATED (AMM 72-00).")
            metrics = wait_for(
                lambda: (
                    "proctor_collector_spans_stored_total" in (m := httpx.get(f"{url}/metrics").text)
                    and f'monitor="{namespace}/oil-agent"' in m
                    and m
                ),
                timeout=TIMEOUT,
                what="the spans stored",
            )
            assert f'proctor_collector_spans_stored_total{{monitor="{namespace}/oil-agent"}} 4.0' in metrics
            if crds.state_dir is not None:  # the local control plane: the claim is a directory of its own
                claim = crds.state_dir / "node" / "volumes" / home / f"{release}-proctor-collector"
                assert (claim / "collector.db").is_file(), "the SQLite file is not in the claim's directory"
                assert existed or not host_path.exists(), "the chart wrote to the host's /var/lib/proctor"

            # no Service routing on the node stand-in: point the chart's operator at the collector
            # pod's address (collector.url; in a cluster the default is the collector Service)
            values["collector"]["url"] = url
            helm_run("upgrade", release, str(CHART), "-n", home, "-f", _values(tmp_path, values))

            def status() -> dict[str, Any]:
                obj = crds.get_json("-n", namespace, "agentmonitor", "oil-agent")
                return dict(obj.get("status") or {})

            done = wait_for(
                lambda: (st := status()).get("runs", {}).get("evaluated") == 1 and st,
                timeout=TIMEOUT * 2,
                what="the chart's operator to write the evaluated run into the monitor's status",
            )
            receiving = next(c for c in done["conditions"] if c["type"] == "Receiving")
            assert (receiving["status"], receiving["reason"]) == ("True", "RunsArriving")
            assert next(d for d in done["dimensions"] if d["name"] == "safety")["latest"] == 75
            # neither was refused anything with the chart's RBAC
            for deployment in (f"{release}-proctor", f"{release}-proctor-collector"):
                logs = crds.kubectl("-n", home, "logs", f"deployment/{deployment}").stdout.lower()
                assert logs, deployment
                denied = [
                    line
                    for line in logs.splitlines()
                    if any(w in line for w in ("forbidden", " 403", "cannot read secret"))
                ]
                assert not denied, f"{deployment} was refused:\n" + "\n".join(denied[:10])
        finally:
            subprocess.run(
                [helm, "uninstall", release, "-n", home, "--wait", "--timeout", "120s"],
                capture_output=True,
                timeout=180,
                env=env,
                check=False,
            )
            crds.kubectl("delete", "namespace", home, "--wait=false", check=False)
    # the chart's cluster-scoped objects went with the release
    left = crds.kubectl("get", "clusterroles,clusterrolebindings", "-o", "name").stdout
    assert f"{release}-proctor" not in left


def test_the_operator_may_request_a_token_for_its_own_account_only(helm: str, tmp_path: Path) -> None:
    """The operator calls the collector with a TokenRequest for its own ServiceAccount (audience
    proctor-collector): create on serviceaccounts/token for that one name, in its own namespace."""
    for values in (ENABLED, {"collector": {"url": "https://collector.obs.svc:4318"}}):
        docs = render(helm, tmp_path, values)
        role = one(docs, "Role", "proctor-collector-token")
        assert role["metadata"]["namespace"] == "proctor-system"
        assert grants(role) == {("", "serviceaccounts/token", "create", "proctor")}
        binding = one(docs, "RoleBinding", "proctor-collector-token")
        assert binding["subjects"] == [
            {"kind": "ServiceAccount", "name": "proctor", "namespace": "proctor-system"}
        ]
        assert binding["roleRef"]["name"] == "proctor-collector-token"
        operator = one(docs, "Deployment", "proctor")["spec"]["template"]["spec"]["containers"][0]
        assert "PROCTOR_COLLECTOR_TOKEN" not in env_of(operator)  # never a fixed token
    # no collector: no such right
    assert not [d for d in render(helm, tmp_path, {}) if d["metadata"]["name"] == "proctor-collector-token"]


def test_the_collector_serves_tls_and_the_operator_verifies_it(helm: str, tmp_path: Path) -> None:
    # a cert-manager-style Secret (tls.crt, tls.key, ca.crt)
    docs = render(
        helm, tmp_path, {"collector": {"enabled": True, "tls": {"existingSecret": "collector-cert"}}}
    )
    pod = one(docs, "Deployment", "proctor-collector")["spec"]["template"]["spec"]
    (c,) = pod["containers"]
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(c["args"][1:])
    assert (str(args.tls_cert), str(args.tls_key)) == ("/etc/proctor/tls/tls.crt", "/etc/proctor/tls/tls.key")
    volumes = {v["name"]: v for v in pod["volumes"]}
    assert volumes["tls"]["secret"]["secretName"] == "collector-cert"
    assert {m["name"]: m["mountPath"] for m in c["volumeMounts"]}["tls"] == "/etc/proctor/tls"
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert c[probe]["httpGet"]["scheme"] == "HTTPS"
    operator = one(docs, "Deployment", "proctor")["spec"]["template"]["spec"]
    config = OperatorConfig.from_env(env_of(operator["containers"][0]))
    assert config.collector_url == "https://proctor-collector.proctor-system.svc:4318"
    assert config.collector_ca == "/etc/proctor/collector-ca/ca.crt"
    ca = {v["name"]: v for v in operator["volumes"]}["collector-ca"]
    assert ca["secret"] == {"secretName": "collector-cert", "items": [{"key": "ca.crt", "path": "ca.crt"}]}
    mounts = {m["name"]: m["mountPath"] for m in operator["containers"][0]["volumeMounts"]}
    assert mounts["collector-ca"] == "/etc/proctor/collector-ca"

    # a certificate given as values: the chart makes the Secret; a CA bundle becomes a ConfigMap
    given = {"cert": "CERT-PEM", "key": "KEY-PEM", "caBundle": "CA-PEM"}
    docs = render(helm, tmp_path, {"collector": {"enabled": True, "tls": given}})
    secret = one(docs, "Secret", "proctor-collector-tls")
    assert secret["type"] == "kubernetes.io/tls" and set(secret["data"]) == {"tls.crt", "tls.key"}
    assert one(docs, "ConfigMap", "proctor-collector-ca")["data"] == {"ca.crt": "CA-PEM"}
    operator = one(docs, "Deployment", "proctor")["spec"]["template"]["spec"]
    assert {v["name"]: v for v in operator["volumes"]}["collector-ca"]["configMap"] == {
        "name": "proctor-collector-ca"
    }
    assert "collector.tls.key" in refused(
        helm, tmp_path, {"collector": {"enabled": True, "tls": {"cert": "x"}}}
    )
    # the collector-wide ingestion token is gone: every monitor needs its own
    assert "tokenSecret" in refused(
        helm, tmp_path, {"collector": {"enabled": True, "tokenSecret": {"name": "t"}}}
    )
