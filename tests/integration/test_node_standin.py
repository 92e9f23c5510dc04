"""The node stand-in reports pods as a kubelet does, on the real API server.

What another component (the Job and ReplicaSet controllers, the operator classifying a failure,
``kubectl``) reads from a pod: waiting reasons and messages, phases, conditions, logs, and the
pod's own address. Most of these hold on a real cluster too; the stand-in's own wording (which
local commands exist) and its kubelet endpoint are checked only on the local control plane.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import ssl
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import Cluster, wait_for

UNRUNNABLE = "registry.invalid/nothing-here:1.0"


def _pod(name: str, command: str, *, image: str = "proctor:dev", **spec: Any) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "main", "image": image, "command": ["sh", "-c", command]}
    container |= spec.pop("container", {})
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "restartPolicy": "Never",
            "terminationGracePeriodSeconds": 2,
            "containers": [container],
            **spec,
        },
    }


def _apply(cluster: Cluster, ns: str, obj: dict[str, Any]) -> None:
    cluster.kubectl("-n", ns, "apply", "-f", "-", input=json.dumps(obj))


def _status(cluster: Cluster, ns: str, pod: str) -> dict[str, Any]:
    return dict(cluster.get_json("-n", ns, "pod", pod).get("status", {}))


def _container(status: dict[str, Any], name: str = "main") -> dict[str, Any]:
    for c in [*status.get("containerStatuses", []), *status.get("initContainerStatuses", [])]:
        if c["name"] == name:
            return dict(c)
    return {}


def _waiting(cluster: Cluster, ns: str, pod: str, name: str = "main") -> dict[str, Any]:
    return dict(_container(_status(cluster, ns, pod), name).get("state", {}).get("waiting") or {})


def _condition(status: dict[str, Any], type_: str) -> dict[str, Any]:
    return next((dict(c) for c in status.get("conditions", []) if c["type"] == type_), {})


def _events(cluster: Cluster, ns: str, pod: str) -> list[dict[str, Any]]:
    items = cluster.get_json("-n", ns, "events", "--field-selector", f"involvedObject.name={pod}")["items"]
    return list(items)


def _wait_phase(cluster: Cluster, ns: str, pod: str, phase: str) -> None:
    cluster.kubectl(
        "-n", ns, "wait", f"--for=jsonpath={{.status.phase}}={phase}", f"pod/{pod}", "--timeout=90s"
    )


def _get(url: str, timeout: float = 2) -> str:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return str(r.read().decode())


def _serves(url: str) -> str | None:
    try:
        return _get(url)
    except OSError:
        return None


# -- images the node cannot run ------------------------------------------------------------------
def test_an_unrunnable_image_waits_in_image_pull_back_off_and_the_pod_stays_pending(
    cluster: Cluster, namespace: str
) -> None:
    _apply(cluster, namespace, _pod("img", "true", image=UNRUNNABLE))
    waiting = wait_for(
        lambda: (w := _waiting(cluster, namespace, "img")).get("reason") == "ImagePullBackOff" and w,
        timeout=90,
        what="ImagePullBackOff",
    )
    assert waiting["message"].startswith(f'Back-off pulling image "{UNRUNNABLE}": ErrImagePull: ')
    status = _status(cluster, namespace, "img")
    assert status["phase"] == "Pending"
    for type_ in ("Ready", "ContainersReady"):
        cond = _condition(status, type_)
        assert (cond["status"], cond["reason"]) == ("False", "ContainersNotReady")
        assert cond["message"] == "containers with unready status: [main]"
    assert _condition(status, "PodScheduled")["status"] == "True"
    main = _container(status)
    assert (main["ready"], main["started"], main["restartCount"], main["imageID"]) == (False, False, 0, "")
    messages = [e["message"] for e in _events(cluster, namespace, "img")]
    assert "Error: ErrImagePull" in messages and "Error: ImagePullBackOff" in messages
    assert any(m.startswith(f'Failed to pull image "{UNRUNNABLE}": ') for m in messages)
    if cluster.local:
        assert "no local command maps to this image" in waiting["message"]
        logs = cluster.kubectl("-n", namespace, "logs", "img", check=False)
        assert logs.returncode != 0
        assert 'container "main" in pod "img" is waiting to start: trying and failing to pull image' in (
            logs.stderr
        )


def test_a_deployment_with_an_unrunnable_image_keeps_one_pending_pod(
    cluster: Cluster, namespace: str
) -> None:
    """A failed pod would make the ReplicaSet create another without limit; a kubelet keeps the
    pod Pending and backs off, so there stays exactly the one pod."""
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "bad"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "bad"}},
            "template": {
                "metadata": {"labels": {"app": "bad"}},
                "spec": {"containers": [{"name": "main", "image": UNRUNNABLE}]},
            },
        },
    }
    _apply(cluster, namespace, deployment)

    def pods() -> list[dict[str, Any]]:
        return list(cluster.get_json("-n", namespace, "pods", "-l", "app=bad")["items"])

    pod = wait_for(
        lambda: [p for p in pods() if _container(p.get("status", {})).get("state", {}).get("waiting")],
        timeout=90,
        what="the Deployment's pod to wait on its image",
    )[0]
    name = pod["metadata"]["name"]
    wait_for(
        lambda: _waiting(cluster, namespace, name).get("reason") == "ImagePullBackOff",
        timeout=90,
        what="the back-off",
    )
    time.sleep(3)  # a pod failing at once would have been replaced several times by now
    now = pods()
    assert [p["metadata"]["name"] for p in now] == [name]
    assert now[0]["status"]["phase"] == "Pending"


def test_a_completed_init_container_initializes_the_pod_while_its_container_waits(
    cluster: Cluster, namespace: str
) -> None:
    pod = _pod("init", "true", image=UNRUNNABLE)
    pod["spec"]["initContainers"] = [{"name": "setup", "image": "proctor:dev", "command": ["true"]}]
    _apply(cluster, namespace, pod)
    wait_for(
        lambda: _waiting(cluster, namespace, "init").get("reason") == "ImagePullBackOff",
        timeout=90,
        what="ImagePullBackOff after the init container",
    )
    status = _status(cluster, namespace, "init")
    setup = _container(status, "setup")
    assert setup["state"]["terminated"]["exitCode"] == 0
    assert setup["ready"] is True  # a completed init container counts as ready
    assert _condition(status, "Initialized")["status"] == "True"
    assert status["phase"] == "Pending"


# -- configuration the container needs -----------------------------------------------------------
def test_a_missing_secret_is_create_container_config_error_until_it_appears(
    cluster: Cluster, namespace: str
) -> None:
    pod = _pod("cfg", 'echo "the key is $KEY"')
    pod["spec"]["containers"][0]["env"] = [
        {"name": "KEY", "valueFrom": {"secretKeyRef": {"name": "judge", "key": "api-key"}}}
    ]
    _apply(cluster, namespace, pod)
    waiting = wait_for(
        lambda: (
            _waiting(cluster, namespace, "cfg").get("reason") == "CreateContainerConfigError"
            and _waiting(cluster, namespace, "cfg")
        ),
        timeout=90,
        what="CreateContainerConfigError",
    )
    assert waiting["message"] == 'secret "judge" not found'
    assert _status(cluster, namespace, "cfg")["phase"] == "Pending"

    cluster.kubectl("-n", namespace, "create", "secret", "generic", "judge", "--from-literal=other=x")
    wait_for(
        lambda: (
            _waiting(cluster, namespace, "cfg").get("message")
            == f"couldn't find key api-key in Secret {namespace}/judge"
        ),
        timeout=60,
        what="the missing key's message",
    )
    assert "Error: couldn't find key api-key in Secret" in " ".join(
        e["message"] for e in _events(cluster, namespace, "cfg")
    )

    cluster.kubectl("-n", namespace, "delete", "secret", "judge")
    cluster.kubectl("-n", namespace, "create", "secret", "generic", "judge", "--from-literal=api-key=s3cr3t")
    _wait_phase(cluster, namespace, "cfg", "Succeeded")
    assert cluster.kubectl("-n", namespace, "logs", "cfg").stdout == "the key is s3cr3t\n"


def test_a_missing_configmap_key_and_an_optional_one(cluster: Cluster, namespace: str) -> None:
    cluster.kubectl("-n", namespace, "create", "configmap", "cfg", "--from-literal=model=tiny")
    pod = _pod("cm", 'echo "$MODEL/$OPTIONAL/$MISSING"')
    pod["spec"]["containers"][0]["env"] = [
        {"name": "MODEL", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "model"}}},
        {
            "name": "OPTIONAL",
            "valueFrom": {"configMapKeyRef": {"name": "nope", "key": "k", "optional": True}},
        },
        {"name": "MISSING", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "temperature"}}},
    ]
    _apply(cluster, namespace, pod)
    wait_for(
        lambda: (
            _waiting(cluster, namespace, "cm")
            == {
                "reason": "CreateContainerConfigError",
                "message": f"couldn't find key temperature in ConfigMap {namespace}/cfg",
            }
        ),
        timeout=90,
        what="the missing ConfigMap key",
    )
    cluster.kubectl("-n", namespace, "patch", "configmap", "cfg", "-p", '{"data":{"temperature":"0"}}')
    _wait_phase(cluster, namespace, "cm", "Succeeded")
    assert cluster.kubectl("-n", namespace, "logs", "cm").stdout == "tiny//0\n"


def test_a_failed_containers_termination_message_is_its_logs_last_80_lines(
    cluster: Cluster, namespace: str
) -> None:
    """FallbackToLogsOnError, as the kubelet reads it: the last 80 lines, at most 2048 bytes."""
    pod = _pod("boom", "seq 1 200; echo kaput >&2; exit 3")
    pod["spec"]["containers"][0]["terminationMessagePolicy"] = "FallbackToLogsOnError"
    _apply(cluster, namespace, pod)
    _wait_phase(cluster, namespace, "boom", "Failed")
    term = _container(_status(cluster, namespace, "boom"))["state"]["terminated"]
    assert (term["exitCode"], term["reason"]) == (3, "Error")
    assert term["message"] == "".join(f"{i}\n" for i in range(122, 201)) + "kaput\n"


def test_what_a_container_writes_to_its_termination_log_is_its_message_whatever_its_exit(
    cluster: Cluster, namespace: str
) -> None:
    """The file standing in for ``terminationMessagePath`` (PROCTOR_NODE_TERMINATION_LOG), as a
    kubelet reads it: what was written, on success and failure alike (the log is the fallback only
    when nothing was)."""
    for name, code in (("said-ok", 0), ("said-err", 3)):
        _apply(
            cluster,
            namespace,
            _pod(name, f'echo noise; printf "first\\nlast" > "$PROCTOR_NODE_TERMINATION_LOG"; exit {code}'),
        )
    for name, code, phase in (("said-ok", 0, "Succeeded"), ("said-err", 3, "Failed")):
        _wait_phase(cluster, namespace, name, phase)
        term = _container(_status(cluster, namespace, name))["state"]["terminated"]
        assert (term["exitCode"], term["message"]) == (code, "first\nlast"), term


# -- restarts ------------------------------------------------------------------------------------
def test_a_crashing_container_is_crash_loop_back_off_with_its_last_run(
    cluster: Cluster, namespace: str
) -> None:
    pod = _pod("crash", 'echo "run $(date +%s%N)"; exit 3', restartPolicy="Always")
    _apply(cluster, namespace, pod)

    def crash_looping() -> dict[str, Any] | None:
        status = _status(cluster, namespace, "crash")
        main = _container(status)
        waiting = main.get("state", {}).get("waiting") or {}
        return status if waiting.get("reason") == "CrashLoopBackOff" and main["restartCount"] >= 2 else None

    status = wait_for(crash_looping, timeout=90, what="CrashLoopBackOff")
    main = _container(status)
    uid = cluster.get_json("-n", namespace, "pod", "crash")["metadata"]["uid"]
    assert re.fullmatch(
        rf"back-off \d+(\.\d+)?m?s restarting failed container=main pod=crash_{namespace}\({uid}\)",
        main["state"]["waiting"]["message"],
    )
    last = main["lastState"]["terminated"]
    assert (last["exitCode"], last["reason"]) == (3, "Error")
    assert status["phase"] == "Running"  # restartPolicy Always: a kubelet never fails it
    assert _condition(status, "Ready")["reason"] == "ContainersNotReady"
    # the logs of a restarting container are its last run's; --previous as well, once it has one
    current = cluster.kubectl("-n", namespace, "logs", "crash").stdout
    assert re.fullmatch(r"(run \d+\n)?", current)  # empty if caught just as it restarted
    previous = cluster.kubectl("-n", namespace, "logs", "crash", "--previous").stdout
    assert re.fullmatch(r"run \d+\n", previous)
    assert any(
        e["reason"] == "BackOff" and e["message"].startswith("Back-off restarting failed container main")
        for e in _events(cluster, namespace, "crash")
    )


# -- probes and the pod's own address ------------------------------------------------------------
SERVE = "mkdir -p www && echo {text} > www/who && cd www && exec python -m http.server {port} {bind}"


def _server_pod(
    name: str, text: str, port: int = 8080, bind: str = '--bind "$POD_IP"', **container: Any
) -> Any:
    pod = _pod(name, SERVE.format(text=text, port=port, bind=bind), restartPolicy="Always")
    pod["spec"]["containers"][0] |= {
        "env": [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
        **container,
    }
    return pod


def _ready_ip(cluster: Cluster, ns: str, pod: str) -> str:
    cluster.kubectl("-n", ns, "wait", "--for=condition=Ready", f"pod/{pod}", "--timeout=90s")
    return str(_status(cluster, ns, pod)["podIP"])


def test_probes_resolve_named_ports(cluster: Cluster, namespace: str) -> None:
    if not cluster.local:
        pytest.skip("the test reaches the pod's address from this machine")
    for name, probe in (
        ("http", {"httpGet": {"port": "web", "path": "/who"}}),
        ("tcp", {"tcpSocket": {"port": "web"}}),
    ):
        pod = _server_pod(
            f"named-{name}",
            name,
            port=18080,
            ports=[{"name": "web", "containerPort": 18080}],
            readinessProbe={**probe, "periodSeconds": 1},
            startupProbe={**probe, "periodSeconds": 1, "failureThreshold": 60},
        )
        _apply(cluster, namespace, pod)
    for name in ("http", "tcp"):
        ip = _ready_ip(cluster, namespace, f"named-{name}")
        assert _get(f"http://{ip}:18080/who") == f"{name}\n"
        main = _container(_status(cluster, namespace, f"named-{name}"))
        assert (main["ready"], main["started"]) == (True, True)


def test_two_pods_in_turn_both_serve_their_pod_ip_port_8080(cluster: Cluster, namespace: str) -> None:
    """A new pod never inherits an address an earlier pod served on (its port may be in TIME_WAIT)."""
    if not cluster.local:
        pytest.skip("the test reaches the pod's address from this machine")
    probe = {"httpGet": {"port": 8080, "path": "/who"}, "periodSeconds": 1}
    ips = []
    for name in ("first", "second"):
        _apply(cluster, namespace, _server_pod(name, name, readinessProbe=probe))
        ip = _ready_ip(cluster, namespace, name)
        # a client connection closed by the server leaves the server's side in TIME_WAIT
        assert _get(f"http://{ip}:8080/who") == f"{name}\n"
        ips.append(ip)
        cluster.kubectl("-n", namespace, "delete", "pod", name, "--wait=true", "--timeout=60s")
    assert ips[0] != ips[1]
    assert all(ip.startswith("127.") and ip != "127.0.0.1" for ip in ips)


def test_two_pods_binding_the_wildcard_address_each_serve_on_their_own(
    cluster: Cluster, namespace: str
) -> None:
    """``0.0.0.0:8080`` in two pods at once: in a cluster each pod has its own network; on the
    stand-in a Python process's wildcard bind takes its pod's address."""
    if not cluster.local:
        pytest.skip("the test reaches the pod's address from this machine")
    probe = {"httpGet": {"port": 8080, "path": "/who"}, "periodSeconds": 1}
    for name in ("left", "right"):
        _apply(cluster, namespace, _server_pod(name, name, bind="", readinessProbe=probe))
    ips = {name: _ready_ip(cluster, namespace, name) for name in ("left", "right")}
    assert {_get(f"http://{ip}:8080/who") for ip in ips.values()} == {"left\n", "right\n"}
    for name, ip in ips.items():
        assert _get(f"http://{ip}:8080/who") == f"{name}\n"
    assert _serves("http://127.0.0.1:8080/who") not in ("left\n", "right\n")


def test_a_sidecar_with_a_startup_probe_holds_the_main_container_until_it_answers(
    cluster: Cluster, namespace: str
) -> None:
    """As on a kubelet, the next container starts once a sidecar has *started* (its startup
    probe passed); readiness alone does not hold it."""
    pod = _pod("side", 'curl -sf "http://$POD_IP:18931/who"')
    pod_ip = {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}
    pod["spec"]["containers"][0]["env"] = [pod_ip]
    pod["spec"]["initContainers"] = [
        {
            "name": "agent",
            "image": "proctor:dev",
            "restartPolicy": "Always",
            "env": [pod_ip],
            "command": [
                "sh",
                "-c",
                "sleep 1; " + SERVE.format(text="agent", port=18931, bind='--bind "$POD_IP"'),
            ],
            "startupProbe": {
                "httpGet": {"port": 18931, "path": "/who"},
                "periodSeconds": 1,
                "failureThreshold": 60,
            },
        }
    ]
    _apply(cluster, namespace, pod)
    _wait_phase(cluster, namespace, "side", "Succeeded")
    status = _status(cluster, namespace, "side")
    assert cluster.kubectl("-n", namespace, "logs", "side").stdout == "agent\n"
    assert _condition(status, "Initialized")["status"] == "True"
    side = _container(status, "agent")["state"]["terminated"]
    main = _container(status)["state"]["terminated"]
    assert main["exitCode"] == 0 and side["finishedAt"] >= main["finishedAt"]


# -- kubectl logs --------------------------------------------------------------------------------
def test_kubectl_logs_tail_container_follow_and_limit(cluster: Cluster, namespace: str) -> None:
    pod = _pod("talk", "for i in 1 2 3 4 5; do echo main $i; sleep 0.4; done")
    pod["spec"]["initContainers"] = [{"name": "setup", "image": "proctor:dev", "command": ["echo", "set up"]}]
    _apply(cluster, namespace, pod)
    _wait_phase(cluster, namespace, "talk", "Running")
    followed = cluster.kubectl("-n", namespace, "logs", "-f", "talk", "-c", "main", timeout=60).stdout
    assert followed == "".join(f"main {i}\n" for i in range(1, 6))  # -f ends when the container does
    assert cluster.kubectl("-n", namespace, "logs", "talk", "--tail=2").stdout == "main 4\nmain 5\n"
    assert cluster.kubectl("-n", namespace, "logs", "talk", "-c", "setup").stdout == "set up\n"
    assert cluster.kubectl("-n", namespace, "logs", "talk", "--limit-bytes=6").stdout == "main 1"
    prev = cluster.kubectl("-n", namespace, "logs", "talk", "--previous", check=False)
    assert prev.returncode != 0
    assert 'previous terminated container "main" in pod "talk" not found' in prev.stderr
    if cluster.local:
        since = cluster.kubectl("-n", namespace, "logs", "talk", "--since=1m", check=False)
        assert since.returncode != 0 and "keeps no log timestamps" in since.stderr


def _kubelet_url(cluster: Cluster, path: str) -> str:
    node = cluster.get_json("node", "proctor-node")
    port = node["status"]["daemonEndpoints"]["kubeletEndpoint"]["Port"]
    assert port > 0
    return f"https://127.0.0.1:{port}{path}"


def _client_cert(pki: Path, tmp: Path, user: str) -> tuple[Path, Path]:
    """A client certificate for ``user`` (no groups) signed by the local control plane's CA."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    ca_key = serialization.load_pem_private_key((pki / "ca.key").read_bytes(), None)
    ca = x509.load_pem_x509_certificate((pki / "ca.crt").read_bytes())
    key = ec.generate_private_key(ec.SECP256R1())
    t = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, user)]))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(t - dt.timedelta(minutes=5))
        .not_valid_after(t + dt.timedelta(hours=1))
        .sign(ca_key, hashes.SHA256())  # type: ignore[arg-type]
    )
    crt_path, key_path = tmp / f"{user}.crt", tmp / f"{user}.key"
    crt_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return crt_path, key_path


