"""The webhook's own server: AdmissionReview v1 over TLS on its own thread, from the policies' snapshot."""

from __future__ import annotations

import base64
import copy
import datetime as dt
import json
import socket
import ssl
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, cast

import jsonpatch
import kopf
import pytest

from gating import gate_policy_manifest
from proctor.api import BREAK_GLASS_ANNOTATION
from proctor.gate.admission import (
    BREAK_GLASS_BY_ANNOTATION,
    PENDING_ANNOTATION,
    PENDING_SINCE_ANNOTATION,
    Admission,
    template_hash,
)
from proctor.gate.certs import ensure_certs
from proctor.gate.server import AdmissionServer, Policies, json_patch
from proctor.k8s.kube import Kube
from proctor.k8s.objects import PROBE_ANSWER_ANNOTATION, PROBE_HANDLER_ID, PROBE_LABEL, WEBHOOK_HANDLER_ID

NOW = dt.datetime(2026, 3, 1, 12, 0, 0, tzinfo=dt.UTC)
TEMPLATE = {
    "metadata": {"labels": {"app": "agent"}},
    "spec": {"containers": [{"name": "a", "image": "agent:v1"}]},
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Authorizer:
    """The one API call a decision makes, a break-glass's SubjectAccessReview: answered here."""

    def __init__(self, allowed: bool) -> None:
        self.answer, self.asked = allowed, 0

    def allowed(self, user: Mapping[str, Any], attributes: Mapping[str, str]) -> bool:
        self.asked += 1
        return self.answer


class Server:
    def __init__(self, tmp: Path, authorizer: Authorizer) -> None:
        self.certs = ensure_certs(tmp / "certs", ["127.0.0.1", "localhost"])
        self.policies = Policies()
        self.broken: list[tuple[Mapping[str, Any], Admission]] = []
        self.port = _free_port()
        self.server = AdmissionServer(
            "127.0.0.1",
            self.port,
            self.certs,
            kube=cast(Kube, authorizer),
            policies=self.policies,
            identity="system:serviceaccount:proctor-system:proctor",
            clock=lambda: NOW,
            on_break_glass=lambda obj, d: self.broken.append((obj, d)),
        )
        self.ctx = ssl.create_default_context(cafile=str(self.certs.certfile.parent / "ca.crt"))

    def post(self, path: str, body: bytes) -> tuple[int, bytes]:
        req = urllib.request.Request(
            f"https://127.0.0.1:{self.port}/{path}", data=body, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=10) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def review(
        self, new: dict[str, Any], old: dict[str, Any] | None = None, **request: Any
    ) -> dict[str, Any]:
        status, data = self.post(WEBHOOK_HANDLER_ID, json.dumps(_review(new, old, **request)).encode())
        assert status == 200, data
        out: dict[str, Any] = json.loads(data)["response"]
        return out


@pytest.fixture
def authorizer() -> Authorizer:
    return Authorizer(allowed=True)


@pytest.fixture
def server(tmp_path: Path, authorizer: Authorizer) -> Iterator[Server]:
    s = Server(tmp_path, authorizer)
    s.server.start()
    yield s
    s.server.stop()


def _deployment(
    labels: dict[str, str] | None = None, annotations: dict[str, str] | None = None
) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": "agent",
        "namespace": "team",
        "labels": {"app": "agent", **(labels or {})},
    }
    if annotations is not None:
        meta["annotations"] = annotations
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": meta, "spec": {"template": TEMPLATE}}


def _review(new: dict[str, Any], old: dict[str, Any] | None, **request: Any) -> dict[str, Any]:
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": "6f1c-uid",
            "operation": "UPDATE" if old else "CREATE",
            "userInfo": {"username": "alice", "groups": ["system:authenticated"]},
            "object": new,
            "oldObject": old,
            "dryRun": False,
        }
        | request,
    }


