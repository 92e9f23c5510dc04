"""The thin Kubernetes API wrapper the runner, the operator and ``proctor gate`` share.

Everything here is I/O and nothing else: reads return plain dicts, writes take the dicts the
pure builders in :mod:`proctor.k8s.objects` made, and every API failure is a :class:`KubeError`
that names the object and carries the HTTP status. Writes of status and of the judge's RBAC use
server-side apply with a named field manager, so concurrent writers (several shards, the operator)
each own their part of an object and a retried write is a no-op.

The calls are synchronous (the kubernetes client is); the operator runs them in threads.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote

from kubernetes import client, config
from kubernetes.client.exceptions import ApiException
from kubernetes.config.config_exception import ConfigException as KubeConfigError
from urllib3.exceptions import HTTPError

from proctor.api import GROUP, RESOURCE_KINDS, VERSION

APPLY = "application/apply-patch+yaml"
MERGE = "application/merge-patch+json"
STRATEGIC = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"

#: Each kind's resource name in the API (``evalruns``), from the models.
PLURALS = {kind: model.PLURAL for kind, model in RESOURCE_KINDS.items()}

#: Errors of the connection itself (the API server down or unreachable), not answers from it.
TRANSPORT_ERRORS: tuple[type[BaseException], ...] = (HTTPError, OSError)

#: Where a pod's service account says its namespace.
SA_NAMESPACE_FILE = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace")

__all__ = [
    "PLURALS",
    "TRANSPORT_ERRORS",
    "Kube",
    "KubeConfigError",
    "KubeError",
    "current_namespace",
    "load_client",
]


class KubeError(RuntimeError):
    """An API call failed; the message says which object and why (never a credential).

    ``status`` is the HTTP status; ``detail`` the API server's own message (or the HTTP reason).
    """

    def __init__(self, what: str, exc: ApiException) -> None:
        self.status: int | None = exc.status
        self.detail = _server_message(exc)
        super().__init__(f"{what}: {_reason(exc)}")


def _reason(exc: ApiException) -> str:
    try:
        body = json.loads(exc.body or "{}")
        return f"{exc.status} {body.get('reason', '')}: {body.get('message', '')}".strip()
    except (ValueError, TypeError):
        return f"{exc.status} {exc.reason}"


def _server_message(exc: ApiException) -> str:
    try:
        message = str(json.loads(exc.body or "{}").get("message", ""))
    except (ValueError, TypeError, AttributeError):
        message = ""
    return message or str(exc.reason or exc)


def _kubeconfig_paths() -> list[Path]:
    text = os.environ.get("KUBECONFIG") or str(Path("~/.kube/config").expanduser())
    return [Path(p).expanduser() for p in text.split(os.pathsep) if p]


def in_cluster(env: Mapping[str, str] | None = None) -> bool:
    """Whether this process runs in a pod (the kubelet sets ``KUBERNETES_SERVICE_HOST``)."""
    return bool((os.environ if env is None else env).get("KUBERNETES_SERVICE_HOST"))


def default_listen_host(env: Mapping[str, str] | None = None) -> str:
    """Where a server of ours listens unless told: every address in a pod (the pod's network is its
    own), loopback anywhere else, so a laptop's operator is reachable from nowhere by surprise."""
    return "0.0.0.0" if in_cluster(env) else "127.0.0.1"


def load_client() -> client.ApiClient:
    """A client from KUBECONFIG (or ~/.kube/config) if there is one, else the in-cluster account.

    Not ``config.load_config()``: without a kubeconfig it prints a warning on stdout, where
    ``proctor gate --format json`` writes its JSON (a caller reports a missing configuration itself).
    """
    if any(p.exists() for p in _kubeconfig_paths()):
        cast(Any, config).load_kube_config()
    else:
        cast(Any, config).load_incluster_config()
    return client.ApiClient()