def test_the_kubelet_endpoint_authenticates_and_authorizes_its_callers(
    cluster: Cluster, namespace: str, tmp_path: Path
) -> None:
    if not cluster.local or cluster.state_dir is None:
        pytest.skip("the node stand-in's own endpoint")
    pki = cluster.state_dir / "pki"
    _apply(cluster, namespace, _pod("hello", "echo hello"))
    _wait_phase(cluster, namespace, "hello", "Succeeded")
    url = _kubelet_url(cluster, f"/containerLogs/{namespace}/hello/main")

    def fetch(cert: tuple[Path, Path] | None) -> tuple[int, str]:
        ctx = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        if cert:
            ctx.load_cert_chain(*map(str, cert))
        try:
            with urllib.request.urlopen(url, context=ctx, timeout=10) as r:
                return int(r.status), r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode()

    # the API server's own client certificate may read logs
    assert fetch((pki / "apiserver-kubelet-client.crt", pki / "apiserver-kubelet-client.key")) == (
        200,
        "hello\n",
    )
    # a certificate from the cluster's CA for a user without nodes/proxy is refused
    code, body = fetch(_client_cert(pki, tmp_path, f"nobody-{uuid.uuid4().hex[:6]}"))
    assert code == 403 and "subresource(s)=[proxy]" in body
    # no client certificate: the TLS handshake itself fails
    with pytest.raises((ssl.SSLError, urllib.error.URLError, ConnectionResetError)):
        fetch(None)