def _patched(obj: dict[str, Any], resp: dict[str, Any]) -> dict[str, Any]:
    assert resp["patchType"] == "JSONPatch"
    out: dict[str, Any] = jsonpatch.apply_patch(obj, json.loads(base64.b64decode(resp["patch"])))
    return out


GATED = {"proctor.dev/gate-policy": "oil"}


def test_a_held_template_is_answered_with_a_jsonpatch_that_pauses_it(server: Server) -> None:
    new = _deployment(GATED)  # no annotations at all: the patch adds the mapping
    resp = server.review(new)
    assert resp["uid"] == "6f1c-uid" and resp["allowed"] is True
    after = _patched(new, resp)
    assert after["spec"]["paused"] is True
    assert after["metadata"]["annotations"][PENDING_ANNOTATION] == template_hash(TEMPLATE)
    assert after["metadata"]["annotations"][PENDING_SINCE_ANNOTATION] == "2026-03-01T12:00:00.000000Z"
    assert "awaits its exam" in resp["warnings"][0]


def test_a_forged_approval_is_refused_with_403_and_the_reason(server: Server) -> None:
    old = _deployment(GATED, {})
    new = _deployment(GATED, {"proctor.dev/approved-template-hash": template_hash(TEMPLATE)})
    resp = server.review(new, old)
    assert resp["allowed"] is False and "patch" not in resp
    assert resp["status"]["code"] == 403
    assert "written only by the Proctor operator" in resp["status"]["message"]


def test_an_ungated_deployment_passes_untouched(server: Server) -> None:
    resp = server.review(_deployment())
    assert resp["allowed"] is True and "patch" not in resp and "warnings" not in resp


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"{not json", "not an AdmissionReview"),
        (b"[1, 2]", "not a JSON object"),
        (
            b'{"apiVersion": "admission.k8s.io/v1beta1", "kind": "AdmissionReview"}',
            "expected an AdmissionReview",
        ),
        (b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"}', "has no request"),
        (
            b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "request": {"uid": "u"}}',
            "request.object is missing",
        ),
        (
            b'{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", '
            b'"request": {"uid": "u", "object": {}, "userInfo": {}, "oldObject": 3}}',
            "request.oldObject is not an object",
        ),
        (b"\xff\xfe", "not an AdmissionReview"),
    ],
)
def test_a_malformed_review_is_refused_with_its_reason_and_the_server_goes_on(
    server: Server, body: bytes, reason: str
) -> None:
    status, data = server.post(WEBHOOK_HANDLER_ID, body)
    assert status == 400 and reason in data.decode(), data
    assert server.review(_deployment())["allowed"] is True  # still serving


def test_a_request_the_gate_cannot_decide_is_refused_not_crashed(server: Server) -> None:
    broken = _deployment(GATED)
    broken["metadata"]["labels"] = ["not", "a", "mapping"]
    resp = server.review(broken)
    assert resp["allowed"] is False and resp["status"]["code"] == 500
    assert server.review(_deployment())["allowed"] is True


def test_a_deleted_policy_no_longer_decides_its_deployments(server: Server) -> None:
    """While the policy is known its selector leaves this Deployment out; once deleted, its label
    names a policy the webhook does not know, which holds (fail closed)."""
    server.policies.read_policy(gate_policy_manifest({"selector": {"matchLabels": {"tier": "prod"}}}, {}))
    new = _deployment(GATED | {"tier": "dev"})
    assert "patch" not in server.review(new)
    server.policies.read_policy(
        gate_policy_manifest({"enforcement": "Observe"}, {})
    )  # changed: observes, records
    observed = _patched(new, server.review(new))
    assert "paused" not in observed["spec"] and PENDING_ANNOTATION in observed["metadata"]["annotations"]
    server.policies.drop("team", "oil")
    assert _patched(new, server.review(new))["spec"]["paused"] is True
    assert server.policies.entries("team", "oil") == ()