def current_namespace() -> str:
    """The current context's namespace, the pod's namespace in a cluster, else ``default``."""
    if any(p.exists() for p in _kubeconfig_paths()):
        try:
            _, current = cast(Any, config).list_kube_config_contexts()
            ns = (current or {}).get("context", {}).get("namespace")
            if ns:
                return str(ns)
        except Exception:  # a kubeconfig without contexts: load_config reported it already
            pass
        return "default"
    try:
        return SA_NAMESPACE_FILE.read_text().strip() or "default"
    except OSError:
        return "default"


def _json(reply: Any) -> dict[str, Any]:
    return cast(dict[str, Any], json.loads(reply.data))


#: Where the kinds Proctor reads and writes live in the API (each group and version's path).
CORE = "/api/v1"
CUSTOM = f"/apis/{GROUP}/{VERSION}"
BATCH = "/apis/batch/v1"
APPS = "/apis/apps/v1"
RBAC = "/apis/rbac.authorization.k8s.io/v1"
AUTHENTICATION = "/apis/authentication.k8s.io/v1"
AUTHORIZATION = "/apis/authorization.k8s.io/v1"
ADMISSION = "/apis/admissionregistration.k8s.io/v1"

#: The path of each built-in kind's resource: its group and version, and its plural.
BUILTIN = {
    "ConfigMap": (CORE, "configmaps"),
    "Event": (CORE, "events"),
    "Pod": (CORE, "pods"),
    "ServiceAccount": (CORE, "serviceaccounts"),
    "Job": (BATCH, "jobs"),
    "Role": (RBAC, "roles"),
    "RoleBinding": (RBAC, "rolebindings"),
    "Deployment": (APPS, "deployments"),
    "ReplicaSet": (APPS, "replicasets"),
}


def path(
    prefix: str, plural: str, namespace: str | None = None, name: str | None = None, sub: str = ""
) -> str:
    """A resource's path: its collection (in ``namespace``, or cluster-wide), one object, a subresource."""
    parts = [prefix] + (["namespaces", quote(namespace, safe="")] if namespace is not None else []) + [plural]
    if name is not None:
        parts.append(quote(name, safe=""))
    if sub:
        parts.append(sub)
    return "/".join(parts)


def _kind(kind: str, namespace: str | None, name: str | None = None, sub: str = "") -> str:
    if kind in BUILTIN:
        prefix, plural = BUILTIN[kind]
    else:
        prefix, plural = CUSTOM, PLURALS[kind]
    return path(prefix, plural, namespace, name, sub)