# -- namespaces being deleted --------------------------------------------------------------------
@pytest.fixture
def doomed(cluster: Cluster) -> Iterator[str]:
    """A namespace the test deletes (and waits for)."""
    name = f"t-doomed-{uuid.uuid4().hex[:8]}"
    cluster.kubectl("create", "namespace", name)
    wait_for(
        lambda: cluster.kubectl("-n", name, "get", "sa", "default", check=False).returncode == 0,
        what="the default service account",
    )
    yield name
    cluster.kubectl("delete", "namespace", name, "--wait=false", check=False)


def _node_log(cluster: Cluster) -> str:
    assert cluster.state_dir is not None
    return (cluster.state_dir / "logs" / "node.log").read_text(errors="replace")


def test_a_pod_without_a_token_waits_and_stops_with_its_deleted_namespace(
    cluster: Cluster, doomed: str
) -> None:
    """The service-account token cannot be issued (its account is gone, or the namespace is being
    deleted, which takes no new tokens): like a kubelet whose volume mount fails, the pod waits in
    ContainerCreating and retries with a growing delay; deleting the namespace stops it cleanly."""
    if not cluster.local:
        pytest.skip("a kubelet's own volume mount errors differ")
    cluster.kubectl("-n", doomed, "create", "serviceaccount", "brief")
    pod = _pod(
        "waits", "echo should not run", serviceAccountName="brief", schedulingGates=[{"name": "t/hold"}]
    )
    _apply(cluster, doomed, pod)
    cluster.kubectl("-n", doomed, "delete", "serviceaccount", "brief")
    cluster.kubectl(
        "-n",
        doomed,
        "patch",
        "pod",
        "waits",
        "--type=json",
        "-p",
        '[{"op":"remove","path":"/spec/schedulingGates"}]',
    )
    wait_for(
        lambda: any(e["reason"] == "FailedMount" for e in _events(cluster, doomed, "waits")),
        timeout=60,
        what="the FailedMount event",
    )
    status = _status(cluster, doomed, "waits")
    assert status["phase"] == "Pending"
    assert _container(status)["state"]["waiting"]["reason"] == "ContainerCreating"
    assert _condition(status, "PodReadyToStartContainers")["status"] == "False"
    time.sleep(4)  # some retries; their delay doubles
    cluster.kubectl("delete", "namespace", doomed, "--timeout=120s")
    node_log = _node_log(cluster)
    attempts = node_log.count(f"pod={doomed}/waits")
    assert 1 <= attempts <= 10, f"{attempts} token attempts logged"
    assert "pod runner failed" not in "\n".join(line for line in node_log.splitlines() if doomed in line)


