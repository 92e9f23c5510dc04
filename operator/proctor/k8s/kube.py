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
from collections.abc import Callable, Generator, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from kubernetes import client, config, watch
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


class Kube:
    """The calls Proctor makes, as plain dicts."""

    def __init__(self, api: client.ApiClient | None = None) -> None:
        self.api = api or load_client()
        self.core = client.CoreV1Api(self.api)
        self.custom = client.CustomObjectsApi(self.api)
        self.batch = client.BatchV1Api(self.api)
        self.rbac = client.RbacAuthorizationV1Api(self.api)
        self.apps = client.AppsV1Api(self.api)

    @property
    def host(self) -> str:
        """The API server's URL (for messages)."""
        return str(self.api.configuration.host)

    def close(self) -> None:
        """Release the connection pool."""
        cast(Any, self.api).close()

    @staticmethod
    def _do(what: str, fn: Callable[..., Any], *args: Any, absent: tuple[int, ...] = (), **kw: Any) -> Any:
        """One call; an API error becomes a KubeError, or ``None`` for a status in ``absent``."""
        try:
            return cast(Any, fn)(*args, **kw)
        except ApiException as e:
            if e.status in absent:
                return None
            raise KubeError(what, e) from None

    def _create(self, what: str, fn: Callable[..., Any], *args: Any) -> dict[str, Any] | None:
        """One create call: the object as stored, or None when one of that name exists."""
        reply = self._do(what, fn, *args, absent=(409,), _preload_content=False)
        return None if reply is None else _json(reply)

    def _read_or_none(
        self, what: str, fn: Callable[..., Any], name: str, namespace: str
    ) -> dict[str, Any] | None:
        """One read of a namespaced object: the object, or None when there is none of that name."""
        reply = self._do(what, fn, name, namespace, absent=(404,), _preload_content=False)
        return None if reply is None else _json(reply)

    def _items(self, what: str, fn: Callable[..., Any], *args: Any, **kw: Any) -> list[dict[str, Any]]:
        """The items of one list call."""
        return list(_json(self._do(what, fn, *args, _preload_content=False, **kw)).get("items") or [])

    # --- Proctor's kinds ------------------------------------------------------------------------

    def get(self, kind: str, namespace: str, name: str) -> dict[str, Any]:
        return cast(
            dict[str, Any],
            self._do(
                f"{kind} {namespace}/{name}",
                self.custom.get_namespaced_custom_object,
                GROUP,
                VERSION,
                namespace,
                PLURALS[kind],
                name,
            ),
        )

    def get_or_none(self, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        try:
            return self.get(kind, namespace, name)
        except KubeError as e:
            if e.status == 404:
                return None
            raise

    def create_custom(self, kind: str, namespace: str, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Create a Proctor object; the object as stored, or None when one of that name exists."""
        what, fn = (
            f"{kind} {namespace}/{obj['metadata']['name']}",
            self.custom.create_namespaced_custom_object,
        )
        return self._create(what, fn, GROUP, VERSION, namespace, PLURALS[kind], obj)

    def patch_custom_json(self, kind: str, namespace: str, name: str, ops: list[dict[str, Any]]) -> None:
        """A JSON patch (RFC 6902): list items are removed by index, guarded by ``test`` operations."""
        self._do(
            f"{kind} {namespace}/{name}",
            self.custom.patch_namespaced_custom_object,
            GROUP,
            VERSION,
            namespace,
            PLURALS[kind],
            name,
            ops,
            _content_type=JSON_PATCH,
            _preload_content=False,
        )

    def patch_custom(self, kind: str, namespace: str, name: str, patch: dict[str, Any]) -> None:
        self._do(
            f"{kind} {namespace}/{name}",
            self.custom.patch_namespaced_custom_object,
            GROUP,
            VERSION,
            namespace,
            PLURALS[kind],
            name,
            patch,
            _content_type=MERGE,
            _preload_content=False,
        )

    def list_custom(
        self, kind: str, namespace: str, selector: str | None = None, *, fields: str | None = None
    ) -> list[dict[str, Any]]:
        what, fn = f"{kind} list {namespace}", self.custom.list_namespaced_custom_object
        kw: dict[str, Any] = {"label_selector": selector}
        if fields:
            kw["field_selector"] = fields
        return self._items(what, fn, GROUP, VERSION, namespace, PLURALS[kind], **kw)

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
        kw: dict[str, Any] = {"label_selector": selector, "limit": limit, "_preload_content": False}
        if cont:
            kw["_continue"] = cont
        if namespace is None:
            reply = self._do(
                f"{kind} list {where}",
                self.custom.list_cluster_custom_object,
                GROUP,
                VERSION,
                PLURALS[kind],
                **kw,
            )
        else:
            fn = self.custom.list_namespaced_custom_object
            reply = self._do(f"{kind} list {where}", fn, GROUP, VERSION, namespace, PLURALS[kind], **kw)
        body = _json(reply)
        return list(body.get("items") or []), (body.get("metadata") or {}).get("continue") or None

    def delete_custom(self, kind: str, namespace: str, name: str) -> None:
        self._do(
            f"{kind} {namespace}/{name}",
            self.custom.delete_namespaced_custom_object,
            GROUP,
            VERSION,
            namespace,
            PLURALS[kind],
            name,
            absent=(404,),
        )

    def watch_custom(
        self, kind: str, namespace: str, name: str, *, resource_version: str | None, timeout: int
    ) -> Generator[dict[str, Any], None, None]:
        """Events about one object until the server ends the watch (at most ``timeout`` seconds)."""
        w: Any = cast(Any, watch).Watch()
        try:
            yield from w.stream(
                self.custom.list_namespaced_custom_object,
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
        reply = self._do(
            f"{kind} {namespace}/{name} (dry run)",
            self.custom.patch_namespaced_custom_object,
            GROUP,
            VERSION,
            namespace,
            PLURALS[kind],
            name,
            patch,
            dry_run="All",
            _content_type=MERGE,
            _preload_content=False,
        )
        return _json(reply)

    def served_resources(self) -> set[str]:
        """The resources the API server serves in Proctor's group and version (discovery)."""
        reply = self._do(f"discovery of {GROUP}/{VERSION}", self.custom.get_api_resources, GROUP, VERSION)
        return {r.name for r in (reply.resources or [])}

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
        self._do(
            f"{kind} {namespace}/{name} status",
            self.custom.patch_namespaced_custom_object_status,
            GROUP,
            VERSION,
            namespace,
            PLURALS[kind],
            name,
            body,
            field_manager=manager,
            force=True,
            _content_type=APPLY,
            _preload_content=False,
        )

    # --- ConfigMaps -----------------------------------------------------------------------------

    def get_configmap(self, namespace: str, name: str) -> dict[str, Any]:
        reply = self._do(
            f"ConfigMap {namespace}/{name}",
            self.core.read_namespaced_config_map,
            name,
            namespace,
            _preload_content=False,
        )
        return _json(reply)

    def get_configmap_or_none(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self._read_or_none(
            f"ConfigMap {namespace}/{name}", self.core.read_namespaced_config_map, name, namespace
        )

    def get_configmap_data(self, namespace: str, name: str) -> dict[str, str]:
        return dict(self.get_configmap(namespace, name).get("data") or {})

    def list_configmaps(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        what, fn = f"ConfigMaps {namespace} ({selector})", self.core.list_namespaced_config_map
        return self._items(what, fn, namespace, label_selector=selector)

    def create_configmap(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Create a ConfigMap; the object as stored, or None when one of that name exists."""
        meta = obj["metadata"]
        what = f"ConfigMap {meta['namespace']}/{meta['name']}"
        return self._create(what, self.core.create_namespaced_config_map, meta["namespace"], obj)

    def patch_configmap(self, namespace: str, name: str, patch: dict[str, Any]) -> None:
        """A strategic merge patch (metadata such as owner references)."""
        self._do(
            f"ConfigMap {namespace}/{name}",
            self.core.patch_namespaced_config_map,
            name,
            namespace,
            patch,
            _preload_content=False,
        )

    def apply(self, obj: dict[str, Any], manager: str) -> None:
        """Server-side apply of a ConfigMap (creates it, or makes it equal to ``obj``)."""
        meta = obj["metadata"]
        self._do(
            f"ConfigMap {meta['namespace']}/{meta['name']}",
            self.core.patch_namespaced_config_map,
            meta["name"],
            meta["namespace"],
            obj,
            field_manager=manager,
            force=True,
            _content_type=APPLY,
            _preload_content=False,
        )

    def delete_configmap(self, namespace: str, name: str) -> None:
        self._do(
            f"ConfigMap {namespace}/{name}",
            self.core.delete_namespaced_config_map,
            name,
            namespace,
            absent=(404,),
        )

    # --- Jobs, RBAC, Deployments, the webhook ---------------------------------------------------

    def list_jobs(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        what, fn = f"Jobs {namespace} ({selector})", self.batch.list_namespaced_job
        return self._items(what, fn, namespace, label_selector=selector)

    def create_job(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Create a Job; None when one of that name already exists (the caller decides to adopt)."""
        meta = obj["metadata"]
        what = f"Job {meta['namespace']}/{meta['name']}"
        return self._create(what, self.batch.create_namespaced_job, meta["namespace"], obj)

    def get_job(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self._read_or_none(f"Job {namespace}/{name}", self.batch.read_namespaced_job, name, namespace)

    def list_pods(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        what, fn = f"Pods {namespace} ({selector})", self.core.list_namespaced_pod
        return self._items(what, fn, namespace, label_selector=selector)

    def get_pod(self, namespace: str, name: str) -> dict[str, Any] | None:
        return self._read_or_none(f"Pod {namespace}/{name}", self.core.read_namespaced_pod, name, namespace)

    def list_events(self, namespace: str, field_selector: str) -> list[dict[str, Any]]:
        what, fn = f"Events {namespace} ({field_selector})", self.core.list_namespaced_event
        return self._items(what, fn, namespace, field_selector=field_selector)

    def create_event(self, obj: dict[str, Any]) -> dict[str, Any] | None:
        """Post an Event; None when one of that name exists (a decision already said)."""
        ns = obj["metadata"]["namespace"]
        what = f"Event {ns}/{obj['metadata'].get('name') or obj['metadata'].get('generateName')}"
        return self._create(what, self.core.create_namespaced_event, ns, obj)

    def apply_rbac(self, objs: list[dict[str, Any]], manager: str) -> None:
        """Server-side apply of ServiceAccounts, Roles and RoleBindings."""
        for obj in objs:
            meta = obj["metadata"]
            fn = {
                "ServiceAccount": self.core.patch_namespaced_service_account,
                "Role": self.rbac.patch_namespaced_role,
                "RoleBinding": self.rbac.patch_namespaced_role_binding,
            }[obj["kind"]]
            self._do(
                f"{obj['kind']} {meta['namespace']}/{meta['name']}",
                fn,
                meta["name"],
                meta["namespace"],
                obj,
                field_manager=manager,
                force=True,
                _content_type=APPLY,
                _preload_content=False,
            )

    def whoami(self) -> str:
        """The username this client authenticates as (a SelfSubjectReview, which every authenticated
        user may make)."""
        api = client.AuthenticationV1Api(self.api)
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
        reply = self._do("SelfSubjectReview", api.create_self_subject_review, body, _preload_content=False)
        return str(_json(reply)["status"]["userInfo"]["username"])

    def allowed(self, user: Mapping[str, Any], attributes: Mapping[str, str]) -> bool:
        """Whether ``user`` (an admission request's ``userInfo``) may do what ``attributes`` (a
        SubjectAccessReview's ``resourceAttributes``) say: the API server's authorizer answers."""
        api = client.AuthorizationV1Api(self.api)
        spec: dict[str, Any] = {"user": user.get("username", ""), "resourceAttributes": dict(attributes)}
        for key in ("groups", "uid", "extra"):
            if user.get(key):
                spec[key] = user[key]
        body = {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}
        reply = self._do(
            "SubjectAccessReview", api.create_subject_access_review, body, _preload_content=False
        )
        return bool((_json(reply).get("status") or {}).get("allowed"))

    def review_token(self, token: str, audiences: Sequence[str]) -> dict[str, Any]:
        """A TokenReview's status for ``token`` issued for ``audiences``: ``authenticated``, ``user``
        (with the ``extra`` a pod-bound token carries: the pod's name and UID) and ``audiences``."""
        api = client.AuthenticationV1Api(self.api)
        spec = {"token": token, "audiences": list(audiences)}
        body = {"apiVersion": "authentication.k8s.io/v1", "kind": "TokenReview", "spec": spec}
        reply = self._do("TokenReview", api.create_token_review, body, _preload_content=False)
        return dict(_json(reply).get("status") or {})

    def ensure_namespace(self, name: str) -> None:
        """Create a namespace unless it exists (a local operator's own, where it keeps the cases)."""
        body = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}
        self._create(f"Namespace {name}", self.core.create_namespace, body)

    def apply_webhook_configuration(self, obj: dict[str, Any], manager: str) -> None:
        api = client.AdmissionregistrationV1Api(self.api)
        self._do(
            f"MutatingWebhookConfiguration {obj['metadata']['name']}",
            api.patch_mutating_webhook_configuration,
            obj["metadata"]["name"],
            obj,
            field_manager=manager,
            force=True,
            _content_type=APPLY,
            _preload_content=False,
        )

    def list_deployments(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        what, fn = f"Deployments {namespace} ({selector})", self.apps.list_namespaced_deployment
        return self._items(what, fn, namespace, label_selector=selector)

    def get_deployment(self, namespace: str, name: str) -> dict[str, Any] | None:
        """A Deployment, or None when there is none of that name (an approved rollback reads it)."""
        fn = self.apps.read_namespaced_deployment
        return self._read_or_none(f"Deployment {namespace}/{name}", fn, name, namespace)

    def list_replicasets(self, namespace: str, selector: str) -> list[dict[str, Any]]:
        """ReplicaSets matching ``selector`` (a rollback finds the previous template among them)."""
        what, fn = f"ReplicaSets {namespace} ({selector})", self.apps.list_namespaced_replica_set
        return self._items(what, fn, namespace, label_selector=selector)

    def get_replicaset(self, namespace: str, name: str) -> dict[str, Any] | None:
        """A ReplicaSet (the gate's webhook reads what a scale of one, or a pod of one, would run)."""
        fn = self.apps.read_namespaced_replica_set
        return self._read_or_none(f"ReplicaSet {namespace}/{name}", fn, name, namespace)

    def patch_deployment(self, namespace: str, name: str, patch: dict[str, Any]) -> None:
        """A merge patch (annotations and spec.paused / spec.template, as the gate decides)."""
        self._do(
            f"Deployment {namespace}/{name}",
            self.apps.patch_namespaced_deployment,
            name,
            namespace,
            patch,
            _content_type=MERGE,
            _preload_content=False,
        )

    def set_deployment_condition(self, namespace: str, name: str, condition: dict[str, Any]) -> None:
        """One condition of a Deployment's status, merged by its type (strategic merge patch of the
        status subresource): the others, the controller's own, are left as they are."""
        self._do(
            f"Deployment {namespace}/{name} (status)",
            self.apps.patch_namespaced_deployment_status,
            name,
            namespace,
            {"status": {"conditions": [condition]}},
            _content_type=STRATEGIC,
            _preload_content=False,
        )

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
        body = client.AuthenticationV1TokenRequest(
            spec=client.V1TokenRequestSpec(audiences=list(audiences), expiration_seconds=seconds)
        )
        reply = self._do(
            f"a token for ServiceAccount {namespace}/{service_account}",
            self.core.create_namespaced_service_account_token,
            service_account,
            namespace,
            body,
        )
        return str(reply.status.token)
