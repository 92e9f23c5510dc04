"""What :class:`proctor.k8s.kube.Kube` sends, seen by an HTTP server: each call is one REST request
with the right method, path, query, content type and login, and answers become dicts or
KubeErrors. The calls go through the client's connection pool and login but not its generated API
classes, which the operator process never imports (issue 28: 27 MiB of validators and models)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import pytest
from kubernetes import client

from proctor.k8s.kube import Kube, KubeError

#: Every answer carries what any call reads from it.
ANSWER = {
    "items": [{"metadata": {"name": "one"}}],
    "metadata": {"name": "one", "continue": "next"},
    "resources": [{"name": "evalruns"}, {"name": "evalruns/status"}],
    "status": {
        "userInfo": {"username": "system:serviceaccount:proctor:operator"},
        "allowed": True,
        "token": "t0k",
    },
}


class Recorder(BaseHTTPRequestHandler):
    """Answers every request with :data:`ANSWER`; a name ``missing`` is 404, ``taken`` is 409."""

    seen: list[dict[str, Any]] = []

    def _answer(self) -> None:
        url = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length)) if length else None
        self.seen.append(
            {
                "method": self.command,
                "path": url.path,
                "query": dict(parse_qsl(url.query)),
                "type": self.headers.get("Content-Type"),
                "auth": self.headers.get("Authorization"),
                "body": body,
            }
        )
        status = (
            404 if url.path.endswith("/missing") else 409 if body and "taken" in json.dumps(body) else 200
        )
        reply = ANSWER if status == 200 else {"reason": "NotFound", "message": f"{url.path} says {status}"}
        data = json.dumps(reply).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_DELETE = _answer

    def log_message(self, *_: Any) -> None:
        pass


def serve() -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def kube_at(url: str, token: str = "secret") -> Kube:
    config = client.Configuration(host=url)
    config.api_key = {"BearerToken": token}
    config.api_key_prefix = {"BearerToken": "Bearer"}
    return Kube(client.ApiClient(config))


def exercise(kube: Kube) -> None:
    """Every call Proctor makes, once."""
    kube.get("EvalRun", "ns", "r1")
    kube.get_or_none("EvalRun", "ns", "missing")
    kube.create_custom("EvalRun", "ns", {"metadata": {"name": "r2"}})
    kube.patch_custom_json("EvalRun", "ns", "r1", [{"op": "remove", "path": "/x"}])
    kube.patch_custom("EvalRun", "ns", "r1", {"metadata": {"labels": {"a": "b"}}})
    kube.list_custom("EvalRun", "ns", "a=b")
    kube.list_runs_of("ns", "cs")
    kube.list_custom_page("EvalRun", None, "a!=b", limit=500, cont="tok")
    kube.delete_custom("EvalRun", "ns", "missing")
    kube.dry_run_patch_custom("EvalRun", "ns", "r1", {"spec": {}})
    kube.served_resources()
    kube.apply_status("EvalRun", "ns", "r1", {"phase": "Pending"}, "proctor")
    kube.get_configmap_data("ns", "c1")
    kube.get_configmap_or_none("ns", "missing")
    kube.list_configmaps("ns", "a=b")
    kube.create_configmap({"metadata": {"name": "c2", "namespace": "ns"}})
    kube.patch_configmap("ns", "c1", {"metadata": {"ownerReferences": []}})
    kube.apply({"metadata": {"name": "c1", "namespace": "ns"}}, "proctor")
    kube.delete_configmap("ns", "c1")
    kube.list_jobs("ns", "a=b")
    kube.create_job({"metadata": {"name": "j1", "namespace": "ns"}})
    kube.get_job("ns", "j1")
    kube.list_pods("ns", "a=b")
    kube.get_pod("ns", "p1")
    kube.list_events("ns", "reason=X")
    kube.create_event({"metadata": {"generateName": "e-", "namespace": "ns"}})
    kube.apply_rbac(
        [{"kind": k, "metadata": {"name": "n", "namespace": "ns"}} for k in ("Role", "RoleBinding")], "p"
    )
    kube.whoami()
    kube.allowed({"username": "u", "groups": ["g"]}, {"verb": "get", "resource": "pods"})
    kube.review_token("tok", ["aud"])
    kube.ensure_namespace("taken")
    kube.apply_webhook_configuration({"metadata": {"name": "w"}}, "proctor")
    kube.list_deployments("ns", "a=b")
    kube.get_deployment("ns", "d1")
    kube.list_replicasets("ns", "a=b")
    kube.get_replicaset("ns", "rs1")
    kube.patch_deployment("ns", "d1", {"spec": {"paused": True}})
    kube.set_deployment_condition("ns", "d1", {"type": "X"})
    kube.request_token("ns", "sa", seconds=600, audiences=["aud"])


@pytest.fixture
def make() -> Iterator[Callable[..., Kube]]:
    """Clients of a fresh recording server (closed, with it, afterwards)."""
    srv, url = serve()
    Recorder.seen = []
    made: list[Kube] = []

    def one(token: str = "secret") -> Kube:
        made.append(kube_at(url, token))
        return made[-1]

    yield one
    for kube in made:
        kube.close()
    srv.shutdown()
    srv.server_close()


def test_each_call_is_one_request_of_the_right_shape(make: Callable[..., Kube]) -> None:
    exercise(make())
    seen = [(r["method"], r["path"], r["query"], r["type"]) for r in Recorder.seen]
    custom = "/apis/proctor.dev/v1alpha1"
    apply = {"fieldManager": "proctor", "force": "true"}
    assert seen[:12] == [
        ("GET", f"{custom}/namespaces/ns/evalruns/r1", {}, None),
        ("GET", f"{custom}/namespaces/ns/evalruns/missing", {}, None),
        ("POST", f"{custom}/namespaces/ns/evalruns", {}, "application/json"),
        ("PATCH", f"{custom}/namespaces/ns/evalruns/r1", {}, "application/json-patch+json"),
        ("PATCH", f"{custom}/namespaces/ns/evalruns/r1", {}, "application/merge-patch+json"),
        ("GET", f"{custom}/namespaces/ns/evalruns", {"labelSelector": "a=b"}, None),
        ("GET", f"{custom}/namespaces/ns/evalruns", {"fieldSelector": "spec.caseSetRef.name=cs"}, None),
        ("GET", f"{custom}/evalruns", {"labelSelector": "a!=b", "limit": "500", "continue": "tok"}, None),
        ("DELETE", f"{custom}/namespaces/ns/evalruns/missing", {}, None),
        ("PATCH", f"{custom}/namespaces/ns/evalruns/r1", {"dryRun": "All"}, "application/merge-patch+json"),
        ("GET", custom, {}, None),
        ("PATCH", f"{custom}/namespaces/ns/evalruns/r1/status", apply, "application/apply-patch+yaml"),
    ]
    assert seen[12:] == [
        ("GET", "/api/v1/namespaces/ns/configmaps/c1", {}, None),
        ("GET", "/api/v1/namespaces/ns/configmaps/missing", {}, None),
        ("GET", "/api/v1/namespaces/ns/configmaps", {"labelSelector": "a=b"}, None),
        ("POST", "/api/v1/namespaces/ns/configmaps", {}, "application/json"),
        ("PATCH", "/api/v1/namespaces/ns/configmaps/c1", {}, "application/strategic-merge-patch+json"),
        ("PATCH", "/api/v1/namespaces/ns/configmaps/c1", apply, "application/apply-patch+yaml"),
        ("DELETE", "/api/v1/namespaces/ns/configmaps/c1", {}, None),
        ("GET", "/apis/batch/v1/namespaces/ns/jobs", {"labelSelector": "a=b"}, None),
        ("POST", "/apis/batch/v1/namespaces/ns/jobs", {}, "application/json"),
        ("GET", "/apis/batch/v1/namespaces/ns/jobs/j1", {}, None),
        ("GET", "/api/v1/namespaces/ns/pods", {"labelSelector": "a=b"}, None),
        ("GET", "/api/v1/namespaces/ns/pods/p1", {}, None),
        ("GET", "/api/v1/namespaces/ns/events", {"fieldSelector": "reason=X"}, None),
        ("POST", "/api/v1/namespaces/ns/events", {}, "application/json"),
        (
            "PATCH",
            "/apis/rbac.authorization.k8s.io/v1/namespaces/ns/roles/n",
            apply | {"fieldManager": "p"},
            "application/apply-patch+yaml",
        ),
        (
            "PATCH",
            "/apis/rbac.authorization.k8s.io/v1/namespaces/ns/rolebindings/n",
            apply | {"fieldManager": "p"},
            "application/apply-patch+yaml",
        ),
        ("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {}, "application/json"),
        ("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", {}, "application/json"),
        ("POST", "/apis/authentication.k8s.io/v1/tokenreviews", {}, "application/json"),
        ("POST", "/api/v1/namespaces", {}, "application/json"),
        (
            "PATCH",
            "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/w",
            apply,
            "application/apply-patch+yaml",
        ),
        ("GET", "/apis/apps/v1/namespaces/ns/deployments", {"labelSelector": "a=b"}, None),
        ("GET", "/apis/apps/v1/namespaces/ns/deployments/d1", {}, None),
        ("GET", "/apis/apps/v1/namespaces/ns/replicasets", {"labelSelector": "a=b"}, None),
        ("GET", "/apis/apps/v1/namespaces/ns/replicasets/rs1", {}, None),
        ("PATCH", "/apis/apps/v1/namespaces/ns/deployments/d1", {}, "application/merge-patch+json"),
        (
            "PATCH",
            "/apis/apps/v1/namespaces/ns/deployments/d1/status",
            {},
            "application/strategic-merge-patch+json",
        ),
        ("POST", "/api/v1/namespaces/ns/serviceaccounts/sa/token", {}, "application/json"),
    ]
    assert {r["auth"] for r in Recorder.seen} == {"Bearer secret"}
    bodies = {r["path"]: r["body"] for r in Recorder.seen if r["method"] == "POST"}
    assert bodies["/api/v1/namespaces/ns/serviceaccounts/sa/token"]["spec"] == {
        "audiences": ["aud"],
        "expirationSeconds": 600,
    }
    sar = bodies["/apis/authorization.k8s.io/v1/subjectaccessreviews"]["spec"]
    assert sar == {"user": "u", "groups": ["g"], "resourceAttributes": {"verb": "get", "resource": "pods"}}


def test_answers_become_dicts_and_errors_name_the_object(make: Callable[..., Kube]) -> None:
    kube = make()
    assert kube.whoami() == "system:serviceaccount:proctor:operator"
    assert kube.served_resources() == {"evalruns", "evalruns/status"}
    assert kube.list_custom_page("EvalRun", "ns", "a=b", limit=1) == ([{"metadata": {"name": "one"}}], "next")
    assert kube.request_token("ns", "sa") == "t0k"
    assert kube.get_or_none("CaseSet", "ns", "missing") is None
    assert kube.create_custom("CaseSet", "ns", {"metadata": {"name": "taken"}}) is None  # 409: exists
    with pytest.raises(KubeError) as caught:
        kube.get("CaseSet", "ns", "missing")
    assert caught.value.status == 404
    path = "/apis/proctor.dev/v1alpha1/namespaces/ns/casesets/missing"
    assert str(caught.value) == f"CaseSet ns/missing: 404 NotFound: {path} says 404"


def test_a_rotated_token_is_used_from_the_next_request(make: Callable[..., Kube]) -> None:
    """The login's refresh hook (exec plugins, a pod's rotating token) runs before each request."""
    kube = make(token="first")
    kube.get("EvalRun", "ns", "r1")

    def rotate(config: client.Configuration) -> None:
        config.api_key["BearerToken"] = "second"

    kube.api.configuration.refresh_api_key_hook = rotate
    kube.get("EvalRun", "ns", "r1")
    assert [r["auth"] for r in Recorder.seen] == ["Bearer first", "Bearer second"]


def test_names_are_quoted_into_the_path(make: Callable[..., Kube]) -> None:
    make().get_or_none("EvalRun", "ns", "a/b?c")
    assert Recorder.seen[0]["path"] == "/apis/proctor.dev/v1alpha1/namespaces/ns/evalruns/a%2Fb%3Fc"


def test_the_calls_import_none_of_the_generated_api_classes() -> None:
    """Every call made, in a fresh interpreter: the client's API classes and models stay out."""
    code = (
        f"import sys; sys.path.insert(0, {str(__file__.rsplit('/', 1)[0])!r})\n"
        "import test_k8s_kube_requests as t\n"
        "server, url = t.serve()\n"
        "t.exercise(t.kube_at(url))\n"
        "generated = ('kubernetes.client.api.', 'kubernetes.client.models.')\n"
        "print(len(t.Recorder.seen), sorted(m for m in sys.modules if m.startswith(generated)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, _, loaded = out.stdout.strip().partition(" ")
    assert int(count) == 40
    assert loaded == "[]"