def test_pods_starting_as_their_namespace_is_deleted_stop_without_errors(
    cluster: Cluster, doomed: str
) -> None:
    if not cluster.local:
        pytest.skip("reads the node stand-in's log")
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "many"},
        "spec": {
            "replicas": 10,
            "selector": {"matchLabels": {"app": "many"}},
            "template": {
                "metadata": {"labels": {"app": "many"}},
                "spec": {
                    "terminationGracePeriodSeconds": 2,
                    "containers": [
                        {
                            "name": "main",
                            "image": "proctor:dev",
                            "command": ["sleep", "300"],
                            "env": [{"name": "MARK", "value": doomed}],
                        }
                    ],
                },
            },
        },
    }
    _apply(cluster, doomed, deployment)
    wait_for(lambda: cluster.get_json("-n", doomed, "pods")["items"], what="the first pod")
    cluster.kubectl("delete", "namespace", doomed, "--timeout=120s")
    lines = [line for line in _node_log(cluster).splitlines() if doomed in line]
    assert not [line for line in lines if "failed" in line.lower()], lines
    assert not _processes_with(f"MARK={doomed}"), "the pods' processes outlived them"


def _processes_with(env_entry: str) -> list[str]:
    found = []
    for environ in Path("/proc").glob("[0-9]*/environ"):
        try:
            if env_entry.encode() in environ.read_bytes().split(b"\0"):
                found.append(environ.parent.name)
        except OSError:
            continue
    return found