def test_an_unreadable_selector_makes_the_policy_unknown_so_it_holds() -> None:
    policies = Policies()
    policies.read_policy(gate_policy_manifest({"enforcement": "Observe"}, {}))
    policies.read_policy(
        gate_policy_manifest({"selector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}}, {})
    )
    assert policies.entries("team", "oil") == ()


def test_a_policy_the_api_model_refuses_is_unknown_so_its_deployments_are_held(server: Server) -> None:
    """The startup list and the watch read a policy through one edge (``Policies.read_policy``): one the
    API model refuses (here an observing policy whose candidate lacks its responsePath, as a CRD older
    than the operator lets through) is not known, so a Deployment it would only observe is held."""
    from types import SimpleNamespace

    from proctor.gate.setup import prime

    invalid = gate_policy_manifest(
        {"enforcement": "Observe", "candidate": {"port": 8080, "protocol": "http-json"}}
    )

    class Listed:
        def list_custom_page(self, kind: str, ns: str | None, selector: str, *, limit: int, cont: str | None):
            return [invalid], None

    server.policies.read_policy(gate_policy_manifest({"enforcement": "Observe"}))
    new = _deployment(GATED)
    assert "paused" not in _patched(new, server.review(new))["spec"]  # valid and observing: recorded
    prime(SimpleNamespace(kube=Listed(), policies=server.policies), ["team"])  # as listed at startup
    assert server.policies.entries("team", "oil") == ()
    assert _patched(new, server.review(new))["spec"]["paused"] is True
    server.policies.read_policy(gate_policy_manifest({"enforcement": "Observe"}))  # fixed, as watched
    assert server.policies.read_policy(invalid) is None  # broken again, as watched: held again
    assert _patched(new, server.review(new))["spec"]["paused"] is True


def test_break_glass_asks_the_authorizer_and_is_recorded_except_on_dry_runs(
    server: Server, authorizer: Authorizer
) -> None:
    old = _deployment(GATED, {})
    new = _deployment(GATED, {BREAK_GLASS_ANNOTATION: "INC-1: checkout down"})
    resp = server.review(new, old, dryRun=True)
    assert resp["allowed"] is True and authorizer.asked == 1
    assert _patched(new, resp)["metadata"]["annotations"][BREAK_GLASS_BY_ANNOTATION] == "alice"
    assert server.broken == []  # a dry run leaves no Event
    server.review(new, old)
    assert len(server.broken) == 1 and server.broken[0][1].break_glass is not None
    authorizer.answer = False
    refused = server.review(new, old)
    assert refused["allowed"] is False and "may not break the glass" in refused["status"]["message"]


def test_the_probe_echoes_its_nonce(server: Server) -> None:
    policy = {"apiVersion": "proctor.dev/v1alpha1", "kind": "GatePolicy", "metadata": {"name": "oil"}}
    policy["metadata"]["labels"] = {PROBE_LABEL: "n0nce"}
    status, data = server.post(PROBE_HANDLER_ID, json.dumps(_review(policy, policy)).encode())
    resp = json.loads(data)["response"]
    assert status == 200 and _patched(policy, resp)["metadata"]["annotations"] == {
        PROBE_ANSWER_ANNOTATION: "n0nce"
    }
    status, data = server.post(PROBE_HANDLER_ID, json.dumps(_review({"metadata": {}}, None)).encode())
    assert status == 200 and "patch" not in json.loads(data)["response"]


def test_an_unknown_path_is_not_found(server: Server) -> None:
    assert server.post("elsewhere", b"{}")[0] == 404


def test_stopping_ends_the_thread_and_the_port(tmp_path: Path) -> None:
    s = Server(tmp_path, Authorizer(True))
    s.server.start()
    assert s.review(_deployment())["allowed"] is True
    s.server.stop()
    assert s.server._thread is not None and not s.server._thread.is_alive()
    with pytest.raises(urllib.error.URLError):
        s.post(WEBHOOK_HANDLER_ID, b"{}")


def test_a_port_in_use_fails_the_start(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        s = Server(tmp_path, Authorizer(True))
        s.server.port = taken.getsockname()[1]
        with pytest.raises(OSError, match="address already in use"):
            s.server.start()


OBJ: dict[str, Any] = {
    "metadata": {"name": "a", "annotations": {"x/y": "1", "keep": "k"}, "labels": None},
    "spec": {"paused": False, "replicas": 1, "template": {"spec": {}}},
}


def _merge(target: Any, patch: Any) -> Any:
    """RFC 7386's MergePatch, as its section 2 writes it."""
    if not isinstance(patch, dict):
        return patch
    out = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merge(out.get(key), value)
    return out


@pytest.mark.parametrize(
    "merge",
    [
        {"spec": {"paused": True}},
        {"metadata": {"annotations": {"x/y": "2", "new~key": "3"}}},
        {"metadata": {"annotations": {"x/y": "1"}}},  # already so: nothing to do
        {"metadata": {"labels": {"a": "b"}}},  # null: replaced by the mapping
        {"metadata": {"finalizers": ["f"]}, "status": {"phase": "x", "gone": None}},  # missing parents
        {"metadata": {"annotations": {"keep": None, "absent": None}}},  # remove, and nothing to remove
        {},
    ],
)
def test_the_jsonpatch_does_what_the_merge_patch_does(merge: dict[str, Any]) -> None:
    ops = json_patch(OBJ, merge)
    assert jsonpatch.apply_patch(OBJ, ops) == _merge(OBJ, merge)
    assert (ops == []) == (_merge(OBJ, merge) == OBJ)  # no operation that changes nothing
    if OBJ["metadata"]["labels"] is not None or "labels" not in merge.get("metadata", {}):
        # as Kopf's converter (which fails on a null parent) made it
        kopfs = kopf.Patch(copy.deepcopy(merge), body=kopf.Body(copy.deepcopy(OBJ))).as_json_patch()
        assert jsonpatch.apply_patch(OBJ, ops) == jsonpatch.apply_patch(OBJ, kopfs)


def test_jsonpatch_paths_escape_slashes_and_tildes() -> None:
    ops = json_patch(
        {"metadata": {"annotations": {}}}, {"metadata": {"annotations": {"proctor.dev/a~b": "v"}}}
    )
    assert ops == [{"op": "add", "path": "/metadata/annotations/proctor.dev~1a~0b", "value": "v"}]


def test_the_webhook_knows_the_policies_before_its_first_request() -> None:
    """The watch that keeps the snapshot current starts after the webhook serves: the policies are
    listed first, so an observing policy's Deployment changed in that window is recorded, not
    paused (a policy the webhook does not know holds); a refused list leaves it failing closed."""
    from types import SimpleNamespace

    from kubernetes.client.exceptions import ApiException

    from proctor.gate.setup import prime
    from proctor.k8s.kube import KubeError

    class Pages:
        def __init__(self, fail: bool = False) -> None:
            self.fail, self.asked = fail, []

        def list_custom_page(self, kind: str, ns: str | None, selector: str, *, limit: int, cont: str | None):
            self.asked.append((kind, ns, cont))
            if self.fail:
                raise KubeError(
                    "GatePolicy list (all namespaces)", ApiException(status=403, reason="Forbidden")
                )
            policy = gate_policy_manifest(
                {"enforcement": "Observe"}, namespace=ns or "", name=f"p{cont or 0}"
            )
            return [policy], ("1" if cont is None else None)

    rt = SimpleNamespace(kube=Pages(), policies=Policies())
    prime(rt, ["team-a", "team-b"])
    assert [(ns, c) for _, ns, c in rt.kube.asked] == [
        ("team-a", None),
        ("team-a", "1"),
        ("team-b", None),
        ("team-b", "1"),
    ]
    assert rt.policies.entries("team-b", "p1") and rt.policies.entries("team-a", "p0")
    assert not rt.policies.entries("team-a", "other")
    refused = SimpleNamespace(kube=Pages(fail=True), policies=Policies())
    prime(refused, [])  # every namespace: the list is refused, nothing known, no crash
    assert refused.kube.asked == [("GatePolicy", None, None)]