class Kube:
    """The calls Proctor makes, as plain dicts.

    Each is one REST request through the client's connection pool and login (kubeconfig, exec
    plugins, the pod's rotating token), not through the client's generated API classes: those
    build a validator for every method and import hundreds of models (27 MiB in the operator, which
    sends and receives only JSON, issue 28)."""

    def __init__(self, api: client.ApiClient | None = None) -> None:
        self.api = api or load_client()

    @property
    def host(self) -> str:
        """The API server's URL (for messages)."""
        return str(self.api.configuration.host)

    def close(self) -> None:
        """Release the connection pool."""
        cast(Any, self.api).close()

    def _send(
        self,
        method: str,
        resource: str,
        query: Mapping[str, str | None] | None = None,
        body: Any = None,
        content_type: str | None = None,
    ) -> Any:
        """One request, the answer read whatever its status (``status``, ``reason``, ``data``)."""
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type or "application/json"
        params = [(k, v) for k, v in (query or {}).items() if v is not None]
        api = cast(Any, self.api)
        request = api.param_serialize(
            method=method,
            resource_path=resource,
            query_params=params,
            header_params=headers,
            body=body,
            auth_settings=["BearerToken"],
        )
        reply = api.call_api(*request)
        reply.read()
        return reply

    def _call_or_none(
        self,
        what: str,
        method: str,
        resource: str,
        query: Mapping[str, str | None] | None = None,
        body: Any = None,
        content_type: str | None = None,
        *,
        absent: tuple[int, ...] = (),
    ) -> dict[str, Any] | None:
        """One call: the answer's JSON, or ``None`` for a status in ``absent``; another error status
        is a KubeError naming ``what``."""
        reply = self._send(method, resource, query, body, content_type)
        if reply.status in absent:
            return None
        if not 200 <= reply.status <= 299:
            raise KubeError(what, ApiException(http_resp=reply))
        return _json(reply)

    def _call(
        self,
        what: str,
        method: str,
        resource: str,
        query: Mapping[str, str | None] | None = None,
        body: Any = None,
        content_type: str | None = None,
    ) -> dict[str, Any]:
        """One call: the answer's JSON; an error status is a KubeError naming ``what``."""
        return self._call_or_none(what, method, resource, query, body, content_type) or {}

    def _create(self, what: str, kind: str, namespace: str, obj: dict[str, Any]) -> dict[str, Any] | None:
        """One create call: the object as stored, or None when one of that name exists."""
        return self._call_or_none(what, "POST", _kind(kind, namespace), body=obj, absent=(409,))

    def _read_or_none(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        """One read of a namespaced object: the object, or None when there is none of that name."""
        what = f"{kind} {namespace}/{name}"
        return self._call_or_none(what, "GET", _kind(kind, namespace, name), absent=(404,))

    def _items(self, what: str, kind: str, namespace: str, **query: str | None) -> list[dict[str, Any]]:
        """The items of one list call (``query``: labelSelector, fieldSelector)."""
        return list(self._call(what, "GET", _kind(kind, namespace), query).get("items") or [])

    def _apply(self, what: str, resource: str, obj: dict[str, Any], manager: str) -> None:
        """Server-side apply: this manager's fields, taken over from any other manager."""
        query = {"fieldManager": manager, "force": "true"}
        self._call(what, "PATCH", resource, query, obj, APPLY)

    # --- Proctor's kinds ------------------------------------------------------------------------

    def get(self, kind: str, namespace: str, name: str) -> dict[str, Any]:
        return self._call(f"{kind} {namespace}/{name}", "GET", _kind(kind, namespace, name))

    def get_or_none(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        return self._read_or_none(kind, namespace, name)

    def create_custom(self, kind: str, namespace: str, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Create a Proctor object; the object as stored, or None when one of that name exists."""
        return self._create(f"{kind} {namespace}/{obj['metadata']['name']}", kind, namespace, obj)

    def patch_custom_json(self, kind: str, namespace: str, name: str, ops: list[dict[str, Any]]) -> None:
        """A JSON patch (RFC 6902): list items are removed by index, guarded by ``test`` operations."""
        self._call(f"{kind} {namespace}/{name}", "PATCH", _kind(kind, namespace, name), None, ops, JSON_PATCH)

    def patch_custom(self, kind: str, namespace: str, name: str, patch: dict[str, Any]) -> None:
        self._call(f"{kind} {namespace}/{name}", "PATCH", _kind(kind, namespace, name), None, patch, MERGE)

    def list_custom(
        self, kind: str, namespace: str, selector: str | None = None, *, fields: str | None = None
    ) -> list[dict[str, Any]]:
        what = f"{kind} list {namespace}"
        return self._items(what, kind, namespace, labelSelector=selector, fieldSelector=fields or None)

    def list_runs_of(self, namespace: str, caseset: str) -> list[dict[str, Any]]:
        """The EvalRuns of one case set: the API server selects them (the CRD's selectable field
        ``.spec.caseSetRef.name``), so a namespace of 10,000 finished runs is not read and parsed
        after every verdict. An API server without selectable fields (before Kubernetes 1.31)
        refuses the selector: then every run is listed and filtered here."""
        try:
            return self.list_custom("EvalRun", namespace, fields=f"spec.caseSetRef.name={caseset}")
        except KubeError as e:
            if e.status != 400:
                raise
        return [
            r
            for r in self.list_custom("EvalRun", namespace)
            if ((r.get("spec") or {}).get("caseSetRef") or {}).get("name") == caseset
        ]

    def list_custom_page(
        self, kind: str, namespace: str | None, selector: str, *, limit: int, cont: str | None = None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """One page of a list (``namespace`` None: every namespace) and the token of the next (None:
        the last page); one page at a time keeps a list of thousands out of memory."""
        where = namespace or "(all namespaces)"
        query = {"labelSelector": selector, "limit": str(limit), "continue": cont or None}
        body = self._call(f"{kind} list {where}", "GET", _kind(kind, namespace), query)
        return list(body.get("items") or []), (body.get("metadata") or {}).get("continue") or None

    def delete_custom(self, kind: str, namespace: str, name: str) -> None:
        what = f"{kind} {namespace}/{name}"
        self._call_or_none(what, "DELETE", _kind(kind, namespace, name), absent=(404,))

    def watch_custom(
        self, kind: str, namespace: str, name: str, *, resource_version: str | None, timeout: int
    ) -> Generator[dict[str, Any], None, None]:
        """Events about one object until the server ends the watch (at most ``timeout`` seconds)."""
        from kubernetes import watch  # the client's streaming reader, for the one command that waits

        custom = client.CustomObjectsApi(self.api)
        w: Any = cast(Any, watch).Watch()
        try:
            yield from w.stream(
                custom.list_namespaced_custom_object,
                GROUP,
                VERSION,
                namespace,
                PLURALS[kind],
                field_selector=f"metadata.name={name}",
                resource_version=resource_version,
                timeout_seconds=timeout,
                _request_timeout=(10, timeout + 15),
            )
        except ApiException as e:
            raise KubeError(f"watch {kind} {namespace}/{name}", e) from None
        finally:
            w.stop()

    def dry_run_patch_custom(
        self, kind: str, namespace: str, name: str, patch: dict[str, Any]
    ) -> dict[str, Any]:
        """A merge patch with ``dryRun=All``: the object as admission would leave it, nothing stored."""
        what = f"{kind} {namespace}/{name} (dry run)"
        return self._call(what, "PATCH", _kind(kind, namespace, name), {"dryRun": "All"}, patch, MERGE)

    def served_resources(self) -> set[str]:
        """The resources the API server serves in Proctor's group and version (discovery)."""
        reply = self._call(f"discovery of {GROUP}/{VERSION}", "GET", CUSTOM)
        return {str(r.get("name")) for r in reply.get("resources") or []}

    def apply_status(
        self, kind: str, namespace: str, name: str, status: dict[str, Any], manager: str
    ) -> None:
        """Server-side apply to the status subresource: this manager's fields only, list-maps merged."""
        body = {
            "apiVersion": f"{GROUP}/{VERSION}",
            "kind": kind,
            "metadata": {"name": name, "namespace": namespace},
            "status": status,
        }
        self._apply(
            f"{kind} {namespace}/{name} status", _kind(kind, namespace, name, "status"), body, manager
        )

    # --- ConfigMaps -----------------------------------------------------------------------------

    def get_configmap(self, namespace: str, name: str) -> dict[str, Any]:
        return self._call(f"ConfigMap {namespace}/{name}", "GET", _kind("ConfigMap", namespace, name))

    def get_configmap_or_none(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self._read_or_none("ConfigMap", namespace, name)

    def get_configmap_data(self, namespace: str, name: str) -> dict[str, str]:
        return dict(self.get_configmap(namespace, name).get("data") or {})

    def list_configmaps(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        return self._items(
            f"ConfigMaps {namespace} ({selector})", "ConfigMap", namespace, labelSelector=selector
        )

    def create_configmap(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Create a ConfigMap; the object as stored, or None when one of that name exists."""
        meta = obj["metadata"]
        return self._create(
            f"ConfigMap {meta['namespace']}/{meta['name']}", "ConfigMap", meta["namespace"], obj
        )

    def patch_configmap(self, namespace: str, name: str, patch: dict[str, Any]) -> None:
        """A strategic merge patch (metadata such as owner references)."""
        what, where = f"ConfigMap {namespace}/{name}", _kind("ConfigMap", namespace, name)
        self._call(what, "PATCH", where, None, patch, STRATEGIC)

    def apply(self, obj: dict[str, Any], manager: str) -> None:
        """Server-side apply of a ConfigMap (creates it, or makes it equal to ``obj``)."""
        meta = obj["metadata"]
        what = f"ConfigMap {meta['namespace']}/{meta['name']}"
        self._apply(what, _kind("ConfigMap", meta["namespace"], meta["name"]), obj, manager)

    def delete_configmap(self, namespace: str, name: str) -> None:
        what = f"ConfigMap {namespace}/{name}"
        self._call_or_none(what, "DELETE", _kind("ConfigMap", namespace, name), absent=(404,))

    # --- Jobs, RBAC, Deployments, the webhook ---------------------------------------------------

    def list_jobs(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        return self._items(f"Jobs {namespace} ({selector})", "Job", namespace, labelSelector=selector)

    def create_job(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Create a Job; None when one of that name already exists (the caller decides to adopt)."""
        meta = obj["metadata"]
        return self._create(f"Job {meta['namespace']}/{meta['name']}", "Job", meta["namespace"], obj)

    def get_job(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self._read_or_none("Job", namespace, name)

    def list_pods(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        return self._items(f"Pods {namespace} ({selector})", "Pod", namespace, labelSelector=selector)

    def get_pod(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self._read_or_none("Pod", namespace, name)

    def list_events(self, namespace: str, field_selector: str) -> list[dict[str, Any]]:
        what = f"Events {namespace} ({field_selector})"
        return self._items(what, "Event", namespace, fieldSelector=field_selector)

    def create_event(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Post an Event; None when one of that name exists (a decision already said)."""
        ns = obj["metadata"]["namespace"]
        what = f"Event {ns}/{obj['metadata'].get('name') or obj['metadata'].get('generateName')}"
        return self._create(what, "Event", ns, obj)

    def apply_rbac(self, objs: list[dict[str, Any]], manager: str) -> None:
        """Server-side apply of ServiceAccounts, Roles and RoleBindings."""
        for obj in objs:
            kind, meta = obj["kind"], obj["metadata"]
            if kind not in ("ServiceAccount", "Role", "RoleBinding"):
                raise KeyError(kind)
            what = f"{kind} {meta['namespace']}/{meta['name']}"
            self._apply(what, _kind(kind, meta["namespace"], meta["name"]), obj, manager)

    def whoami(self) -> str:
        """The username this client authenticates as (a SelfSubjectReview, which every authenticated
        user may make)."""
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
        reply = self._call("SelfSubjectReview", "POST", path(AUTHENTICATION, "selfsubjectreviews"), body=body)
        return str(reply["status"]["userInfo"]["username"])

    def allowed(self, user: Mapping[str, Any], attributes: Mapping[str, str]) -> bool:
        """Whether ``user`` (an admission request's ``userInfo``) may do what ``attributes`` (a
        SubjectAccessReview's ``resourceAttributes``) say: the API server's authorizer answers."""
        spec: dict[str, Any] = {"user": user.get("username", ""), "resourceAttributes": dict(attributes)}
        for key in ("groups", "uid", "extra"):
            if user.get(key):
                spec[key] = user[key]
        body = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}
        where = path(AUTHORIZATION, "subjectaccessreviews")
        reply = self._call("SubjectAccessReview", "POST", where, body=body)
        return bool((reply.get("status") or {}).get("allowed"))

    def review_token(self, token: str, audiences: Sequence[str]) -> dict[str, Any]:
        """A TokenReview's status for ``token`` issued for ``audiences``: ``authenticated``, ``user``
        (with the ``extra`` a pod-bound token carries: the pod's name and UID) and ``audiences``."""
        spec = {"token": token, "audiences": list(audiences)}
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec}
        reply = self._call("TokenReview", "POST", path(AUTHENTICATION, "tokenreviews"), body=body)
        return dict(reply.get("status") or {})

    def ensure_namespace(self, name: str) -> None:
        """Create a namespace unless it exists (a local operator's own, where it keeps the cases)."""
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        self._call_or_none(f"Namespace {name}", "POST", path(CORE, "namespaces"), body=body, absent=(409,))

    def apply_webhook_configuration(self, obj: dict[str, Any], manager: str) -> None:
        name = obj["metadata"]["name"]
        where = path(ADMISSION, "mutatingwebhookconfigurations", name=name)
        self._apply(f"MutatingWebhookConfiguration {name}", where, obj, manager)

    def list_deployments(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        what = f"Deployments {namespace} ({selector})"
        return self._items(what, "Deployment", namespace, labelSelector=selector)

    def get_deployment(self, namespace: str, name: str) -> dict[str, Any] | None:
        """A Deployment, or None when there is none of that name (an approved rollback reads it)."""
        return self._read_or_none("Deployment", namespace, name)

    def list_replicasets(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        """ReplicaSets matching ``selector`` (a rollback finds the previous template among them)."""
        what = f"ReplicaSets {namespace} ({selector})"
        return self._items(what, "ReplicaSet", namespace, labelSelector=selector)

    def get_replicaset(self, namespace: str, name: str) -> dict[str, Any] | None:
        """A ReplicaSet (the gate's webhook reads what a scale of one, or a pod of one, would run)."""
        return self._read_or_none("ReplicaSet", namespace, name)

    def patch_deployment(self, namespace: str, name: str, patch: dict[str, Any]) -> None:
        """A merge patch (annotations and spec.paused / spec.template, as the gate decides)."""
        what, where = f"Deployment {namespace}/{name}", _kind("Deployment", namespace, name)
        self._call(what, "PATCH", where, None, patch, MERGE)

    def set_deployment_condition(self, namespace: str, name: str, condition: dict[str, Any]) -> None:
        """One condition of a Deployment's status, merged by its type (strategic merge patch of the
        status subresource): the others, the controller's own, are left as they are."""
        what, where = (
            f"Deployment {namespace}/{name} (status)",
            _kind("Deployment", namespace, name, "status"),
        )
        self._call(what, "PATCH", where, None, {"status": {"conditions": [condition]}}, STRATEGIC)

    # --- credentials for Proctor's own services (the collector) ----------------------------------

    def bearer_token(self) -> str | None:
        """The bearer token this client authenticates with: a kubeconfig's ``token``, ``tokenFile`` or
        exec plugin (OIDC, cloud IAM), or the pod's service-account token (re-read as it rotates).
        None when it authenticates with a client certificate, which cannot be passed on."""
        cfg = self.api.configuration
        # the client's loaders keep it as "BearerToken" (older releases: "authorization")
        value = cfg.get_api_key_with_prefix("BearerToken", alias="authorization") or ""
        scheme, _, token = str(value).partition(" ")
        token = token.strip() if scheme.lower() == "bearer" else str(value).strip()
        return token or None

    def request_token(
        self, namespace: str, service_account: str, *, seconds: int = 600, audiences: Sequence[str] = ()
    ) -> str:
        """A short-lived token of a ServiceAccount, by TokenRequest (``kubectl create token``), for
        ``audiences`` (none: the API server's): the caller needs ``create`` on
        ``serviceaccounts/token`` for it."""
        spec = {"audiences": list(audiences), "expirationSeconds": seconds}
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenRequest", "spec": spec}
        where = _kind("ServiceAccount", namespace, service_account, "token")
        reply = self._call(
            f"a token for ServiceAccount {namespace}/{service_account}", "POST", where, body=body
        )
        return str(reply["status"]["token"])