# -- Pod Security admission ----------------------------------------------------------------------
RESTRICTED_CONTEXT = {
    "allowPrivilegeEscalation": False,
    "capabilities": {"drop": ["ALL"]},
    "runAsNonRoot": True,
    "runAsUser": 65532,
    "seccompProfile": {"type": "RuntimeDefault"},
}


def test_a_restricted_namespace_rejects_a_non_compliant_pod_and_runs_a_compliant_one(
    cluster: Cluster, namespace: str
) -> None:
    cluster.kubectl("label", "namespace", namespace, "pod-security.kubernetes.io/enforce=restricted")
    refused = cluster.kubectl(
        "-n", namespace, "apply", "-f", "-", input=json.dumps(_pod("loose", "true")), check=False
    )
    assert refused.returncode != 0
    assert 'violates PodSecurity "restricted:latest"' in refused.stderr
    assert "runAsNonRoot != true" in refused.stderr
    assert cluster.kubectl("-n", namespace, "get", "pod", "loose", check=False).returncode != 0

    tight = _pod("tight", "echo compliant", container={"securityContext": RESTRICTED_CONTEXT})
    _apply(cluster, namespace, tight)
    _wait_phase(cluster, namespace, "tight", "Succeeded")
    assert cluster.kubectl("-n", namespace, "logs", "tight").stdout == "compliant\n"
